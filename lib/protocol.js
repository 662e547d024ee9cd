/**
 * Wire-level constants and message shapes shared by the server, the simulator and the
 * broadcaster. A leaf: imports nothing.
 *
 * Engine.IO v4: https://github.com/socketio/engine.io-protocol
 * Socket.IO v5: https://github.com/socketio/socket.io-protocol
 */

/** The event the reference server broadcasts on and the simulator listens to by default. */
export const DEFAULT_EVENT = 'broadcast'
/** socket.io's default path. */
export const DEFAULT_PATH = '/socket.io/'
/** The reference server's admin namespace (broadcast by emit, token in the handshake auth). */
export const ADMIN_NAMESPACE = '/ioswarm-admin'
/** Engine.IO default heartbeat when the server does not say (socket.io 4 default). */
export const DEFAULT_PING_INTERVAL_MS = 25000

/** Engine.IO v4 packet types (the first character of a text packet). */
export const EIO_PACKET = Object.freeze({
  OPEN: '0', CLOSE: '1', PING: '2', PONG: '3', MESSAGE: '4', UPGRADE: '5', NOOP: '6'
})
/** Separator of packets in one polling payload (Engine.IO v4). */
export const EIO_RECORD_SEPARATOR = '\x1e'

/**
 * The message the reference server broadcasts.
 * @typedef {object} BroadcastMessage
 * @property {string} id unique within a run (`<round>.<seq>` from the broadcaster)
 * @property {number} round 1-based round number, 0 when sent outside rounds
 * @property {number} seq 1-based sequence within the round
 * @property {number} sentAt wall-clock epoch ms (fractional) when the server emitted it
 * @property {string} [room] the room it was sent to; absent when sent to everyone
 * @property {string} [payload] filler of the requested size
 */

/** The reference server's room events: `join` / `leave` with `{ room }` or a room name. */
export const JOIN_EVENT = 'join'
export const LEAVE_EVENT = 'leave'
/** The event the reference server relays from a client to a room (`serve --relay-event`). */
export const DEFAULT_RELAY_EVENT = 'chat'
/** Longest room name the reference server accepts. */
export const MAX_ROOM_NAME_LENGTH = 200
/** Most rooms one socket may be in on the reference server (its own id room not counted). */
export const MAX_ROOMS_PER_SOCKET = 1000

/**
 * The name of room k of `--rooms R`: room-0 … room-{R-1}.
 * @param {number} k
 */
export function roomName (k) {
  return `room-${k}`
}

/**
 * The room of message `seq` when a broadcast goes round-robin over `rooms` rooms.
 * @param {number} seq 1-based
 * @param {number} rooms
 */
function roundRobinRoom (seq, rooms) {
  return roomName((seq - 1) % rooms)
}

/**
 * A filler payload of exactly `bytes` ASCII characters.
 * @param {number} bytes
 */
export function makePayload (bytes) {
  if (bytes <= 0) return ''
  const unit = 'ioswarm-payload-'
  return unit.repeat(Math.ceil(bytes / unit.length)).slice(0, bytes)
}

/**
 * The message a broadcast emits unless it is given one (a --message template, a request's
 * `message`): the same from the server's endpoint and from the Redis emitter.
 * @param {{ id: string, batch?: string, round: number, seq: number, sentAt: number, room: string | null, payload: unknown }} m
 */
export function broadcastMessage ({ id, batch, round, seq, sentAt, room, payload }) {
  return { id, ...(batch ? { batch } : {}), round, seq, sentAt, ...(room === null ? {} : { room }), payload }
}

/**
 * The room message `seq` of a broadcast request goes to: its `room`, else round-robin over
 * `rooms` rooms; null = everyone.
 * @param {{ room?: string | null, rooms?: number | null, seq: number }} request
 * @returns {string | null}
 */
export function broadcastRoom ({ room, rooms, seq }) {
  return room ?? (rooms ? roundRobinRoom(seq, rooms) : null)
}
