/**
 * `ioswarm report` on results made by real runs: `simulate --json` against a socket.io chat
 * app (each client's line relayed to everyone, with an ack), one process and `--workers 2`,
 * then the report of each, its thresholds, and a comparison with a run and a capacity search.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { startAppServer } from '../helpers/app-server.js'
import { runCli } from '../helpers/cli.js'

const FIXTURES = new URL('../fixtures/', import.meta.url).pathname

/** @param {import('node:test').TestContext} t */
async function tempDir (t) {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'ioswarm-report-kinds-'))
  t.after(() => rm(dir, { recursive: true, force: true }))
  return dir
}

test('report reads real simulate results (one process and --workers) and compares them with a run and a capacity search', { timeout: 180000 }, async (t) => {
  const server = await startAppServer(t)
  const dir = await tempDir(t)
  const chat = ['--url', server.url, '-c', '12', '--ramp', '0', '--duration', '4s', '--event', 'chat', '--emit', 'chat {"text":"hi from {{i}}"}',
    '--emitters', '50%', '--emit-rate', '2/s', '--emit-ack', '--json']
  const files = { one: path.join(dir, 'sim.json'), workers: path.join(dir, 'sim-workers.json') }
  for (const [name, extra] of /** @type {const} */ ([['one', ['--id', 'chat-1']], ['workers', ['--id', 'chat-w', '--workers', '2']]])) {
    const sim = await runCli(t, ['bin/ioswarm.js', 'simulate', ...chat, ...extra], { timeoutMs: 60000 })
    assert.equal(sim.code, 0, sim.stderr)
    await writeFile(files[name], sim.stdout)
  }

  for (const [name, file] of Object.entries(files)) {
    const html = path.join(dir, `${name}.html`)
    const report = await runCli(t, [
      'bin/ioswarm.js', 'report', file, '--out', html, '--assert', 'ack.p99<5s', '--assert', 'p99<5s', '--assert',
      'ack.timeouts=0', '--json'
    ])
    assert.equal(report.code, 0, report.stderr)
    assert.match(report.stderr, /^pass {2}p99<5s +p99 \S+ \(all messages, 1x12\)$/m, `${name}: delays over all the chat lines`)
    const json = JSON.parse(report.stdout)
    assert.equal(json.runs[0].kind, 'simulator')
    const [d] = json.runs[0].summary.distributions
    assert.equal(d.clients.connected, 12)
    const page = await readFile(html, 'utf8')
    assert.match(page, name === 'workers' ? /ioswarm simulate --workers 2 chat-w/ : /ioswarm simulate chat-1 /)
    assert.match(page, /<canvas data-chart="d1-relative-delay"/, `${name}: the chat lines are drawn`)
    assert.match(page, /<h3>Emits, acks and joins<\/h3>/)
  }

  const compare = path.join(dir, 'compare.html')
  const both = await runCli(t, [
    'bin/ioswarm.js', 'report', files.one, files.workers, path.join(FIXTURES, 'run-small.json'), path.join(FIXTURES, 'capacity-small.json'),
    '--compare', '--label', 'one', '--label', 'two', '--label', 'run', '--label', 'search', '--out', compare])
  assert.equal(both.code, 0, both.stderr)
  const page = await readFile(compare, 'utf8')
  for (const chart of ['compare-avg', 'compare-p99', 'compare-capacity']) assert.match(page, new RegExp(`<canvas data-chart="${chart}"`))
  for (const cell of ['one 1x12', 'two 1x12', 'run 2x500', 'simulate --workers 2', 'search']) assert.ok(page.includes(`<td>${cell}</td>`), cell)

  const refused = await runCli(t, [
    'bin/ioswarm.js', 'report', path.join(FIXTURES, 'capacity-small.json'), '--out', path.join(dir, 'c.html'), '--assert',
    'p99<1s'
  ])
  assert.equal(refused.code, 2)
  assert.match(
    refused.stderr,
    /^ioswarm: --assert does not apply to .*capacity-small\.json, a capacity result: its steps were judged by the --slo it ran with/m
  )
  const unknown = path.join(dir, 'other.json')
  await writeFile(unknown, JSON.stringify({ schemaVersion: 1, kind: 'window' }))
  const other = await runCli(t, ['bin/ioswarm.js', 'report', unknown])
  assert.equal(other.code, 2)
  assert.match(other.stderr, /other\.json is not an ioswarm result: "kind" is "window", expected one of "run", "simulator", "capacity"/)
})
