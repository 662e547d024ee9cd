import { test } from 'node:test'
import assert from 'node:assert/strict'
import { startTestServer } from '../helpers/swarm.js'
import { connect, join, record, waitForCounts } from '../helpers/sio-client.js'
import { waitFor } from '../helpers/wait.js'
import { MAX_ROOMS_PER_SOCKET } from '../../lib/protocol.js'
import { roomOf } from '../../server/rooms.js'

/** @param {{ url: string }} server */
async function appCounts (server) {
  return /** @type {any} */ (await (await fetch(`${server.url}/stats`)).json()).app
}

/**
 * Three clients: a and b in room-1, c in room-2.
 * @param {import('node:test').TestContext} t
 * @param {{ url: string }} server
 */
async function threeInTwoRooms (t, server) {
  const [a, b, c] = await Promise.all([connect(t, server.url), connect(t, server.url), connect(t, server.url)])
  await Promise.all([join(a, 'room-1'), join(b, { room: 'room-1' }), join(c, 'room-2')])
  return { a, b, c }
}

test('join and leave: { room } or a name, acked { ok: true, room }; bad payloads acked { ok: false, error }', async (t) => {
  const server = await startTestServer(t)
  const socket = await connect(t, server.url)
  assert.deepEqual(await join(socket, { room: 'match-7' }), { ok: true, room: 'match-7' })
  assert.deepEqual(await join(socket, 'map-3'), { ok: true, room: 'map-3' })
  assert.deepEqual(await socket.timeout(5000).emitWithAck('leave', 'map-3'), { ok: true, room: 'map-3' })
  assert.deepEqual(await socket.timeout(5000).emitWithAck('leave', { room: 'never-joined' }), { ok: true, room: 'never-joined' })
  for (const bad of [{}, '', 'x'.repeat(201), 7, null, [1], { room: 5 }]) {
    const reply = await join(socket, bad)
    assert.equal(reply.ok, false, JSON.stringify(bad))
    assert.match(reply.error, /room must be a string of 1 to 200 characters/)
  }
  const leaveBad = await socket.timeout(5000).emitWithAck('leave', { room: '' })
  assert.equal(leaveBad.ok, false)
  // Without an ack, a join still takes effect.
  socket.emit('join', 'quiet-room')
  await waitFor(async () => (await server.io.of('/').in('quiet-room').fetchSockets()).length === 1, { message: 'the ack-less join' })
  const [member] = await server.io.of('/').fetchSockets()
  assert.deepEqual([...member.rooms].filter((r) => r !== member.id).sort(), ['match-7', 'quiet-room'])
  assert.deepEqual((await appCounts(server)).rooms, { joins: 3, leaves: 2, rejected: 8 })
})

test(`a client may be in at most ${MAX_ROOMS_PER_SOCKET} rooms; joining one it is in again is fine`, async (t) => {
  const server = await startTestServer(t)
  const socket = await connect(t, server.url)
  const replies = await Promise.all(Array.from({ length: MAX_ROOMS_PER_SOCKET }, (_, i) => join(socket, `r${i}`)))
  assert.ok(replies.every((r) => r.ok))
  const over = await join(socket, 'one-too-many')
  assert.equal(over.ok, false)
  assert.match(over.error, /at most 1000 rooms/)
  assert.deepEqual(await join(socket, 'r5'), { ok: true, room: 'r5' })
  await socket.timeout(5000).emitWithAck('leave', 'r0')
  assert.deepEqual(await join(socket, 'now-there-is-space'), { ok: true, room: 'now-there-is-space' })
})

test('relay: a chat line to a room reaches exactly its members, the sender too, unchanged, acked with the recipients', async (t) => {
  const server = await startTestServer(t)
  const { a, b, c } = await threeInTwoRooms(t, server)
  const got = { a: record(a, 'chat'), b: record(b, 'chat'), c: record(c, 'chat') }
  const line = { room: 'room-1', id: 'a-1', sentAt: Date.now(), text: 'hello' }
  assert.deepEqual(await a.timeout(5000).emitWithAck('chat', line), { ok: true, recipients: 2 })
  // Without a room: the whole namespace. c's copy of it comes after any copy of the first.
  const fence = { id: 'a-2', text: 'to everyone' }
  assert.deepEqual(await a.timeout(5000).emitWithAck('chat', fence), { ok: true, recipients: 3 })
  await waitForCounts([[got.a, 2], [got.b, 2], [got.c, 1]], 'the relayed lines')
  assert.deepEqual(got.a, [line, fence])
  assert.deepEqual(got.b, [line, fence])
  assert.deepEqual(got.c, [fence], 'room-2 did not get room-1\'s line')
  // Bad payloads are refused, not relayed.
  for (const bad of ['just text', [1, 2], { room: '' }, { room: 42 }]) {
    const reply = await c.timeout(5000).emitWithAck('chat', bad)
    assert.equal(reply.ok, false, JSON.stringify(bad))
  }
  c.emit('chat', { room: 'room-2', id: 'c-1' }) // no ack asked: relayed all the same
  await waitForCounts([[got.c, 2]], 'c\'s own line')
  assert.deepEqual((await appCounts(server)).relay, { received: 7, relayed: 3, rejected: 4, limited: 0 })
})

test('relay: --relay-event names the event; other events are not relayed', async (t) => {
  const server = await startTestServer(t, { relayEvent: 'vote' })
  const { a, b } = await threeInTwoRooms(t, server)
  const votes = record(b, 'vote')
  const chats = record(b, 'chat')
  a.emit('chat', { room: 'room-1', id: 'ignored' })
  assert.deepEqual(await a.timeout(5000).emitWithAck('vote', { room: 'room-1', id: 'v1' }), { ok: true, recipients: 2 })
  await waitForCounts([[votes, 1]], 'the vote')
  assert.deepEqual(chats, [])
})

test('relay: --relay-rate bounds each client; over it the emit is acked { ok: false, retryAfterMs } and counted', async (t) => {
  const server = await startTestServer(t, { relayRate: '1/m' })
  const { a, b } = await threeInTwoRooms(t, server)
  const first = await a.timeout(5000).emitWithAck('chat', { room: 'room-1' })
  assert.equal(first.ok, true)
  const second = await a.timeout(5000).emitWithAck('chat', { room: 'room-1' })
  assert.equal(second.ok, false)
  assert.match(second.error, /relay rate limit exceeded/)
  assert.ok(second.retryAfterMs > 1000)
  assert.equal((await b.timeout(5000).emitWithAck('chat', { room: 'room-1' })).ok, true, 'the limit is per client')
  assert.deepEqual((await appCounts(server)).relay, { received: 3, relayed: 2, rejected: 0, limited: 1 })
})

test('roomOf reads { room } or a name, and describes a bad one briefly', () => {
  assert.deepEqual(roomOf('r'), { room: 'r' })
  assert.deepEqual(roomOf({ room: 'r', other: 1 }), { room: 'r' })
  assert.match(/** @type {{ error: string }} */ (roomOf('y'.repeat(500))).error, /got "y{40}…" \(500 characters\)/)
  assert.match(/** @type {{ error: string }} */ (roomOf(undefined)).error, /got undefined/)
})
