import { test } from 'node:test'
import assert from 'node:assert/strict'
import { ADMIN_NAMESPACE } from '../../../lib/protocol.js'
import { startTestServer } from '../../helpers/swarm.js'
import { connect, connectMultiplexed, join, record } from '../../helpers/sio-client.js'
import { waitFor } from '../../helpers/wait.js'

const AUTH = { 'content-type': 'application/json', authorization: 'Bearer test-token' }

/**
 * @param {{ url: string }} server
 * @param {unknown} body
 */
async function post (server, body) {
  const res = await fetch(`${server.url}/broadcast`, { method: 'POST', headers: AUTH, body: JSON.stringify(body) })
  return { status: res.status, body: /** @type {any} */ (await res.json()) }
}

/**
 * Four clients, client i in room-{i mod 2}, each recording the broadcasts it gets.
 * @param {import('node:test').TestContext} t
 * @param {{ url: string }} server
 */
async function fourInTwoRooms (t, server) {
  const sockets = await Promise.all(Array.from({ length: 4 }, () => connect(t, server.url)))
  await Promise.all(sockets.map((s, i) => join(s, `room-${i % 2}`)))
  return sockets.map((s) => record(s, 'broadcast'))
}

/**
 * A broadcast to everyone after the ones under test: once a client has it, it has every
 * earlier message it was sent (one connection delivers in order).
 * @param {{ url: string }} server
 * @param {any[][]} got
 */
async function fence (server, got) {
  await post(server, { id: 'fence' })
  await everyoneHas(got, 'fence')
}

/**
 * @param {any[][]} got
 * @param {string} id
 */
function everyoneHas (got, id) {
  return waitFor(() => got.every((list) => list.some((m) => m.id === id)), {
    message: () => `message ${id} at every client (${JSON.stringify(got.map((l) => l.map((m) => m.id)))})`
  })
}

test('a broadcast to a room reaches exactly the room\'s clients, carrying its room; recipients count the room', async (t) => {
  const server = await startTestServer(t)
  const got = await fourInTwoRooms(t, server)
  const { status, body } = await post(server, { room: 'room-1', round: 1, seq: 1, size: 3 })
  assert.equal(status, 200)
  assert.equal(body.messages[0].recipients, 2)
  assert.equal(body.messages[0].room, 'room-1')
  await fence(server, got)
  const ids = got.map((list) => list.map((m) => m.id))
  assert.deepEqual(ids, [['fence'], ['1.1', 'fence'], ['fence'], ['1.1', 'fence']])
  assert.deepEqual(Object.keys(got[1][0]), ['id', 'round', 'seq', 'sentAt', 'room', 'payload'])
  assert.equal(got[1][0].room, 'room-1')
  assert.equal('room' in got[0].at(-1), false, 'a broadcast to everyone has no room')
})

test('rooms: R sends message seq to room-{(seq-1) mod R}, round-robin', async (t) => {
  const server = await startTestServer(t)
  const got = await fourInTwoRooms(t, server)
  const { body } = await post(server, { rooms: 2, round: 3, seq: 1, count: 5, batch: 'b1' })
  assert.deepEqual(body.messages.map((/** @type {any} */ m) => [m.id, m.room, m.recipients]), [
    ['3.1', 'room-0', 2], ['3.2', 'room-1', 2], ['3.3', 'room-0', 2], ['3.4', 'room-1', 2], ['3.5', 'room-0', 2]
  ])
  // Also when a broadcaster sends one message per request, numbered by seq.
  await post(server, { rooms: 2, round: 4, seq: 2, batch: 'b1' })
  await fence(server, got)
  const ids = got.map((list) => list.map((m) => m.id))
  assert.deepEqual(ids[0], ['3.1', '3.3', '3.5', 'fence'])
  assert.deepEqual(ids[2], ['3.1', '3.3', '3.5', 'fence'])
  assert.deepEqual(ids[1], ['3.2', '3.4', '4.2', 'fence'])
  assert.deepEqual(ids[3], ['3.2', '3.4', '4.2', 'fence'])
  assert.ok(got[1].every((m) => m.id === 'fence' || (m.room === 'room-1' && m.batch === 'b1')))
})

