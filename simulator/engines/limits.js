/**
 * The payload limit every engine applies to what a server sends one client: one WebSocket
 * message (all its fragments) or one polling response body. A leaf: the engines and the
 * summary import it.
 */

/**
 * Default limit: 1 MB, the default of socket.io's own `maxHttpBufferSize` (what a default
 * server accepts from one client). socket.io-client's default is ws's 100 MiB, fine for one
 * browser but not for a swarm: 10,000 clients each buffering a 100 MB frame is 1 TB.
 */
export const DEFAULT_MAX_PAYLOAD_BYTES = 1_000_000

/**
 * Highest limit accepted: above socket.io-client's 100 MiB, below what V8 can hold as one
 * string (≈ 512 MiB; text frames and polling bodies are decoded as strings) and ws's 32-bit
 * `maxPayload`.
 */
export const MAX_PAYLOAD_LIMIT_BYTES = 256 * 1024 * 1024

/** Lowest limit accepted: an Engine.IO open packet and a CONNECT ack must fit. */
export const MIN_PAYLOAD_LIMIT_BYTES = 1000

/** The disconnect / connect-error reason of a client closed for a payload over the limit. */
export const PAYLOAD_TOO_LARGE = 'payload over --max-payload'

/** ws's error code for a message over its `maxPayload`. */
export const WS_TOO_LARGE_CODE = 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH'
