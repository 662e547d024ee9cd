import { test } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync } from 'node:fs'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { runCli } from '../../helpers/cli.js'
import { startDegradingServer } from '../../helpers/degrading-server.js'

/** @param {import('node:test').TestContext} t */
async function tempDir (t) {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'ioswarm-capacity-'))
  t.after(() => rm(dir, { recursive: true, force: true }))
  return dir
}

const QUICK = ['--simulators', '2', '--engine', 'lean', '--ramp', '100ms', '--rounds', '2x300', '--message-timeout', '2s', '--connect-timeout', '10s']

test('bad input exits 2 naming the flag, before anything starts', async (t) => {
  const out = path.join(await tempDir(t), 'never')
  const { code, stderr } = await runCli(t, ['bin/ioswarm.js', 'capacity', '--slo', 'p99', '--start', '10', '--out', out])
  assert.equal(code, 2, stderr)
  assert.match(stderr, /^ioswarm: --slo "p99" is not METRIC OP VALUE/)
  assert.ok(!existsSync(out), 'no results folder for a run that never started')
  // --vary: an unknown name, and emit-rate without the clients it holds.
  const [unknown, rate] = await Promise.all([
    runCli(t, ['bin/ioswarm.js', 'capacity', '--slo', 'p99<1s', '--vary', 'users', '--out', out]),
    runCli(t, ['bin/ioswarm.js', 'capacity', '--slo', 'ack.p99<200ms', '--rounds', 'none', '--vary', 'emit-rate', '--emit', 'chat {}', '--out', out])
  ])
  assert.equal(unknown.code, 2, unknown.stderr)
  assert.match(unknown.stderr, /^ioswarm: --vary must be one of clients, emit-rate, got "users"/)
  assert.equal(rate.code, 2, rate.stderr)
  assert.match(rate.stderr, /^ioswarm: --clients is required with --vary emit-rate/)
  assert.ok(!existsSync(out))
})

test('ioswarm capacity end to end: the answer in one line, result.json, steps.csv and report.html; exit 0, or 3 when --start already fails', async (t) => {
  const server = await startDegradingServer(t, { limit: 15, mode: 'delay', delayMs: 400 })
  const out = await tempDir(t)
  const found = await runCli(
    t,
    [
      'bin/ioswarm.js',
      'capacity',
      '--target',
      server.url,
      '--token',
      server.token,
      '--slo',
      'p99<200ms',
      '--start',
      '10',
      '--max',
      '40',
      '--precision',
      '25%',
      ...QUICK,
      '--out',
      out,
      '--json'
    ],
    { timeoutMs: 120000 }
  )
  assert.equal(found.code, 0, found.stderr)
  assert.match(found.stderr, /^step 1 \(grow\): 10 clients: connected 10 in .* → pass$/m, 'a progress line per step')
  assert.match(found.stderr, /^capacity: 15 clients at p99<200ms — websocket \(lean\), target http:\/\/127\.0\.0\.1:\d+, 2 simulators/m)
  const result = JSON.parse(await readFile(path.join(out, 'result.json'), 'utf8'))
  assert.deepEqual(JSON.parse(found.stdout), result, '--json prints result.json')
  assert.equal(result.kind, 'capacity')
  assert.equal(result.capacity, 15)
  assert.equal((await readFile(path.join(out, 'steps.csv'), 'utf8')).trimEnd().split('\r\n').length, 1 + result.steps.length)
  assert.match(await readFile(path.join(out, 'report.html'), 'utf8'), /data-chart="capacity-delay"/)

  const low = await runCli(
    t,
    [
      'bin/ioswarm.js',
      'capacity',
      '--target',
      server.url,
      '--token',
      server.token,
      '--slo',
      'p99<200ms',
      '--start',
      '20',
      '--max',
      '40',
      ...QUICK,
      '--out',
      await tempDir(t),
      '--quiet'
    ],
    { timeoutMs: 120000 }
  )
  assert.equal(low.code, 3, low.stderr)
  assert.match(low.stderr, /^capacity: below 20 clients at p99<200ms — .*the first step failed: p99 \d+ms.*start lower with --start/m)
  assert.doesNotMatch(low.stderr, /^step 1/m, '--quiet: no progress lines')
})
