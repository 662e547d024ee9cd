/**
 * Steering a running test (lib/steering.js) against the real reference server with real
 * simulators: the clients action resizes every simulator and the server's own count follows;
 * a new emit rate shows in the next windows' emits per client; a bad value is refused with its
 * flag's message and changes nothing; the stop action ends a run as Ctrl-C does (results kept,
 * report written, the actions in the timeline), through the library (the same run) and through `ioswarm run`.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { createSteering, runTest } from '../../runner/index.js'
import { writeRunFiles } from '../../runner/output.js'
import { runCli } from '../helpers/cli.js'
import { waitFor } from '../helpers/wait.js'

/** Each client's own line 4 times a second, relayed by the reference server: no rounds, windows of 1 s. */
const CHAT = { rounds: 'none', window: '1s', emit: 'chat {"text":"hi from {{i}}"}', emitRate: '4/s', emitters: '100%', event: 'chat' }
/** Long enough never to end by itself within a test: each run here is ended by its stop action. */
const HELD = { ...CHAT, simulators: 1, hold: '60s', pingInterval: '1s', ramp: '200ms', quiet: true }

/**
 * A run started through the library, its log lines kept, steered by the object returned.
 * @param {import('node:test').TestContext} t
 * @param {Record<string, unknown>} input
 */
function startRun (t, input) {
  const steering = createSteering({ command: 'run' })
  /** @type {string[]} */
  const lines = []
  const running = runTest({ ...HELD, ...input }, { steering, log: (line) => lines.push(line) })
  // A test that fails early still ends its run (and its server and simulators) before the file ends.
  t.after(async () => {
    await steering.act('stop', {}, 'api')
    await running.catch(() => {})
  })
  return { steering, running, lines, windows: () => lines.filter((l) => / window \d\d:\d\d:\d\d/.test(l)) }
}

/**
 * The reference server's own count of connections (GET /stats), its URL read from the run's first line.
 * @param {string[]} lines
 */
async function serverConnected (lines) {
  const url = lines.map((l) => /reference server (http:\/\/\S+)/.exec(l)?.[1]).find(Boolean)
  if (!url) return -1
  const stats = /** @type {any} */ (await (await fetch(new URL('/stats', url))).json())
  return Number(stats.connected)
}

/**
 * Emits sent per connected client in the windows wholly inside [from, to).
 * @param {import('../../lib/schema/result-schema.js').WindowResult[]} windows
 * @param {number} from
 * @param {number} to
 */
function emitsPerClient (windows, from, to) {
  const inside = windows.filter((w) => w.startAt >= from && w.endAt <= to && w.clients.connected > 0)
  const sent = inside.reduce((n, w) => n + (w.emits?.sent ?? 0), 0)
  const clientWindows = inside.reduce((n, w) => n + w.clients.connected, 0)
  return { windows: inside.length, perClient: sent / clientWindows }
}

