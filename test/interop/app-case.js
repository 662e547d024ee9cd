/**
 * One "real app" interop case against a peer server: clients with their own
 * identity from a feeder (a token by handshake auth, query or header, and some with a wrong
 * one), several namespaces on one connection, a room each joined by `--join` with an ack,
 * chat lines emitted with acks that the server relays to the room, and room broadcasts. It
 * checks, against what the server itself counts: who was refused and why, who joined, that
 * every room message reached exactly its room (nothing missing, misdelivered or duplicated),
 * and that every emit is accounted for with its ack timed.
 *
 * The swarm runs in the test's process (runSwarm, the library behind `ioswarm simulate`), so
 * the test waits on its closed messages instead of guessing a duration.
 */
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PENDING_AT_END } from '../../simulator/swarm/client-tracker.js'
import { startTestSwarm } from '../helpers/swarm.js'
import { waitFor } from '../helpers/wait.js'

/** Bounds of every wait: generous, for a loaded machine; a healthy run takes a few seconds. */
export const WAIT_MS = 30000
/**
 * The peers' ping interval: short, but with its timeout (the same) long enough that a loaded
 * machine does not drop clients.
 */
export const PING_INTERVAL_MS = 5000
/** The token the peers are started with. */
export const TOKEN = 'interop-s3cret'

/**
 * How the test makes the peer send: one message to everyone on every namespace (the fence),
 * and `count` messages to the rooms, message n to room-{(n-1) mod rooms}, on every namespace.
 * @typedef {object} Sender
 * @property {() => Promise<void>} toEveryone
 * @property {(count: number, rooms: number) => Promise<void>} toRooms
 */

/**
 * The identity of each feeder row: its token goes by one carrier; a row 'wrong' carries a
 * wrong token by every one.
 * @typedef {'auth' | 'query' | 'header' | 'wrong'} Carrier
 */

/**
 * A feeder with one row per carrier, in a temporary directory removed after the test.
 * @param {import('node:test').TestContext} t
 * @param {Carrier[]} rows
 */
