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
export const DEFAULT_PING_TIMEOUT_MS = 20000

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
 * @property {string} [payload] filler of the requested size
 */

/**
 * A filler payload of exactly `bytes` ASCII characters.
 * @param {number} bytes
 */
export function makePayload (bytes) {
  if (bytes <= 0) return ''
  const unit = 'ioswarm-payload-'
  return unit.repeat(Math.ceil(bytes / unit.length)).slice(0, bytes)
}
