/**
 * The scenario features (rooms, emits, templates, feeders) against a chat-like app on socket.io 4.8 written apart from ioswarm
 * (test/peers/node/app-server.js): identity per client, two namespaces on one connection,
 * rooms joined with acks, room broadcasts, emits with acks relayed to the room; both engines,
 * every transport. And the same app committing delivery faults on purpose, caught with the
 * exact counts of its own ledger.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { startAppPeer } from '../helpers/peers.js'
import { startTestSwarm } from '../helpers/swarm.js'
import { waitFor } from '../helpers/wait.js'
import { APP_MATRIX, PING_INTERVAL_MS, TOKEN, WAIT_MS, appCase } from './app-case.js'
import { chatScenario } from './chat-scenario.js'

test('socket.io 4 app: identity, two namespaces, rooms, joins, emits with acks', { concurrency: 3 }, async (t) => {
  await Promise.all(APP_MATRIX.map((c) => t.test(`${c.engine} ${c.transport}`, async (t) => {
    const peer = await startAppPeer(t, { authToken: TOKEN, namespaces: ['/', '/chat'], pingIntervalMs: PING_INTERVAL_MS })
    const send = {
      toEveryone: async () => { await peer.broadcast({ round: 9, seq: 1 }) },
      toRooms: async (/** @type {number} */ count, /** @type {number} */ rooms) => { await peer.broadcast({ rooms, count, round: 1 }) }
    }
    const { roomMessages, roomOf } = await appCase(t, peer, send, { ...c, namespaces: ['/', '/chat'], rows: ['auth', 'query', 'header', 'wrong'] })
    // The server's ledger names each recipient by the user its handshake carried: every client
    // brought its own identity, and each room message went to exactly its room's users.
    const { messages } = await peer.ledger()
    for (const m of roomMessages) {
      const entry = messages.find((/** @type {any} */ e) => e.kind === 'broadcast' && e.id === m.id && e.namespace === m.namespace)
      const users = entry.recipients.map((/** @type {any} */ r) => r.user).sort()
      const expected = [0, 1, 2, 4, 5, 6].filter((i) => roomOf(i) === m.room).map((i) => `u${i}`).sort()
      assert.deepEqual(users, expected, `${m.id} on ${m.namespace}`)
    }
  })))
})

/**
 * Fetches the peer's ledger.
 * @param {import('../helpers/peers.js').AppPeer} peer
 * @returns {Promise<{ messages: LedgerEntry[], totals: Record<string, number> }>}
 * @typedef {{ kind: 'broadcast' | 'relay', id: string, namespace: string, room: string, sentTo: string, copies: number, recipients: { user: string, inRoom: boolean, copies: number }[], missing: { user: string }[] }} LedgerEntry
 */
const ledgerOf = (peer) => peer.ledger()

/**
 * What the simulator must have counted for a message the ledger recorded. The definitions
 * differ where a message is both sent to the wrong room and twice: the ledger counts such a
 * socket misdelivered only; the simulator counts it misdelivered (once per client) and its
 * second copy a duplicate (a second copy to any one client). And a relayed line is never
 * expected by its sender (servers differ on echoing it): the ledger's missing sender is not
 * the simulator's, and its copy back, when the server sends one, is not counted received.
 * @param {LedgerEntry} entry
 */
function expectedCounts (entry) {
  const sender = entry.kind === 'relay' ? `u${/^e(\d+)\./.exec(entry.id)?.[1]}` : null
  const inRoom = entry.recipients.filter((r) => r.inRoom)
  return {
    received: inRoom.filter((r) => r.user !== sender).length,
    missing: entry.missing.filter((m) => m.user !== sender).length,
    misdelivered: entry.recipients.length - inRoom.length,
    duplicates: entry.recipients.reduce((sum, r) => sum + r.copies - 1, 0)
  }
}

