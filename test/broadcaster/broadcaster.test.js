import { test } from 'node:test'
import assert from 'node:assert/strict'
import { io } from 'socket.io-client'
import { runBroadcast } from '../../broadcaster/index.js'
import { startTestServer, startTestSwarm, waitForClients, waitForClientsReady } from '../helpers/swarm.js'
import { freePort } from '../helpers/ports.js'
import { waitFor } from '../helpers/wait.js'

test('rounds are sent on schedule with round.seq ids, over HTTP and over the admin socket', async (t) => {
  const server = await startTestServer(t)
  /** @type {unknown[]} */
  const seen = []
  server.io.on('connection', () => {})
  const original = server.io.emit.bind(server.io)
  server.io.emit = (/** @type {string} */ event, /** @type {unknown[]} */ ...args) => { seen.push(args[0]); return original(event, ...args) }
  for (const via of /** @type {const} */ (['http', 'socket'])) {
    seen.length = 0
    /** @type {number[]} */
    const rounds = []
    const result = await runBroadcast({ url: server.url, token: 'test-token', rounds: '3x100,2x50', size: 32, via }, {
      onRoundEnd: (round) => { rounds.push(round) }
    })
    assert.deepEqual(result.messages.map((m) => m.id), ['1.1', '1.2', '1.3', '2.1', '2.2'], via)
    assert.deepEqual(rounds, [1, 2])
    assert.equal(seen.length, 5)
    assert.ok(result.messages.every((m) => m.error === null && typeof m.sentAt === 'number'))
    // Scheduled from the round start: message k of round 1 goes out about k × 100 ms after the first.
    const r1 = result.messages.filter((m) => m.round === 1).map((m) => m.requestedAt - result.messages[0].requestedAt)
    // Not before its time (a schedule measured from the round start); the upper bound only
    // catches a schedule gone wrong, with room for a loaded machine.
    assert.ok(r1[2] >= 195 && r1[2] < 2000, `third message at +${r1[2]} ms`)
  }
})

test('a wrong token stops the broadcast with a clear error', async (t) => {
  const server = await startTestServer(t)
  await assert.rejects(runBroadcast({ url: server.url, token: 'nope', rounds: '2x10' }), /refused the token \(HTTP 401/)
  await assert.rejects(runBroadcast({ url: server.url, token: 'nope', rounds: '2x10', via: 'socket' }), /refused the token/)
})

test('a server that is not there fails the broadcast with the reason', async () => {
  await assert.rejects(runBroadcast({ url: `http://127.0.0.1:${await freePort()}`, token: 't', rounds: '1x10' }), /every broadcast so far failed: POST .* failed: ECONNREFUSED/)
})

test('bad options are usage errors naming the flag', async () => {
  await assert.rejects(runBroadcast({ url: 'http://x', token: '', rounds: '1x1' }), /--token is required/)
  await assert.rejects(runBroadcast({ url: 'http://x', token: 't', rounds: 'soon' }), /--rounds/)
  await assert.rejects(runBroadcast({ url: 'http://x', token: 't', size: -4 }), /--size/)
})

test('--message: the server emits the rendered template, over HTTP and the admin socket', async (t) => {
  const server = await startTestServer(t)
  const listener = io(server.url, { transports: ['websocket'], reconnection: false, forceNew: true })
  t.after(() => listener.close())
  await waitForClients(server, 1)
  /** @type {any[]} */
  const received = []
  listener.on('score', (m) => received.push(m))
  const message = '{"type":"score","ref":"m-{{id}}","r":{{round}},"n":{{seq}},"ts":{{sentAt}},"body":{{payload}}}'
  for (const via of /** @type {const} */ (['http', 'socket'])) {
    const before = Date.now()
    const result = await runBroadcast({ url: server.url, token: 'test-token', rounds: '2x20', event: 'score', size: 3, message, via })
    assert.equal(result.message, message)
    assert.ok(result.messages.every((m) => m.error === null), via)
    await waitFor(() => received.length === (via === 'http' ? 2 : 4), { message: `${via}: two messages` })
    const [first] = received.slice(-2)
    assert.deepEqual({ ...first, ts: 0 }, { type: 'score', ref: 'm-1.1', r: 1, n: 1, ts: 0, body: 'ios' })
    assert.ok(first.ts >= before - 1 && first.ts <= Date.now(), 'sentAt is a wall-clock number')
  }
})

test('a --message that is not JSON, or names an unknown placeholder, is a usage error', async () => {
  await assert.rejects(runBroadcast({ url: 'http://x', token: 't', message: '{"id": {{id}' }), (error) => {
    assert.equal(/** @type {import('../../lib/errors.js').IoswarmError} */ (error).exitCode, 2)
    assert.match(/** @type {Error} */ (error).message, /^--message must be a JSON template/)
    return true
  })
  await assert.rejects(runBroadcast({ url: 'http://x', token: 't', message: '{"id": {{uuid}}}' }), /--message has an unknown placeholder \{\{uuid\}\}/)
  await assert.rejects(runBroadcast({ url: 'http://x', token: '', via: 'redis-emitter' }), /--redis is required with --via redis-emitter/)
})

test('two broadcasters during one swarm: ids repeat, batches keep them apart, every message is measured, none is late', async (t) => {
  // Short pings: waitForClientsReady waits for two pongs from every client.
  const server = await startTestServer(t, { pingIntervalMs: 200 })
  const swarm = startTestSwarm(t, { url: server.url, clients: 3, ramp: 0, engine: 'lean' })
  await waitForClientsReady(server, 3)
  const first = await runBroadcast({ url: server.url, token: 'test-token', rounds: '1x0' })
  const second = await runBroadcast({ url: server.url, token: 'test-token', rounds: '1x0' })
  assert.notEqual(first.batch, second.batch)
  assert.match(first.batch, /^[0-9a-f]{6}$/)
  // Both close (fully delivered and quiet) before the swarm stops.
  await waitFor(() => swarm.closed.length === 2, { timeoutMs: 10000, message: 'both messages closed' })
  const result = await swarm.stop()
  assert.deepEqual(result.messages.map((m) => [m.id, m.batch, m.received]).sort(), [['1.1', first.batch, 3], ['1.1', second.batch, 3]].sort())
  assert.equal(result.recorder?.lateReceipts, 0)
})
