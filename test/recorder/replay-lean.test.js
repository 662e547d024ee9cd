/**
 * A recorded scenario (the Firefox polling fixture: an acked vote, then a plain emit) replayed
 * by the lean engine against a socket.io 4 app: with --loop every client repeats the recorded
 * steps until the run ends, in order; and when the app stops acking, the result names the step
 * each client failed at (failed_step_1, and the hook error "step 1 (vote (ack)) failed: …").
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { BIN, ROOT, runCli } from '../helpers/cli.js'
import { startIoServer } from '../helpers/io-server.js'

/**
 * A socket.io 4 app that acks votes (unless told not to) and keeps each socket's events in order.
 * @param {import('node:test').TestContext} t
 * @param {{ ackVotes: boolean }} options
 */
async function startVoteApp (t, { ackVotes }) {
  const { io, url } = await startIoServer(t)
  /** @type {Map<string, { user: unknown, events: string[] }>} */
  const ledger = new Map()
  io.on('connection', (socket) => {
    const entry = { user: socket.handshake.auth?.user, events: /** @type {string[]} */ ([]) }
    ledger.set(socket.id, entry)
    socket.onAny((event) => entry.events.push(event))
    socket.on('vote', (_vote, ack) => { if (ackVotes) ack({ counted: true }) })
  })
  return { url, ledger }
}

/** @param {import('node:test').TestContext} t */
async function recorded (t) {
  const dir = await mkdtemp(join(tmpdir(), 'ioswarm-replay-lean-'))
  t.after(() => rm(dir, { recursive: true, force: true }))
  const run = await runCli(t, [BIN, 'record', '--har', join(ROOT, 'test/fixtures/har/firefox-polling.har'), '--out', join(dir, 'vote.mjs')])
  assert.equal(run.code, 0, run.stderr)
  return { scenario: join(dir, 'vote.mjs'), feeder: join(dir, 'vote.users.csv') }
}

test('lean engine, --loop: every client repeats the recorded steps, in order, until the run ends', async (t) => {
  const app = await startVoteApp(t, { ackVotes: true })
  const files = await recorded(t)
  const run = await runCli(t, [
    BIN, 'simulate', '--url', app.url, '--engine', 'lean', '--transport', 'polling', '--scenario', files.scenario, '--feeder', files.feeder,
    '--event', 'score', '--clients', '10', '--ramp', '500ms', '--duration', '4s', '--loop', '--json'
  ], { env: { SCENARIO_SPEED: '5' } })
  const done = await run
  assert.equal(done.code, 0, done.stderr)
  const result = JSON.parse(done.stdout)
  const counts = result.custom.counts
  assert.ok(counts.replays_complete >= 20, `each client replayed more than once: ${JSON.stringify(counts)}`)
  assert.equal(Object.keys(counts).filter((k) => k.startsWith('failed_step')).length, 0, JSON.stringify(counts))
  const clients = [...app.ledger.values()].filter((e) => e.events.length > 0)
  assert.equal(clients.length, 10)
  for (const entry of clients) {
    assert.equal(entry.user, 'dave')
    const pairs = entry.events.length - (entry.events.length % 2)
    assert.ok(pairs >= 4, `client repeated the steps: ${entry.events.join(',')}`)
    for (let k = 0; k < pairs; k += 2) assert.deepEqual(entry.events.slice(k, k + 2), ['vote', 'ping me'])
  }
})

test('lean engine: a step whose ack never comes is named, per client, in the result', async (t) => {
  const app = await startVoteApp(t, { ackVotes: false })
  const files = await recorded(t)
  const run = await runCli(t, [
    BIN, 'simulate', '--url', app.url, '--engine', 'lean', '--transport', 'polling', '--scenario', files.scenario, '--feeder', files.feeder,
    '--event', 'score', '--clients', '5', '--ramp', '200ms', '--duration', '3s', '--ack-timeout', '500ms', '--json'
  ], { env: { SCENARIO_SPEED: '5' } })
  const done = await run
  assert.equal(done.code, 0, done.stderr)
  const result = JSON.parse(done.stdout)
  assert.equal(result.custom.counts.failed_step_1, 5)
  assert.equal(result.custom.counts.steps_done, undefined)
  const errors = Object.keys(result.scenario.hooks.errors)
  assert.ok(errors.some((e) => /^step 1 \(vote \(ack\)\) failed: /.test(e)), JSON.stringify(result.scenario.hooks.errors))
  assert.match(done.stderr, /failed_step_1\s+count\s+5/)
})