test('clients N resizes every simulator (the server\'s count follows), a new emit rate shows in the next windows, a bad value changes nothing', async (t) => {
  const run = startRun(t, { simulators: 2, clientsPerSimulator: 3, maxClients: 12 })
  await waitFor(async () => (await serverConnected(run.lines)) === 6, { timeoutMs: 60000, message: () => `6 connections: ${run.lines.join('\n')}` })
  // The whole swarm's count: 6 clients each over the 2 simulators.
  const grown = await run.steering.act('clients', { clients: 12 }, 'dashboard')
  assert.ok(grown.ok, JSON.stringify(grown))
  assert.equal(grown.ok && grown.event.message, '12 clients over 2 simulators')
  await waitFor(async () => (await serverConnected(run.lines)) === 12, { timeoutMs: 60000, message: 'the server counts 2 × 6 connections' })
  // Two windows at 4/s with every client in, then the rate a quarter of it.
  const grownAt = Date.now()
  const atGrown = run.windows().length
  await waitFor(() => run.windows().length >= atGrown + 3, { timeoutMs: 60000, message: () => `two whole windows of 12 clients: ${run.windows().join('\n')}` })
  const slowed = await run.steering.act('emit-rate', { rate: '1/s' }, 'api')
  assert.ok(slowed.ok, JSON.stringify(slowed))
  const before = run.windows().length
  await waitFor(() => run.windows().length >= before + 3, { timeoutMs: 60000, message: 'three windows after the new rate' })
  // Refused, and nothing changes: the simulators have room for 12, not 13; a rate that is no rate.
  const tooMany = await run.steering.act('clients', { clients: 13 }, 'api')
  assert.deepEqual(!tooMany.ok && tooMany.status, 409)
  assert.match(!tooMany.ok ? tooMany.message : '', /room for 12 clients .*--max-clients 13 or more/)
  const bad = await run.steering.act('emit-rate', { rate: 'fast' }, 'api')
  assert.equal(!bad.ok && bad.status, 400)
  assert.match(!bad.ok ? bad.message : '', /^--emit-rate must be a rate per client such as 1\/10s/)
  assert.equal(await serverConnected(run.lines), 12, 'the refused resize changed nothing')
  await run.steering.act('stop', {}, 'api')
  const result = await run.running
  const windows = result.distributions[0].windows ?? []
  const fast = emitsPerClient(windows, grownAt, slowed.ok ? slowed.event.at : 0)
  const slow = emitsPerClient(windows, slowed.ok ? slowed.event.at + 1 : 0, Infinity)
  t.diagnostic(`emits per client per window: ${JSON.stringify({ fast, slow })}`)
  assert.ok(fast.windows >= 1 && slow.windows >= 2, JSON.stringify({ fast, slow }))
  // 4/s then 1/s per client: a quarter, give or take the Poisson spread of a few windows.
  assert.ok(slow.perClient < fast.perClient / 2, `emits per client per window: ${fast.perClient} at 4/s, ${slow.perClient} at 1/s`)
  assert.ok(slow.perClient > 0, 'the emitters still emit')
  assert.equal(windows.at(-2)?.clients.connected, 12, 'every client of the grown swarm stayed')
  assert.deepEqual(result.actions?.map((a) => [a.action, a.value, a.by, a.ok]), [
    ['clients', 12, 'dashboard', true], ['emit-rate', '1/s', 'api', true], ['clients', 13, 'api', false], ['emit-rate', 'fast', 'api', false],
    ['stop', null, 'api', true]
  ])
  // The stop ended the run as Ctrl-C does: its windows kept with what they measured, the actions in its files.
  assert.ok(windows.some((w) => w.received > 0), 'the windows before the stop are kept, with what they measured')
  const stopAt = /** @type {NonNullable<typeof result.actions>} */ (result.actions).at(-1)?.at ?? 0
  assert.ok(stopAt >= result.run.startedAt && stopAt <= result.run.endedAt)
  const out = mkdtempSync(path.join(os.tmpdir(), 'ioswarm-steering-'))
  t.after(() => rmSync(out, { recursive: true, force: true }))
  const files = await writeRunFiles(out, result)
  assert.deepEqual(JSON.parse(readFileSync(files.result, 'utf8')).actions, result.actions)
  const report = readFileSync(files.report, 'utf8')
  assert.match(report, /<h3 id="actions">Steering actions<\/h3>/)
  assert.match(report, /stop \(api\)/, 'a marker on the charts over time, named')
  const late = await run.steering.act('stop', {}, 'api')
  assert.equal(!late.ok && late.status, 409, 'a second stop is refused')
})

test('`ioswarm run`: Ctrl-C is the stop action: said on the terminal, in result.json and report.html, exit 0', async (t) => {
  const out = mkdtempSync(path.join(os.tmpdir(), 'ioswarm-steering-cli-'))
  t.after(() => rmSync(out, { recursive: true, force: true }))
  let signalled = false
  const run = runCli(t, ['bin/ioswarm.js', 'run', '--clients', '2', '--simulators', '1', '--hold', '60s', '--window', '1s', '--rounds', 'none',
    '--ping-interval', '1s', '--ramp', '200ms', '--emit', 'chat {"text":"hi"}', '--emit-rate', '4/s', '--event', 'chat', '--out', out], {
    timeoutMs: 120000,
    onStderr: (text, child) => {
      if (signalled || (text.match(/ window \d\d:\d\d:\d\d/g) ?? []).length < 2) return
      signalled = true
      child.kill('SIGINT')
    }
  })
  const { code, stderr } = await run
  assert.equal(code, 0, stderr)
  assert.match(stderr, /SIGINT received, stopping and flushing results/)
  assert.match(stderr, /^action \d\d:\d\d:\d\d stop by signal: done$/m)
  const result = JSON.parse(readFileSync(path.join(out, 'result.json'), 'utf8'))
  assert.deepEqual(result.actions.map((/** @type {any} */ a) => [a.action, a.by, a.ok]), [['stop', 'signal', true]])
  assert.match(readFileSync(path.join(out, 'report.html'), 'utf8'), /Steering actions/)
})
