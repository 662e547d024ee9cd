/**
 * The simulator's options under `--protocol sse` (Server-Sent Events subscribers): the
 * Socket.IO-only and plain-WebSocket-only flags refused by name (exit 2), the URL taken whole
 * as the stream (path and query included), and what a result says of such a server.
 */
import { invalidOption } from '../lib/errors.js'
import { DEFAULT_WEBSOCKET_RAMP_MS, keyOf } from '../lib/values/option-values.js'

/** The event type of an event stream that names none (EventSource's default): what --event measures unless given. */
export const SSE_EVENT = 'message'

/**
 * Flags that mean nothing to an event stream, with what to use instead.
 * @type {[string, string][]}
 */
const NOT_FOR_SSE = [
  ['namespace', 'an event stream has no namespaces: the URL\'s path is the stream'],
  ['parser', 'an event\'s data is JSON or text as the server sends it'],
  ['eio', 'Engine.IO versions are Socket.IO\'s'],
  ['path', 'put the stream\'s path in --url (http://host:port/events)'],
  ['auth', 'it is Socket.IO\'s CONNECT payload: send credentials with --header, --query or --cookie'],
  ['engine', 'it picks a Socket.IO client: the SSE subscriber is Node\'s own HTTP client'],
  ['ws-client', 'an event stream is an HTTP answer, not a WebSocket'],
  ['http-client', 'every stream is read on the built-in client (https:// too)'],
  ['reconnect-on-server-disconnect', 'subscribers reconnect after every end of the stream, as EventSource does (unless --no-reconnect)'],
  ['join', 'a subscriber only listens: choose its channel in --url or --query'],
  ['emit', 'a subscriber only listens: publish with --publish \'POST URL\''],
  ['emit-rate', 'it goes with --emit'],
  ['emit-timing', 'it goes with --emit'],
  ['emitters', 'it goes with --emit'],
  ['emit-ack', 'it goes with --emit'],
  ['ack-timeout', 'acks are Socket.IO\'s'],
  ['scenario', 'its hooks drive a Socket.IO socket'],
  ['send-on-open', 'a subscriber sends nothing: put the subscription in --url or --query'],
  ['subprotocol', 'WebSocket subprotocols are offered in a WebSocket handshake'],
  ['match', 'an event stream names its events: measure them with --event NAME'],
  ['source-address', 'not yet for --protocol sse']
]

/**
 * Refuses the flags that mean nothing to an event stream.
 * @param {Record<string, unknown>} input raw input
 * @param {Record<string, any>} o parsed options
 */
export function checkSseFlags (input, o) {
  for (const [name, why] of NOT_FOR_SSE) {
    const key = keyOf(name)
    const given = name === 'reconnect-on-server-disconnect'
      ? o.reconnectOnServerDisconnect === true
      : name === 'source-address' ? o.sourceAddresses.length > 0 : input[key] !== undefined || input[name] !== undefined
    if (given) throw invalidOption(`--${name}`, `is not for --protocol sse (Server-Sent Events): ${why}`)
  }
  const other = /** @type {{ transport: string }[]} */ (o.transport).find((m) => m.transport !== 'websocket')
  if (other) throw invalidOption('--transport', `${other.transport} is a Socket.IO transport: --protocol sse reads one event stream per client`)
}

/**
 * The events a subscriber measures: --event when given (an event stream's `event:` names,
 * * for every one), else EventSource's default type.
 * @param {Record<string, unknown>} input raw input
 * @param {string[]} events parsed --event
 */
export function sseEvents (input, events) {
  return input.event === undefined ? [SSE_EVENT] : events
}

/**
 * What a result says of an event stream server: no handshake tells a heartbeat, so the ramp
 * is --ramp or the plain WebSocket default.
 * @param {{ rampMs: number | null }} options
 * @returns {import('../lib/schema/result-schema.js').SimResult['server']}
 */
export function sseServerInfo (options) {
  return {
    pingIntervalMs: null,
    pingTimeoutMs: null,
    rampMs: options.rampMs ?? DEFAULT_WEBSOCKET_RAMP_MS,
    rampSource: options.rampMs === null ? 'default for Server-Sent Events (no handshake heartbeat to read)' : '--ramp',
    handshakeError: null,
    diagnosis: null,
    eio: null,
    eioSource: 'not Socket.IO',
    protocol: 'Server-Sent Events (text/event-stream)'
  }
}