test('the faulty socket.io 4 app (every 3rd room message to the next room, ' +
  'every 4th twice) is caught with its ledger\'s exact counts', { concurrency: 3 }, async (t) => {
  await Promise.all(APP_MATRIX.filter((c) => c.transport !== 'upgrade').map((c) => t.test(`${c.engine} ${c.transport}`, async (t) => {
    const peer = await startAppPeer(t, { faults: { wrongRoomEvery: 3, duplicateEvery: 4 }, pingIntervalMs: PING_INTERVAL_MS })
    // 9 clients named u0 … u8 by their handshake, 3 rooms of 3; every client says a line twice a second.
    const swarm = startTestSwarm(t, {
      ...c,
      url: peer.url,
      clients: 9,
      auth: '{"user":"u{{i}}"}',
      rooms: 3,
      join: 'join {"room":"{{room}}"}',
      emit: 'chat {"room":"{{room}}"}',
      emitRate: '2/s',
      emitAck: true,
      event: 'broadcast'
    })
    await waitFor(async () => JSON.stringify(Object.values((await peer.appCount()).rooms['/'])) === '[3,3,3]', {
      timeoutMs: WAIT_MS,
      intervalMs: 100,
      message: '3 clients in each of 3 rooms, as the server counts them'
    })
    // A fence: once every client has this message to everyone, each has read its join's ack.
    const fence = async (/** @type {number} */ round) => {
      await peer.broadcast({ round, seq: 1 })
      await waitFor(() => swarm.closed.some((m) => m.id === `${round}.1`), { timeoutMs: WAIT_MS, message: `fence ${round}.1 closed` })
    }
    await fence(8)
    const before = (await ledgerOf(peer)).messages.length
    await peer.broadcast({ rooms: 3, count: 12, round: 1 })
    await waitFor(async () => (await ledgerOf(peer)).messages.filter((e) => e.kind === 'relay').length >= before + 8, {
      timeoutMs: WAIT_MS,
      message: 'eight lines relayed after the fence'
    })
    // Everything the server sent before this second fence reached the clients before it.
    const ledger = await ledgerOf(peer)
    await fence(9)
    const result = await swarm.stop()

    const compared = ledger.messages.slice(before)
    const broadcasts = compared.filter((e) => e.kind === 'broadcast')
    assert.equal(broadcasts.length, 12)
    const relays = compared.filter((e) => e.kind === 'relay')
    assert.ok(relays.length >= 8, `relays compared: ${relays.length}`)
    assert.ok(relays.some((e) => e.sentTo !== e.room) && relays.some((e) => e.copies === 2), 'relays the peer sent astray and twice are among them')
    const seen = new Map(result.messages.map((m) => [`${m.event}:${m.id}`, m]))
    for (const entry of compared) {
      const m = seen.get(`${entry.kind === 'relay' ? 'chat' : 'broadcast'}:${entry.id}`)
      assert.ok(m, `${entry.kind} ${entry.id} measured`)
      assert.deepEqual(
        { received: m.received, missing: m.missing, misdelivered: m.misdelivered, duplicates: m.duplicates },
        expectedCounts(entry),
        `${entry.kind} ${entry.id} to ${entry.room}, sent to ${entry.sentTo} ×${entry.copies}`
      )
    }
    // The room broadcasts in numbers (9 clients, 3 rooms of 3): messages 3, 6, 9, 12 went to
    // the next room (3 misdelivered, 3 missing each), 4, 8, 12 twice (3 duplicates each; 12's
    // are the copies at the wrong room's clients, which the ledger counts as misdelivered only).
    const sum = (/** @type {'missing' | 'misdelivered' | 'duplicates'} */ key) =>
      broadcasts.reduce((s, e) => s + (seen.get(`broadcast:${e.id}`)?.[key] ?? 0), 0)
    assert.deepEqual(
      { misdelivered: sum('misdelivered'), duplicates: sum('duplicates'), missing: sum('missing') },
      { misdelivered: 12, duplicates: 9, missing: 12 }
    )
    const ledgerTotals = { misdelivered: 0, duplicated: 0, missing: 0 }
    for (const e of broadcasts) {
      ledgerTotals.misdelivered += e.recipients.filter((r) => !r.inRoom).length
      ledgerTotals.duplicated += e.recipients.filter((r) => r.inRoom && r.copies > 1).length
      ledgerTotals.missing += e.missing.length
    }
    assert.deepEqual(ledgerTotals, { misdelivered: 12, duplicated: 6, missing: 12 })
  })))
})

test('examples/chat.js against the socket.io 4 app (the real binary; the token from the environment)', { concurrency: 3 }, async (t) => {
  await Promise.all(APP_MATRIX.filter((c) => c.transport !== 'upgrade').map((c) => t.test(`${c.engine} ${c.transport}`, async (t) => {
    const peer = await startAppPeer(t, { authToken: TOKEN, pingIntervalMs: PING_INTERVAL_MS })
    const result = await chatScenario(t, peer, c)
    // Every line the server relayed, as its ledger saw it: each reached exactly the clients
    // the ledger says (those in the room when it was relayed), nothing missing, misdelivered or twice.
    const relays = (await ledgerOf(peer)).messages.filter((e) => e.kind === 'relay')
    const lines = new Map(result.messages.filter((m) => m.event === 'chat').map((m) => [m.id, m]))
    assert.equal(lines.size, relays.length, 'every relayed line measured')
    for (const entry of relays) {
      const m = lines.get(entry.id)
      // chat.js's ids are "<i>.<n>", its clients u<i>: the sender's own copy back is not counted.
      const sender = `u${entry.id.split('.')[0]}`
      const others = entry.recipients.filter((r) => r.user !== sender).length
      assert.deepEqual([m?.received, m?.missing, m?.misdelivered, m?.duplicates], [others, 0, 0, 0], `line ${entry.id} to ${entry.room}`)
    }
  })))
})
