/**
 * Test helpers for the lean engine: engine options and an events recorder implementing
 * SwarmEvents (the server is test/helpers/io-server.js, the wait test/helpers/wait.js).
 */
import { performance } from 'node:perf_hooks'

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
    connectedCount: 0,
    /** When each attempt started (performance.now()), per client. @type {{ i: number, ms: number }[]} */
    attemptsAt: [],
    /** When each disconnect was told (performance.now()), in the order of `disconnects`. @type {number[]} */
    disconnectedAt: []
  }
  /** @type {import('../../../../simulator/engines/types.js').SwarmEvents} */
  const events = {
    attempt: (i) => { log.attempts++; log.attemptsAt.push({ i, ms: performance.now() }) },
    connected: (i, wire) => { log.connected.set(i, wire); log.connectedCount++ },
    upgraded: (i) => { log.upgraded.push(i) },
    message: (i, event, args) => { log.messages.push({ i, event, args }) },
    unmeasured: (i, event) => { log.unmeasured.push({ i, event }) },
    disconnected: (i, reason) => { log.disconnects.push({ i, reason }); log.disconnectedAt.push(performance.now()); log.connected.delete(i) },
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
