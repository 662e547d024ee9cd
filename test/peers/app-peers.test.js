/**
 * The chat-like test peers (test/peers/node/app-server.js on socket.io 4, and
 * test/peers/python/app_server.py on python-socketio 5) do what the simulator's tests rely
 * on: auth by each carrier, rooms by join with ack, room broadcasts and relays to exactly the
 * room; and the node peer's faults and ledger are exact.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { startAppPeer, startPythonAppPeer } from '../helpers/peers.js'
import { connect, join, record, refusal } from '../helpers/sio-client.js'
import { waitFor } from '../helpers/wait.js'

const TOKEN = 'peer-s3cret'

/**
 * @param {any[][]} got
 * @param {string} id
 */
function everyoneHas (got, id) {
  return waitFor(() => got.every((list) => list.some((m) => m.id === id)), {
    message: () => `${id} at every client: ${JSON.stringify(got.map((l) => l.map((m) => m.id)))}`
  })
}

/** @type {[string, (t: import('node:test').TestContext, o: import('../helpers/peers.js').AppPeerOptions) => Promise<import('../helpers/peers.js').AppPeer | null>][]} */
const PEERS = [['socket.io 4', startAppPeer], ['python-socketio 5', startPythonAppPeer]]

for (const [name, start] of PEERS) {
  test(`${name} app peer: auth by auth, query or Bearer header; missing or wrong refused and counted`, async (t) => {
    const peer = await start(t, { authToken: TOKEN, namespaces: ['/', '/chat'] })
    if (!peer) return
    for (const transports of [['websocket'], ['polling']]) {
      await connect(t, peer.url, { auth: { token: TOKEN }, transports })
      await connect(t, `${peer.url}/chat`, { query: { token: TOKEN }, transports })
      await connect(t, peer.url, { extraHeaders: { authorization: `Bearer ${TOKEN}` }, transports })
    }
    assert.equal(await refusal(t, peer.url), 'unauthorized')
    assert.equal(await refusal(t, `${peer.url}/chat`, { auth: { token: 'wrong' } }), 'unauthorized')
    const count = await peer.appCount()
    assert.deepEqual([count.connected, count.byNamespace, count.refused], [6, { '/': 4, '/chat': 2 }, 2])
  })

  test(`${name} app peer: join with ack, room broadcasts round-robin and relays reach exactly the room`, async (t) => {
    const peer = await start(t, { namespaces: ['/'] })
    if (!peer) return
    const sockets = await Promise.all(Array.from({ length: 4 }, () => connect(t, peer.url)))
    for (const [i, s] of sockets.entries()) {
      assert.deepEqual(await join(s, i % 2 ? { room: `room-${i % 2}` } : `room-${i % 2}`), { ok: true, room: `room-${i % 2}` })
    }
    assert.equal((await join(sockets[0], '')).ok, false)
    const got = sockets.map((s) => record(s, 'broadcast'))
    const { messages } = await peer.broadcast({ rooms: 2, round: 1, count: 3, batch: 'b' })
    assert.deepEqual(messages.map((m) => [m.id, m.room, m.recipients]), [['1.1', 'room-0', 2], ['1.2', 'room-1', 2], ['1.3', 'room-0', 2]])
    await peer.broadcast({ round: 9, seq: 1 })
    await everyoneHas(got, '9.1')
    got.forEach((list, i) => assert.deepEqual(list.map((m) => m.id), i % 2 ? ['1.2', '9.1'] : ['1.1', '1.3', '9.1'], `client ${i}`))
    assert.deepEqual(Object.keys(got[1][0]), ['id', 'batch', 'round', 'seq', 'sentAt', 'room', 'payload'])

    const lines = sockets.map((s) => record(s, 'chat'))
    assert.deepEqual(await sockets[1].timeout(5000).emitWithAck('chat', { room: 'room-1', id: 'c1' }), { ok: true, recipients: 2 })
    assert.deepEqual(await sockets[1].timeout(5000).emitWithAck('chat', { id: 'c-all' }), { ok: true, recipients: 4 })
    await everyoneHas(lines, 'c-all')
    lines.forEach((list, i) => assert.deepEqual(list.map((m) => m.id), i % 2 ? ['c1', 'c-all'] : ['c-all'], `client ${i}`))
  })
}

test('the faulty socket.io 4 peer: every Nth room message to the next room, every Mth twice, and a ledger that says exactly who got what', async (t) => {
  const peer = await startAppPeer(t, { faults: { wrongRoomEvery: 3, duplicateEvery: 4 } })
  // Six clients named by their handshake, u0 … u5, client i in room-{i mod 3}.
  const sockets = await Promise.all(Array.from({ length: 6 }, (_, i) => connect(t, peer.url, { auth: { user: `u${i}` } })))
  await Promise.all(sockets.map((s, i) => join(s, `room-${i % 3}`)))
  const got = sockets.map((s) => record(s, 'broadcast'))
  await peer.broadcast({ rooms: 3, round: 1, count: 12 })
  await peer.broadcast({ id: 'fence', round: 2 })
  await everyoneHas(got, '2.1')

  const { messages, totals } = await peer.ledger()
  assert.equal(messages.length, 12)
  // Message n (n = seq here) is meant for room-{(n-1) mod 3}; n = 3, 6, 9, 12 go to the next
  // room (two clients each get what they should not, two miss it); n = 4, 8, 12 go twice.
  assert.deepEqual(totals, { messages: 12, misdelivered: 8, duplicated: 4, missing: 8 })
  for (const [k, m] of messages.entries()) {
    const n = k + 1
    const meant = (n - 1) % 3
    assert.equal(m.room, `room-${meant}`)
    assert.equal(m.sentTo, n % 3 === 0 ? `room-${(meant + 1) % 3}` : m.room, `message ${n}`)
    assert.equal(m.copies, n % 4 === 0 ? 2 : 1, `message ${n}`)
    // The ledger agrees with what the clients saw, copy for copy.
    const seen = sockets.map((_, i) => ({ user: `u${i}`, copies: got[i].filter((x) => x.id === m.id).length })).filter((r) => r.copies > 0)
    assert.deepEqual(m.recipients.map((/** @type {any} */ r) => ({ user: r.user, copies: r.copies })).sort(byUser), seen, `message ${m.id}`)
    assert.ok(m.recipients.every((/** @type {any} */ r) => r.inRoom === (Number(r.user.slice(1)) % 3 === meant)))
  }

  // Relays count apart: the third relay is the first to go astray.
  const lines = sockets.map((s) => record(s, 'chat'))
  for (const id of ['r1', 'r2', 'r3']) assert.equal((await sockets[0].timeout(5000).emitWithAck('chat', { room: 'room-0', id })).ok, true)
  const relays = (await peer.ledger()).messages.filter((/** @type {any} */ m) => m.kind === 'relay')
  assert.deepEqual(relays.map((/** @type {any} */ m) => [m.id, m.sentTo]), [['r1', 'room-0'], ['r2', 'room-0'], ['r3', 'room-1']])
  await waitFor(() => lines[1].some((m) => m.id === 'r3'), { message: 'the misdelivered relay at u1' })
})

/**
 * @param {{ user: string }} a
 * @param {{ user: string }} b
 */
function byUser (a, b) {
  return a.user.localeCompare(b.user)
}
