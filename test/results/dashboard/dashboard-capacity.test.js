/**
 * `ioswarm capacity --dashboard`: the search prints the dashboard line, its seconds (clients
 * growing with the steps) and log go to the stream, each step a mark with its verdict (shaded
 * on the charts of the page and of report.html), and events.ndjson ends with the files.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { BIN, runCli } from '../../helpers/cli.js'

test('capacity --dashboard: the steps\' seconds and lines in the stream and its log', { timeout: 240000 }, async (t) => {
  const out = await mkdtemp(path.join(tmpdir(), 'ioswarm-dashboard-capacity-'))
  t.after(() => rm(out, { recursive: true, force: true }))
  const done = await runCli(t, [BIN, 'capacity', '--slo', 'p99<5s', '--start', '10', '--max', '20', '--simulators', '1', '--rounds', '2x500',
    '--ping-interval', '1s', '--out', out, '--dashboard', '0'], { timeoutMs: 200000 })
  assert.equal(done.code, 0, done.stderr)
  assert.match(done.stderr, /^dashboard: http:\/\/127\.0\.0\.1:\d+\/\?token=\S+$/m)
  const log = (await readFile(path.join(out, 'events.ndjson'), 'utf8')).trim().split('\n').map((l) => JSON.parse(l))
  assert.equal(log[0].type, 'hello')
  assert.equal(log[0].command, 'capacity')
  const connected = log.filter((e) => e.type === 'second').map((e) => e.clients.connected)
  assert.ok(connected.includes(20), `the second step's 20 clients are in the stream: ${connected}`)
  assert.ok(log.some((e) => e.type === 'log' && /capacity/.test(e.text)))
  const result = JSON.parse(await readFile(path.join(out, 'result.json'), 'utf8'))
  const steps = log.filter((e) => e.type === 'mark' && e.kind === 'step')
  assert.deepEqual(steps.map((e) => [e.at, e.endAt, e.ok]), result.steps.map((/** @type {any} */ s) => [s.startedAt, s.endedAt, s.verdict === 'pass']),
    'each step is a mark of its span and verdict')
  const report = await readFile(path.join(out, 'report.html'), 'utf8')
  assert.ok(report.includes(`step 1: ${result.steps[0].clients} clients: ${result.steps[0].verdict}`), 'the report\'s charts shade the steps')
  assert.deepEqual(log.at(-1), { ...log.at(-1), type: 'end', result: path.join(out, 'result.json'), report: path.join(out, 'report.html') })
})