test('namespace: one, a list, or by default every app namespace; a room within each', async (t) => {
  const server = await startTestServer(t, { namespaces: ['/', '/a', '/b'] })
  const [root, a, b] = await connectMultiplexed(t, server.url, ['/', '/a', '/b'])
  const lone = await connect(t, `${server.url}/a`)
  await Promise.all([join(a, 'x'), join(b, 'x')])
  const got = [root, a, b, lone].map((s) => record(s, 'broadcast'))
  assert.equal((await post(server, { id: 'to-a', namespace: '/a' })).body.messages[0].recipients, 2)
  assert.equal((await post(server, { id: 'to-ab', namespace: ['/a', '/b', '/a'] })).body.messages[0].recipients, 3)
  assert.equal((await post(server, { id: 'room-x', room: 'x', namespace: ['/a', '/b'] })).body.messages[0].recipients, 2)
  assert.equal((await post(server, { id: 'all' })).body.messages[0].recipients, 4)
  await everyoneHas(got, 'all')
  assert.deepEqual(got.map((list) => list.map((m) => m.id)), [
    ['all'],
    ['to-a', 'to-ab', 'room-x', 'all'],
    ['to-ab', 'room-x', 'all'],
    ['to-a', 'to-ab', 'all']
  ])
})

test('the admin namespace takes room, rooms and namespace as POST /broadcast does', async (t) => {
  const server = await startTestServer(t)
  const got = await fourInTwoRooms(t, server)
  const admin = await connect(t, `${server.url}${ADMIN_NAMESPACE}`, { auth: { token: 'test-token' } })
  const reply = await admin.timeout(5000).emitWithAck('broadcast', { rooms: 2, round: 1, seq: 2 })
  assert.equal(reply.ok, true)
  assert.deepEqual([reply.messages[0].room, reply.messages[0].recipients], ['room-1', 2])
  const refused = await admin.timeout(5000).emitWithAck('broadcast', { room: '' })
  assert.equal(refused.ok, false)
  assert.match(refused.error, /^room must be a room name/)
  await fence(server, got)
  assert.deepEqual(got.map((list) => list.map((m) => m.id)), [['fence'], ['1.2', 'fence'], ['fence'], ['1.2', 'fence']])
})

test('a --message template (message) goes to the room as given', async (t) => {
  const server = await startTestServer(t)
  const got = await fourInTwoRooms(t, server)
  await post(server, { room: 'room-0', message: { ref: 'm-1', where: 'room-0' } })
  await fence(server, got)
  assert.deepEqual(got[0][0], { ref: 'm-1', where: 'room-0' })
  assert.deepEqual(got[1].map((m) => m.id), ['fence'])
})

test('bad room, rooms and namespace fields answer 400 naming the field', async (t) => {
  const server = await startTestServer(t, { namespaces: ['/', '/a'] })
  /** @type {[unknown, RegExp][]} */
  const cases = [
    [{ room: '' }, /^room must be a room name of 1 to 200 characters/],
    [{ room: 7 }, /^room must be a room name/],
    [{ room: 'r'.repeat(201) }, /^room must be a room name/],
    [{ rooms: 0 }, /^rooms must be a whole number from 1 to 1000000, got 0/],
    [{ rooms: 1.5 }, /^rooms must be a whole number/],
    [{ rooms: '2' }, /^rooms must be a whole number/],
    [{ rooms: 2, room: 'x' }, /^rooms and room cannot both be given/],
    [{ namespace: '/nope' }, /^namespace must be one or a list of the namespaces this server serves \(\/, \/a\), got "\/nope"/],
    [{ namespace: [] }, /^namespace must be one or a list/],
    [{ namespace: ['/a', 3] }, /^namespace must be one or a list.*got 3/]
  ]
  for (const [body, message] of cases) {
    const res = await post(server, body)
    assert.equal(res.status, 400, JSON.stringify(body))
    assert.match(res.body.error, message, JSON.stringify(body))
  }
})
