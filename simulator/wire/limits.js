/**
 * The payload limit every engine applies to what a server sends one client: one WebSocket
 * message (all its fragments) or one polling response body; and the connection defaults every
 * engine starts from. A leaf: the engines and the summary import it.
 */
import { DEFAULT_MAX_PAYLOAD_BYTES } from '../../lib/values/option-values.js'
import { RECONNECT_DEFAULTS } from './backoff.js'

// The limits themselves are options (--max-payload): defined with the option, in lib/.
export { DEFAULT_MAX_PAYLOAD_BYTES, MAX_PAYLOAD_LIMIT_BYTES, MIN_PAYLOAD_LIMIT_BYTES } from '../../lib/values/option-values.js'

/** The lean and plain WebSocket engines' defaults: the simulator's payload limit (not socket.io-client's 100 MiB) and the Manager's 20 s timeout. */
export const CONNECTION_DEFAULTS = Object.freeze({
  maxPayloadBytes: DEFAULT_MAX_PAYLOAD_BYTES,
  connectTimeoutMs: 20000,
  heartbeatTickMs: 100
})

/** The disconnect / connect-error reason of a client closed for a payload over the limit. */
export const PAYLOAD_TOO_LARGE = 'payload over --max-payload'

/** ws's error code for a message over its `maxPayload`. */
export const WS_TOO_LARGE_CODE = 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH'

/**
 * Connections for POSTs per destination (lean polling). POSTs (pongs, CONNECT, CLOSE) take a
 * round trip, so a few hundred carry thousands of clients; more would cost a file descriptor
 * and an ephemeral port each (a connect burst would otherwise open one per client), and
 * undici's Pool scans them all for a free one on every request.
 */
export const POST_CONNECTIONS = 128

/**
 * The settings every connection of a plain-URL engine (plain WebSocket, Server-Sent Events)
 * takes the same way from its options: the client's identity, TLS, limits, timers, backoff,
 * cookies and --ramp-guard's reconnect cap, and where a client's own --query goes.
 * @param {{ reconnect?: boolean, identity?: any, tls?: any, maxPayloadBytes?: number, connectTimeoutMs?: number,
 *   heartbeatTickMs?: number, backoff?: import('./backoff.js').BackoffConfig, cookieJar?: boolean,
 *   reconnectGate?: (() => number) | null }} options
 * @param {URL} url the destination
 */
export function connectionSettings (options, url) {
  const secure = url.protocol === 'https:' || url.protocol === 'wss:'
  return {
    hostHeader: url.host,
    querySeparator: url.search === '' ? '?' : '&',
    reconnect: options.reconnect !== false,
    identity: options.identity,
    tls: secure ? options.tls ?? null : null,
    maxPayloadBytes: options.maxPayloadBytes ?? CONNECTION_DEFAULTS.maxPayloadBytes,
    connectTimeoutMs: options.connectTimeoutMs ?? CONNECTION_DEFAULTS.connectTimeoutMs,
    heartbeatTickMs: options.heartbeatTickMs ?? CONNECTION_DEFAULTS.heartbeatTickMs,
    // --reconnect-spread (the swarm's spreadBackoff) or the defaults, as for the lean engine.
    backoff: options.backoff ?? RECONNECT_DEFAULTS,
    cookieJar: options.cookieJar !== false,
    reconnectGate: options.reconnectGate ?? null,
    cookieScope: { secure, host: url.hostname.replace(/^\[(.*)\]$/, '$1'), path: url.pathname }
  }
}
