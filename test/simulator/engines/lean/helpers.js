/**
 * Test helpers for the lean engine: a real socket.io server on port 0, an events recorder
 * implementing SwarmEvents, and a bounded wait for a condition.
 */
import { createServer } from 'node:http'
import { once } from 'node:events'
import { Server } from 'socket.io'

/**
 * Waits until `predicate()` is true, checking every 10 ms, failing after `timeoutMs`.
 * @param {() => boolean} predicate
 * @param {string} what said in the failure
 * @param {number} [timeoutMs]
 */
export async function waitFor (predicate, what, timeoutMs = 5000) {
  const deadline = Date.now() + timeoutMs
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

/**
 * A socket.io server on an ephemeral loopback port, closed after the test.
 * @param {import('node:test').TestContext} t
 * @param {Partial<import('socket.io').ServerOptions>} [options]
 * @param {number} [port] 0 for any free port
 */
export async function startServer (t, options = {}, port = 0) {
  const httpServer = createServer()
  const io = new Server(httpServer, options)
  httpServer.listen(port, '127.0.0.1')
  await once(httpServer, 'listening')
  const address = /** @type {import('node:net').AddressInfo} */ (httpServer.address())
  let closed = false
  const close = async () => {
    if (closed) return
    closed = true
    await new Promise((resolve) => io.close(() => resolve(undefined)))
    httpServer.closeAllConnections()
  }
  t.after(close)
  return { io, httpServer, port: address.port, url: `http://127.0.0.1:${address.port}`, close }
}

/**
 * Engine options for tests: a real pool against `url`.
 * @param {string} url
 * @param {Partial<import('../../../../simulator/engines/lean/config.js').LeanOptions>} [extra]
 * @returns {import('../../../../simulator/engines/lean/config.js').LeanOptions}
 */
export function engineOptions (url, extra = {}) {
  return { url, path: '/socket.io/', namespace: '/', events: ['broadcast'], keepAlive: true, reconnect: true, ...extra }
}

/** SwarmEvents that record everything, with counts per client. */
export function recorder () {
  const log = {
    attempts: 0,
    reconnected: 0,
    /** @type {Map<number, string>} */
    connected: new Map(),
    /** @type {number[]} */
    upgraded: [],
    /** @type {{ i: number, reason: string }[]} */
    disconnects: [],
    /** @type {{ i: number, reason: string }[]} */
    errors: [],
    /** @type {{ i: number, event: string, args: unknown[] }[]} */
    messages: [],
    /** @type {{ i: number, event: string }[]} */
    unmeasured: [],
    connectedCount: 0
  }
  /** @type {import('../../../../simulator/engines/types.js').SwarmEvents} */
  const events = {
    attempt: () => { log.attempts++ },
    connected: (i, wire) => { log.connected.set(i, wire); log.connectedCount++ },
    upgraded: (i) => { log.upgraded.push(i) },
    message: (i, event, args) => { log.messages.push({ i, event, args }) },
    unmeasured: (i, event) => { log.unmeasured.push({ i, event }) },
    disconnected: (i, reason) => { log.disconnects.push({ i, reason }); log.connected.delete(i) },
    connectError: (i, reason) => { log.errors.push({ i, reason }) },
    reconnected: () => { log.reconnected++ }
  }
  return { log, events }
}

/**
 * Messages received by client i.
 * @param {ReturnType<typeof recorder>['log']} log
 * @param {number} i
 */
export function messagesOf (log, i) {
  return log.messages.filter((m) => m.i === i)
}

/**
 * The transport name of each server-side socket of a namespace.
 * @param {import('socket.io').Namespace} nsp
 */
export function serverTransports (nsp) {
  return [...nsp.sockets.values()].map((s) => s.conn.transport.name)
}

/**
 * Every wire variant the lean engine has: both WebSocket clients, and polling on both HTTP clients.
 * @type {{ label: string, transport: 'websocket' | 'polling', extra: { wsClient?: 'builtin' | 'ws', httpClient?: 'builtin' | 'undici' } }[]}
 */
export const VARIANTS = [
  { label: 'websocket (built-in client)', transport: 'websocket', extra: { wsClient: 'builtin' } },
  { label: 'websocket (ws client)', transport: 'websocket', extra: { wsClient: 'ws' } },
  { label: 'polling', transport: 'polling', extra: {} },
  { label: 'polling (undici)', transport: 'polling', extra: { httpClient: 'undici' } }
]
