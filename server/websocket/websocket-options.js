/**
 * `ioswarm serve --protocol websocket`: the serve options that belong to the socket.io server
 * only are refused by name (exit 2) when given, rather than silently ignored.
 */
import { invalidOption } from '../../lib/errors.js'
import { keyOf } from '../../lib/cli-options/index.js'

/** @type {[string, string][]} */
const SOCKETIO_ONLY = [
  ['cluster', 'the plain WebSocket server runs in one process'],
  ['adapter', 'adapters relay socket.io broadcasts between processes'],
  ['parser', 'it sends JSON text frames'],
  ['path', 'it accepts WebSocket connections on any path'],
  ['ping-timeout', 'it drops a client that did not answer the previous ping, one --ping-interval later'],
  ['shutdown', 'it closes every client with 1001 (going away) on SIGTERM'],
  ['namespace', 'plain WebSocket has no namespaces'],
  ['relay-event', 'it relays nothing clients send'],
  ['relay-rate', 'it relays nothing clients send']
]

/**
 * @param {Record<string, unknown>} input raw serve input
 * @param {Record<string, any>} o parsed serve options
 */
export function checkServeProtocol (input, o) {
  if (o.protocol === 'sse') {
    throw invalidOption('--protocol',
      'sse is a subscriber protocol of simulate and run (--target with --publish): there is no SSE reference server; serve socketio or websocket')
  }
  if (o.protocol !== 'websocket') return
  for (const [name, why] of SOCKETIO_ONLY) {
    if (input[keyOf(name)] !== undefined || input[name] !== undefined) {
      throw invalidOption(`--${name}`, `is for the socket.io reference server, not --protocol websocket: ${why}`)
    }
  }
}
