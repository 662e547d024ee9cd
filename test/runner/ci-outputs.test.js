/**
 * --junit and --summary-json of `ioswarm run` and `ioswarm capacity`: the real CLI, the
 * files parsed, their verdicts the same as the exit code's; a file that cannot be written
 * stops the command before anything starts.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync } from 'node:fs'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { runCli } from '../helpers/cli.js'
import { startDegradingServer } from '../helpers/degrading-server.js'

/** @param {import('node:test').TestContext} t */
async function tempDir (t) {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'ioswarm-ci-run-'))
  t.after(() => rm(dir, { recursive: true, force: true }))
  return dir
}

/** [name, failure message or null] of each testcase of a JUnit file. @param {string} xml */
function testcases (xml) {
  return [...xml.matchAll(/<testcase classname="[^"]*" name="([^"]*)"[^>]*>([\s\S]*?)<\/testcase>/g)].map(([, name, body]) => [
    name,
    /<failure message="([^"]*)"/.exec(body)?.[1] ?? null
  ])
}

test('run --junit --summary-json: a testcase per --assert, ' +
  'the failure carries the measured value; the summary says the exit code', { timeout: 120000 }, async (t) => {
  const dir = await tempDir(t)
  const junit = path.join(dir, 'junit.xml')
  const summary = path.join(dir, 'summary.json')
  const run = await runCli(t, [
    'bin/ioswarm.js', 'run', '--simulators', '1', '--clients', '5', '--rounds', '1x100', '--ping-interval', '1s', '--ramp', '0', '--quiet',
    '--out', path.join(dir, 'out'), '--assert', 'p99<0.001ms', '--assert', 'missing=0', '--junit', junit, '--summary-json', summary
  ], { timeoutMs: 90000 })
  assert.equal(run.code, 3, run.stderr)
  const xml = await readFile(junit, 'utf8')
  assert.match(
    xml,
    new RegExp(/^<\?xml version="1\.0" encoding="UTF-8"\?>\n<testsuites name="ioswarm run" tests="2" /.source +
      /failures="1" errors="0">\n {2}<testsuite name="[^"]+" id="run-[^"]+" tests="2" failures="1"/.source)
  )
  const cases = testcases(xml)
  assert.deepEqual(cases.map((c) => c[0]), ['p99&#60;0.001ms', 'missing=0'])
  assert.match(String(cases[0][1]), /^p99 \S+ms \(round 1, 1x5\)$/)
  assert.equal(cases[1][1], null)
  const json = JSON.parse(await readFile(summary, 'utf8'))
  assert.deepEqual([json.command, json.ok, json.exitCode], ['run', false, 3])
  assert.deepEqual(json.results[0].clients, { target: 5, connected: 5, failed: 0 })
  assert.deepEqual(json.results[0].deliveries, { expected: 5, missing: 0 })
  assert.deepEqual([json.results[0].verdicts.passed, json.results[0].verdicts.failed], [1, 1])
})

test('a --junit or --summary-json that cannot be written exits 2 before the run starts', async (t) => {
  const dir = await tempDir(t)
  for (const [flag, command] of [['--junit', 'run'], ['--summary-json', 'run'], ['--junit', 'capacity']]) {
    const out = path.join(dir, `never-${command}`)
    const args = command === 'capacity' ? ['--slo', 'p99<1s'] : []
    const { code, stderr } = await runCli(t, ['bin/ioswarm.js', command, ...args, '--out', out, flag, path.join(dir, 'no/such/dir/file')])
    assert.equal(code, 2, stderr)
    assert.match(stderr, new RegExp(`^ioswarm: ${flag} cannot be written: ENOENT.*; nothing was started$`, 'm'))
    assert.ok(!existsSync(out), `${command}: no results folder for a run that never started`)
  }
})

test('capacity --junit --summary-json: the outcome and each SLO at the deciding step', { timeout: 180000 }, async (t) => {
  const server = await startDegradingServer(t, { limit: 15, mode: 'delay', delayMs: 400 })
  const dir = await tempDir(t)
  const junit = path.join(dir, 'junit.xml')
  const summary = path.join(dir, 'summary.json')
  const found = await runCli(t, [
    'bin/ioswarm.js', 'capacity', '--target', server.url, '--token', server.token, '--slo', 'p99<200ms', '--start', '10', '--max', '20',
    '--precision', '50%', '--simulators', '2', '--engine', 'lean', '--ramp', '100ms', '--rounds', '2x300', '--message-timeout', '2s',
    '--connect-timeout', '10s', '--quiet', '--out', path.join(dir, 'out'), '--junit', junit, '--summary-json', summary
  ], { timeoutMs: 150000 })
  assert.equal(found.code, 0, found.stderr)
  const json = JSON.parse(await readFile(summary, 'utf8'))
  assert.deepEqual([json.command, json.exitCode, json.results[0].kind, json.results[0].outcome], ['capacity', 0, 'capacity', 'found'])
  const capacity = json.results[0].capacity
  assert.ok(capacity >= 10 && capacity < 20, `capacity ${capacity}`)
  const cases = testcases(await readFile(junit, 'utf8'))
  assert.deepEqual(
    cases.map((c) => c[0]),
    ['capacity', `p99&#60;200ms at ${capacity} clients`, `connected&#62;=100% (every client must connect) at ${capacity} clients`]
  )
  assert.ok(cases.every((c) => c[1] === null), 'a found capacity passes, and so did its step')
})
