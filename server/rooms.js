/**
 * What a client of an app namespace may ask the reference server, as a chat or a live feed
 * would let it: `join` and `leave` a room (payload `{ room }` or the room's name, acked
 * `{ ok: true, room }`), and the relay event (an object `{ room?, … }` emitted unchanged to
 * everyone in the room, the sender too, or to the whole namespace; acked
 * `{ ok: true, recipients }`). Bad payloads are acked `{ ok: false, error }`; nothing a
 * client sends can grow the server without bound (rooms per socket, relays per second).
 */
import { JOIN_EVENT, LEAVE_EVENT, MAX_ROOM_NAME_LENGTH, MAX_ROOMS_PER_SOCKET } from '../lib/protocol.js'
import { createBroadcastLimiter } from './broadcast/broadcast-limit.js'

/**
 * @typedef {object} RoomCounts
 * @property {number} joins joins accepted
 * @property {number} leaves leaves accepted
 * @property {number} rejected joins and leaves refused (bad room, too many rooms)
 * @typedef {object} RelayCounts
 * @property {number} received emits of the relay event
 * @property {number} relayed of them emitted to a room or the namespace
 * @property {number} rejected of them refused for a bad payload
 * @property {number} limited of them refused by the per-client rate limit
 * @typedef {{ rooms: RoomCounts, relay: RelayCounts }} ClientCounts
 * @typedef {(reply: object) => void} Ack
 */

/**
 * The room a join, leave or relay payload names, or the error to answer with.
 * @param {unknown} payload `{ room }` or the room's name
 * @returns {{ room: string } | { error: string }}
 */
export function roomOf (payload) {
  const room = typeof payload === 'string' ? payload : isObject(payload) ? payload.room : undefined
  if (typeof room === 'string' && room.length > 0 && room.length <= MAX_ROOM_NAME_LENGTH) return { room }
  return { error: `room must be a string of 1 to ${MAX_ROOM_NAME_LENGTH} characters, got ${describe(room)}` }
}

/**
 * Installs the join, leave and relay handlers on one socket of an app namespace.
 * @param {import('socket.io').Socket} socket
 * @param {{ relayEvent: string, relayRatePerSec: number, counts: ClientCounts }} options
 */
export function handleClient (socket, { relayEvent, relayRatePerSec, counts }) {
  const nsp = socket.nsp
  socket.on(JOIN_EVENT, (...args) => {
    const ack = takeAck(args)
    const target = roomOf(args[0])
    // socket.rooms holds the socket's own id room too.
    const full = 'room' in target && !socket.rooms.has(target.room) && socket.rooms.size - 1 >= MAX_ROOMS_PER_SOCKET
    if ('error' in target || full) {
      counts.rooms.rejected++
      return ack({ ok: false, error: 'error' in target ? target.error : `a client may be in at most ${MAX_ROOMS_PER_SOCKET} rooms` })
    }
    socket.join(target.room)
    counts.rooms.joins++
    ack({ ok: true, room: target.room })
  })
  socket.on(LEAVE_EVENT, (...args) => {
    const ack = takeAck(args)
    const target = roomOf(args[0])
    if ('error' in target) {
      counts.rooms.rejected++
      return ack({ ok: false, error: target.error })
    }
    socket.leave(target.room)
    counts.rooms.leaves++
    ack({ ok: true, room: target.room })
  })
  /** @type {ReturnType<typeof createBroadcastLimiter> | undefined} made at the first relay */
  let limiter
  socket.on(relayEvent, (...args) => {
    const ack = takeAck(args)
    const payload = args[0]
    counts.relay.received++
    const target = isObject(payload) && payload.room !== undefined ? roomOf(payload) : { room: null }
    if (!isObject(payload) || 'error' in target) {
      counts.relay.rejected++
      return ack({ ok: false, error: 'error' in target ? target.error : `${relayEvent} takes an object { room?, … }, got ${describe(payload)}` })
    }
    limiter ??= createBroadcastLimiter(relayRatePerSec)
    const taken = limiter.take()
    if (!taken.ok) {
      counts.relay.limited++
      const error = `relay rate limit exceeded (${relayRatePerSec}/s per client): retry after ${taken.retryAfterMs} ms`
      return ack({ ok: false, error, retryAfterMs: taken.retryAfterMs })
    }
    const recipients = target.room === null ? nsp.sockets.size : nsp.adapter.rooms.get(target.room)?.size ?? 0
    ;(target.room === null ? nsp : nsp.to(target.room)).emit(relayEvent, payload)
    counts.relay.relayed++
    ack({ ok: true, recipients })
  })
}

/**
 * Removes and returns the acknowledgement callback of an event's arguments (a no-op when
 * the client did not ask for one).
 * @param {unknown[]} args
 * @returns {Ack}
 */
function takeAck (args) {
  const last = args.at(-1)
  if (typeof last !== 'function') return () => {}
  args.pop()
  return /** @type {Ack} */ (last)
}

/**
 * @param {unknown} value
 * @returns {value is Record<string, unknown>}
 */
function isObject (value) {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && !Buffer.isBuffer(value)
}

/**
 * A short description of a bad value for an error message (never the whole of a big one).
 * @param {unknown} value
 */
function describe (value) {
  if (typeof value === 'string' && value.length > 40) return `${JSON.stringify(`${value.slice(0, 40)}…`)} (${value.length} characters)`
  if (typeof value === 'string') return JSON.stringify(value)
  if (value === null || Array.isArray(value)) return value === null ? 'null' : 'an array'
  return typeof value
}
