/**
 * The simulator's options under `--protocol websocket`: Socket.IO-only flags refused by name
 * (exit 2), the URL taken whole as the WebSocket endpoint (path and query included), and the
 * client chosen by --ws-client. Under `--protocol socketio`, the plain-WebSocket-only flags
 * are refused the same way.
 */
import { invalidOption } from '../lib/errors.js'
import { DEFAULT_WEBSOCKET_RAMP_MS, WS_CLIENT_NAMES, keyOf } from '../lib/values/option-values.js'
import { checkSseFlags } from './sse-options.js'

/**
 * Flags that mean something to Socket.IO only, with what to use instead.
 * @type {[string, string][]}
 */
const SOCKETIO_ONLY = [
  ['namespace', 'a plain WebSocket has no namespaces: the URL\'s path is the endpoint'],
  ['parser', 'plain WebSocket messages are JSON or text frames as the server sends them'],
  ['eio', 'Engine.IO versions are Socket.IO\'s'],
  ['path', 'put the WebSocket path in --url (ws://host:port/feed)'],
  ['auth', 'it is Socket.IO\'s CONNECT payload: send credentials with --header, --query or --send-on-open'],
  ['engine', 'it picks a Socket.IO client: choose the WebSocket client with --ws-client ws|builtin'],
  ['event', 'plain WebSocket messages have no event name: filter on a field with --match type=score'],
  ['reconnect-on-server-disconnect', 'plain WebSocket clients reconnect after every close (unless --no-reconnect)'],
  ['join', 'it emits an event and waits for its ack: for a subscribe, use --send-on-open'],
  ['emit', 'its events and acks are Socket.IO\'s (not yet for plain WebSocket)'],
  ['emit-rate', 'it goes with --emit'],
  ['emit-timing', 'it goes with --emit'],
  ['emitters', 'it goes with --emit'],
  ['emit-ack', 'it goes with --emit'],
  ['ack-timeout', 'acks are Socket.IO\'s'],
  ['scenario', 'its hooks drive a Socket.IO socket (not yet for plain WebSocket)']
]

/** Flags of plain WebSocket clients only. */
const WEBSOCKET_ONLY = ['send-on-open', 'subprotocol', 'match']

/**
 * @param {Record<string, unknown>} input raw input
 * @param {string} name flag name
 */
function given (input, name) {
  return input[keyOf(name)] !== undefined || input[name] !== undefined
}

/**
 * Refuses the flags of the protocol family not in use (--protocol sse: simulator/sse-options.js).
 * @param {Record<string, unknown>} input raw input
 * @param {Record<string, any>} o parsed options
 */
export function checkProtocolFlags (input, o) {
  if (o.protocol === 'sse') return checkSseFlags(input, o)
  if (o.protocol !== 'websocket') {
    const flag = WEBSOCKET_ONLY.find((name) => given(input, name))
    if (flag) throw invalidOption(`--${flag}`, 'works with --protocol websocket only (plain WebSocket servers)')
    return
  }
  for (const [name, why] of SOCKETIO_ONLY) {
    // --no-reconnect-on-server-disconnect is the default: only a true value means something.
    if (name === 'reconnect-on-server-disconnect' ? o.reconnectOnServerDisconnect === true : given(input, name)) {
      throw invalidOption(`--${name}`, `is a Socket.IO option, not for --protocol websocket: ${why}`)
    }
  }
  const polling = /** @type {{ transport: string }[]} */ (o.transport).find((m) => m.transport !== 'websocket')
  if (polling) throw invalidOption('--transport', `${polling.transport} is a Socket.IO transport: --protocol websocket speaks WebSocket only`)
}

/**
 * The WebSocket URL of a destination: ws:// or wss:// with its path and query as given.
 * @param {string} httpUrl a destination as parseHttpUrl left it (http:// or https://)
 */
export function webSocketUrl (httpUrl) {
  const url = new URL(httpUrl)
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:'
  return url.href
}

/**
 * `--ws-client` under --protocol websocket: ws (default) or builtin (either speaks ws:// and wss://).
 * @param {unknown} value
 * @returns {'ws' | 'builtin'}
 */
export function webSocketClient (value) {
  if (value === undefined || value === null) return 'ws'
  const name = String(value)
  if (!(/** @type {string[]} */ (WS_CLIENT_NAMES)).includes(name)) {
    throw invalidOption('--ws-client', `must be one of ${WS_CLIENT_NAMES.join(', ')}, got ${JSON.stringify(name)}`)
  }
  return /** @type {'ws' | 'builtin'} */ (name)
}

/**
 * What a result says of a plain WebSocket server: no handshake tells its heartbeat, so the
 * ramp is --ramp or DEFAULT_WEBSOCKET_RAMP_MS (lib/cli-options/tables/websocket.js says why).
 * @param {{ rampMs: number | null, subprotocols?: string[] }} options
 * @returns {import('../lib/schema/result-schema.js').SimResult['server']}
 */
export function webSocketServerInfo (options) {
  const offered = options.subprotocols?.length ? `, subprotocols offered: ${options.subprotocols.join(', ')}` : ''
  return {
    pingIntervalMs: null,
    pingTimeoutMs: null,
    rampMs: options.rampMs ?? DEFAULT_WEBSOCKET_RAMP_MS,
    rampSource: options.rampMs === null ? 'default for plain WebSocket (no handshake heartbeat to read)' : '--ramp',
    handshakeError: null,
    diagnosis: null,
    eio: null,
    eioSource: 'not Socket.IO',
    protocol: `plain WebSocket (RFC 6455)${offered}`
  }
}