export function feederFile (t, rows) {
  const dir = mkdtempSync(join(tmpdir(), 'ioswarm-interop-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  const token = (/** @type {Carrier} */ row, /** @type {Carrier} */ carrier) => (row === carrier ? TOKEN : row === 'wrong' ? 'wrong' : '')
  const path = join(dir, 'users.csv')
  writeFileSync(path, ['auth,query,header', ...rows.map((r) => `${token(r, 'auth')},${token(r, 'query')},${token(r, 'header')}`)].join('\n') + '\n')
  return path
}

/**
 * @param {import('node:test').TestContext} t
 * @param {{ url: string, count: () => Promise<import('../helpers/peers.js').PeerCount> }} peer
 * @param {Sender} send
 * @param {object} spec
 * @param {string} spec.engine
 * @param {string} spec.transport
 * @param {string[]} spec.namespaces
 * @param {Carrier[]} spec.rows feeder rows, client i gets row i mod rows
 * @param {number} [spec.clients]
 * @param {number} [spec.rooms]
 * @returns {Promise<{ result: import('../../lib/schema/result-schema.js').SimResult, roomMessages: import('../../lib/schema/result-schema.js').MessageReport[], accepted: number[], roomOf: (i: number) => string }>}
 */
export async function appCase (t, peer, send, { engine, transport, namespaces, rows, clients = 8, rooms = 2 }) {
  const accepted = Array.from({ length: clients }, (_, i) => i).filter((i) => rows[i % rows.length] !== 'wrong')
  const refusedClients = clients - accepted.length
  const roomOf = (/** @type {number} */ i) => `room-${i % rooms}`
  const roomSize = (/** @type {string} */ room) => accepted.filter((i) => roomOf(i) === room).length
  const swarm = startTestSwarm(t, {
    url: peer.url,
    engine,
    transport,
    clients,
    namespace: namespaces,
    feeder: feederFile(t, rows),
    auth: '{"token":"{{row.auth}}","user":"u{{i}}"}',
    query: 'token={{row.query}}',
    header: ['Authorization: Bearer {{row.header}}'],
    rooms,
    join: 'join {"room":"{{room}}"}',
    emit: 'chat {"room":"{{room}}","text":"line {{seq}} from {{i}}"}',
    emitRate: '2/s',
    emitAck: true,
    event: 'broadcast'
  })
  const joinedRooms = Object.fromEntries(Array.from({ length: rooms }, (_, r) => [`room-${r}`, roomSize(`room-${r}`)]))
  /** @type {import('../helpers/peers.js').PeerCount | null} */
  let count = null
  await waitFor(async () => {
    count = await peer.count()
    return namespaces.every((ns) => count?.byNamespace[ns] === accepted.length && sameRooms(count.rooms?.[ns], joinedRooms)) &&
      count.refused === refusedClients * namespaces.length
  }, {
    timeoutMs: WAIT_MS,
    intervalMs: 100,
    message: () => `${accepted.length} clients in rooms ${JSON.stringify(joinedRooms)} on ${namespaces.join(', ')} and ` +
      `${refusedClients * namespaces.length} refusals, as the server counts them; have ${JSON.stringify(count)}`
  })

  // A message to everyone, sent after every join was done on the server: once each client has
  // it, each has read its join's ack (sent before it on the same connection), so the room
  // messages after it are expected by exactly their rooms.
  const closedOf = (/** @type {(m: import('../../lib/schema/result-schema.js').MessageReport) => boolean} */ which) =>
    swarm.closed.filter((m) => m.event === 'broadcast' && which(m))
  await send.toEveryone()
  await waitFor(() => closedOf((m) => m.room === null).length === namespaces.length, {
    timeoutMs: WAIT_MS,
    message: () => `the message to everyone closed on ${namespaces.join(', ')}: ${JSON.stringify(swarm.closed.map((m) => [m.id, m.namespace, m.room]))}`
  })
  const fencedAt = Date.now()
  for (const m of closedOf((m) => m.room === null)) {
    assert.deepEqual(
      [m.expected, m.received, m.missing, m.misdelivered, m.duplicates],
      [accepted.length, accepted.length, 0, 0, 0],
      `to everyone on ${m.namespace}`
    )
  }
  const ROOM_MESSAGES = 4
  await send.toRooms(ROOM_MESSAGES, rooms)
  await waitFor(() => closedOf((m) => m.room !== null).length === ROOM_MESSAGES * namespaces.length, {
    timeoutMs: WAIT_MS,
    message: () =>
      `${ROOM_MESSAGES} room messages closed on each of ${namespaces.join(', ')}: ` +
      `${JSON.stringify(closedOf(() => true).map((m) => [m.id, m.namespace, m.room]))}; swarm ${JSON.stringify(swarm.progress)}`
  })
  const LINES = 6
  const lines = () => swarm.closed.filter((m) => m.event === 'chat' && m.firstAt > fencedAt)
  await waitFor(() => lines().length >= LINES, {
    timeoutMs: WAIT_MS,
    message: () => `${LINES} relayed chat lines closed after the fence (have ${lines().length})`
  })
  const closedLines = lines()
  const roomMessages = closedOf((m) => m.room !== null)
  const result = await swarm.stop()

  // Identity: the wrong tokens refused with the server's reason, on each namespace; the others in.
  assert.equal(result.clients.everConnected, accepted.length, `connected: ${JSON.stringify(result.clients.errors)}`)
  // Connects still unanswered when the swarm stops (a reconnect on a host at load 20+, against a
  // slow peer) are not refusals: the identity check is on the refusals.
  const { [PENDING_AT_END]: pendingAtEnd = 0, ...refusals } = result.clients.errors
  assert.deepEqual(refusals, { unauthorized: refusedClients * namespaces.length }, `${pendingAtEnd} connects pending at the end besides`)
  if (transport === 'upgrade') {
    // A refused client's transport may have upgraded before its refusal came (a race): counted too.
    const upgraded = result.clients.byTransport.upgrade?.upgraded ?? 0
    assert.ok(upgraded >= accepted.length && upgraded <= clients, `every accepted client upgraded to websocket: ${upgraded}`)
  }
  assert.deepEqual(
    result.clients.namespaces?.map((n) => [n.name, n.connects, n.refused]) ?? [],
    namespaces.length > 1 || namespaces[0] !== '/' ? namespaces.map((ns) => [ns, accepted.length, { unauthorized: refusedClients }]) : []
  )
  // Joins: one per namespace per accepted client, each acked and timed.
  const joins = result.scenario?.joins
  const joinCount = accepted.length * namespaces.length
  const joined = [joins?.sent, joins?.acked, joins?.failed, joins?.unacked, joins?.time.count]
  assert.deepEqual(joined, [joinCount, joinCount, 0, 0, joinCount], JSON.stringify(joins))
  // Room messages: exactly their room, on every namespace.
  for (const m of roomMessages) {
    const size = roomSize(/** @type {string} */ (m.room))
    assert.deepEqual([m.expected, m.received, m.missing, m.misdelivered, m.duplicates], [size, size, 0, 0, 0], `${m.id} to ${m.room} on ${m.namespace}`)
    assert.equal(m.absolute?.count, size, `${m.id}: absolute latency from its sentAt`)
  }
  assert.deepEqual(roomMessages.map((m) => m.room).sort(), namespaces.flatMap(() => Array.from({ length: ROOM_MESSAGES }, (_, n) => roomOf(n))).sort())
  // Emits: every one accounted for, each ack timed.
  const emits = result.scenario?.emits
  assert.ok(emits && emits.sent >= LINES, `emits: ${JSON.stringify(emits)}`)
  assert.equal(emits.acked + emits.timedOut + emits.failed + (emits.closed ?? 0), emits.sent, `every emit accounted for: ${JSON.stringify(emits)}`)
  assert.ok(emits.acked >= LINES, `acked: ${JSON.stringify(emits)}`)
  assert.equal(emits.ackTime?.count, emits.acked, 'each ack timed')
  // Relayed lines: measured like broadcasts, expected by the sender's room but the sender.
  for (const m of closedLines) {
    const size = roomSize(/** @type {string} */ (m.room))
    assert.equal(m.namespace, namespaces[0], 'lines are emitted on the first namespace')
    assert.deepEqual([m.expected, m.received, m.missing, m.misdelivered, m.duplicates], [size - 1, size - 1, 0, 0, 0], `line ${m.id} to ${m.room}`)
    assert.equal(m.absolute?.count, m.received, `line ${m.id}: absolute latency from the emitter's sentAt`)
  }
  return { result, roomMessages, accepted, roomOf }
}

/**
 * @param {Record<string, number> | undefined} a
 * @param {Record<string, number>} b
 */
function sameRooms (a, b) {
  return a !== undefined && Object.keys(a).length === Object.keys(b).length && Object.entries(b).every(([room, size]) => a[room] === size)
}

/** Both engines, websocket and polling, and upgrade (polling first, as browsers do). */
export const APP_MATRIX = ['sio', 'lean'].flatMap((engine) => ['websocket', 'polling', 'upgrade'].map((transport) => ({ engine, transport })))
