import { test } from 'node:test'
import assert from 'node:assert/strict'
import { io } from 'socket.io-client'
import { runBroadcast } from '../../broadcaster/index.js'
import { startTestServer, startTestSwarm, waitForClients, waitForClientsReady } from '../helpers/swarm.js'
import { closedPort } from '../helpers/ports.js'
import { waitFor } from '../helpers/wait.js'
import { connect, join, record } from '../helpers/sio-client.js'

test('rounds are sent on schedule with round.seq ids, over HTTP and over the admin socket', async (t) => {
  const server = await startTestServer(t)
  /** @type {unknown[]} */
  const seen = []
  const main = server.io.of('/')
  const original = main.emit.bind(main)
  main.emit = (/** @type {string} */ event, /** @type {unknown[]} */ ...args) => { seen.push(args[0]); return original(event, ...args) }
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

test('firstRound numbers the rounds from there: a second call to the same swarm sends new ids', async (t) => {
  const server = await startTestServer(t)
  /** @type {number[]} */
  const rounds = []
  const result = await runBroadcast(
    { url: server.url, token: 'test-token', rounds: '2x10,1x10', firstRound: 4 },
    {
      onRoundEnd: (round) => {
        rounds.push(round)
      }
    }
  )
  assert.deepEqual(result.messages.map((m) => m.id), ['4.1', '4.2', '5.1'])
  assert.deepEqual(rounds, [4, 5])
  await assert.rejects(runBroadcast({ url: server.url, token: 'test-token', rounds: '1x10', firstRound: 0 }), /firstRound must be a whole number from 1/)
})

test('a wrong token stops the broadcast with a clear error', async (t) => {
  const server = await startTestServer(t)
  await assert.rejects(runBroadcast({ url: server.url, token: 'nope', rounds: '2x10' }), /refused the token \(HTTP 401/)
  await assert.rejects(runBroadcast({ url: server.url, token: 'nope', rounds: '2x10', via: 'socket' }), /refused the token/)
})

test('a server that is not there fails the broadcast with the reason', async () => {
  await assert.rejects(
    runBroadcast({ url: `http://127.0.0.1:${await closedPort()}`, token: 't', rounds: '1x10' }),
    /every broadcast so far failed: POST .* failed: ECONNREFUSED/
  )
})

test('bad options are usage errors naming the flag', async () => {
  await assert.rejects(runBroadcast({ url: 'http://x', token: '', rounds: '1x1' }), /--token is required/)
  await assert.rejects(runBroadcast({ url: 'http://x', token: 't', rounds: 'soon' }), /--rounds/)
  await assert.rejects(runBroadcast({ url: 'http://x', token: 't', size: -4 }), /--size/)
  await assert.rejects(runBroadcast({ url: 'http://x', token: 't', rooms: 0 }), /^IoswarmError: --rooms must be a whole number from 1 to 1000000, got 0/)
  await assert.rejects(runBroadcast({ url: 'http://x', token: 't', room: '' }), /^IoswarmError: --to must be a room name of 1 to 200 characters/)
  await assert.rejects(runBroadcast({ url: 'http://x', token: 't', room: 'a', rooms: 2 }), /^IoswarmError: --to and --rooms cannot both be given/)
  await assert.rejects(runBroadcast({ url: 'http://x', token: 't', namespaces: ['chat'] }), /^IoswarmError: --namespace must be a namespace/)
})

/**
 * Clients of `namespace`, client i in room-{i mod rooms}, each recording the broadcasts it gets.
 * @param {import('node:test').TestContext} t
 * @param {string} url
 * @param {number} clients
 * @param {number} rooms
 */
async function clientsInRooms (t, url, clients, rooms) {
  const sockets = await Promise.all(Array.from({ length: clients }, () => connect(t, url)))
  await Promise.all(sockets.map((s, i) => join(s, `room-${i % rooms}`)))
  return sockets.map((s) => record(s, 'broadcast'))
}

test('--rooms R goes round-robin and --to sends to one room, over HTTP and the admin socket; messages say their room', async (t) => {
  const server = await startTestServer(t)
  const got = await clientsInRooms(t, server.url, 3, 3)
  for (const via of /** @type {const} */ (['http', 'socket'])) {
    const robin = await runBroadcast({ url: server.url, token: 'test-token', rounds: '4x0', rooms: 3, via })
    assert.deepEqual(robin.messages.map((m) => [m.id, m.room, m.recipients, m.error]), [
      ['1.1', 'room-0', 1, null], ['1.2', 'room-1', 1, null], ['1.3', 'room-2', 1, null], ['1.4', 'room-0', 1, null]
    ], via)
    assert.equal(robin.rooms, 3)
    const one = await runBroadcast({ url: server.url, token: 'test-token', rounds: '2x0', room: 'room-2', via })
    assert.deepEqual(one.messages.map((m) => [m.id, m.room]), [['1.1', 'room-2'], ['1.2', 'room-2']])
  }
  await waitFor(() => got[2].length === 6, { message: () => `room-2's six messages (have ${got[2].length})` })
  await waitFor(() => got[0].length === 4, { message: () => `room-0's four messages (have ${got[0].length})` })
  // Messages of one round go out at once (interval 0): compared as sets.
  const seen = got.map((list) => list.map((m) => `${m.id}@${m.room}`).sort())
  assert.deepEqual(seen[0], ['1.1@room-0', '1.1@room-0', '1.4@room-0', '1.4@room-0'])
  assert.deepEqual(seen[1], ['1.2@room-1', '1.2@room-1'])
  assert.deepEqual(seen[2], ['1.1@room-2', '1.1@room-2', '1.2@room-2', '1.2@room-2', '1.3@room-2', '1.3@room-2'])
})

test('--namespace: each message into each namespace given', async (t) => {
  const server = await startTestServer(t, { namespaces: ['/', '/a', '/b'] })
  const [root, a, b] = await Promise.all(['', '/a', '/b'].map((nsp) => connect(t, `${server.url}${nsp}`)))
  const got = [root, a, b].map((s) => record(s, 'broadcast'))
  const result = await runBroadcast({ url: server.url, token: 'test-token', rounds: '1x0', namespaces: ['/a', '/b'] })
  assert.equal(result.messages[0].recipients, 2)
  assert.deepEqual(result.namespaces, ['/a', '/b'])
  const all = await runBroadcast({ url: server.url, token: 'test-token', rounds: '1x0', event: 'broadcast', size: 1 })
  assert.equal(all.messages[0].recipients, 3, 'by default, every namespace of the server')
  await waitFor(() => got.every((list) => list.some((m) => m.payload === 'i')), { message: 'the broadcast to every namespace' })
  assert.deepEqual(got.map((list) => list.length), [1, 2, 2])
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
