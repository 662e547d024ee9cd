/**
 * The namespaces of a lean client, multiplexed on its one Engine.IO session as
 * socket.io-client's Manager does (--namespace /a --namespace /b): each is connected,
 * refused or disconnected by the server on its own. And the client's own emits: EVENT
 * packets, with an ack id when an acknowledgement is awaited (bounded by a timeout; a session
 * that ends fails what it still waits for).
 *
 * With one namespace, a refusal or a server disconnect ends the session (socket.io-client's
 * socket gives up, and its Manager closes with its last socket); with several, the session
 * ends when no namespace is left.
 */
import { encodeConnect, encodeEvent, encodeEventText } from './codec.js'
import { STATE } from './client.js'
import { ackTimeout } from '../../../lib/errors.js'
import { performance } from 'node:perf_hooks'

/** @typedef {import('./client.js').Client} Client */
/** @typedef {import('./session.js').LeanSession} LeanSession */
/**
 * @typedef {object} AckWaiter
 * @property {number} ns the namespace the emit went to
 * @property {(error: Error | null, args: unknown[]) => void} callback
 * @property {number} deadline performance.now() ms after which it times out
 * @property {boolean} wantsArgs its caller reads the ack's arguments
 */

/** The arguments an ack is answered with when its emit's caller does not read them (not decoded). */
const UNREAD_ARGS = /** @type {unknown[]} */ (/** @type {unknown} */ (Object.freeze([])))

/**
 * A namespace refused the client (CONNECT_ERROR, its middleware's `next(err)`).
 * @param {LeanSession} s
 * @param {Client} c
 * @param {number} ns
 * @param {string} message
 */
export function onNamespaceRefused (s, c, ns, message) {
  if (s.nsps.length === 1) return s.end(c, message, false, true, s.nsps[0])
  c.refused |= 1 << ns
  s.events.connectError(c.i, message, s.nsps[ns])
  if (c.up === 0 && c.refused === s.allNamespaces) s.stop(c, true)
}

/**
 * The server disconnected the client from a namespace on purpose (DISCONNECT).
 * @param {LeanSession} s
 * @param {Client} c
 * @param {number} ns
 */
export function onServerDisconnect (s, c, ns) {
  // socket.io-client stays away after this; apps that call connect() again: --reconnect-on-server-disconnect.
  if (s.nsps.length === 1) return s.end(c, 'io server disconnect', s.config.reconnectOnServerDisconnect, true)
  if (!(c.up & (1 << ns))) return
  c.up &= ~(1 << ns)
  failAcks(c, ns, 'io server disconnect')
  s.events.disconnected(c.i, 'io server disconnect', s.nsps[ns])
  if (s.config.reconnectOnServerDisconnect) s.send(c, encodeConnect(s.nsps[ns], c.auth ?? s.config.auth))
  else if (c.up === 0) s.stop(c, true)
}

/**
 * Emits `event` with `args` on client i's namespace; with `callback`, asks for an ack and
 * calls it with the ack's arguments, or with an error after `timeoutMs` or when the session ends.
 * @param {LeanSession} s
 * @param {number} i
 * @param {string} nsp
 * @param {string} event
 * @param {unknown[]} args
 * @param {((error: Error | null, args: unknown[]) => void) | undefined} callback
 * @param {number} timeoutMs
 * @param {boolean} [wantsArgs] false: the callback does not read the ack's arguments (they are not decoded)
 * @param {string | null} [encoded] `args` as JSON without the brackets, made once by the caller (a constant
 *   template's): sent as it is (null: `args` are encoded here)
 * @returns {boolean} false when the client is not connected to that namespace (nothing sent)
 */
export function emit (s, i, nsp, event, args, callback, timeoutMs, wantsArgs = true, encoded = null) {
  // JSON only: socket.io sends binary arguments as attachments, which this client does not write.
  // A loop, not args.some(closure): this runs on every emit. Encoded ones are JSON already.
  if (encoded === null) {
    for (let a = 0; a < args.length; a++) if (isBinary(args[a])) throw new TypeError('binary emit arguments need --engine sio (the lean engine emits JSON)')
  }
  const c = s.clients[i]
  const ns = s.nspIndex.get(nsp)
  if (c === undefined || ns === undefined || !(c.up & (1 << ns)) || c.state !== STATE.CONNECTED) return false
  let ackId = -1
  if (callback !== undefined) {
    ackId = c.nextAck++
    // No timer per emit: the session's ack sweeper holds the client's earliest deadline (expireAcks).
    const deadline = performance.now() + timeoutMs
    if (c.ackId === -1) {
      c.ackId = ackId
      c.ackNs = ns
      c.ackCallback = callback
      c.ackDeadline = deadline
      c.ackWantsArgs = wantsArgs
    } else (c.acks ??= new Map()).set(ackId, { ns, callback, deadline, wantsArgs })
    s.ackSweeper.lower(i, deadline)
  }
  s.send(c, encoded === null ? encodeEvent(nsp, event, args, ackId) : encodeEventText(nsp, event, encoded, ackId))
  return true
}

/**
 * @param {unknown} value
 * @returns {boolean} a Buffer, an ArrayBuffer or a view of one (a binary argument)
 */
function isBinary (value) {
  return value !== null && typeof value === 'object' && (value instanceof ArrayBuffer || ArrayBuffer.isView(value))
}

/**
 * Whether the emit an ack answers reads the ack's arguments.
 * @param {Client} c
 * @param {number} ackId
 * @returns {boolean | undefined} undefined: no emit of this client waits for it (timed out already, or not ours)
 */
export function ackWantsArgs (c, ackId) {
  if (ackId !== -1 && ackId === c.ackId) return c.ackWantsArgs
  return c.acks?.get(ackId)?.wantsArgs
}

/**
 * An ACK packet: the answer to one of this client's emits.
 * @param {Client} c
 * @param {number} ackId
 * @param {string | null} json the ack's arguments, a JSON array; null: not decoded (its emit does not read them)
 * @returns {boolean} false when malformed
 */
export function onAck (c, ackId, json) {
  const inline = ackId !== -1 && ackId === c.ackId
  const waiter = inline ? undefined : c.acks?.get(ackId)
  if (!inline && waiter === undefined) return true // timed out already, or not ours: socket.io-client ignores it too
  let args = UNREAD_ARGS
  if (json !== null) {
    try {
      args = JSON.parse(json)
    } catch {
      return false
    }
    if (!Array.isArray(args)) return false
  }
  const callback = inline ? takeFirstAck(c) : /** @type {AckWaiter} */ (waiter).callback
  if (!inline) c.acks?.delete(ackId)
  callback(null, args)
  return true
}

/**
 * Empties the client's first ack slot.
 * @param {Client} c
 * @returns {(error: Error | null, args: unknown[]) => void} the callback it held
 */
function takeFirstAck (c) {
  const callback = /** @type {(error: Error | null, args: unknown[]) => void} */ (c.ackCallback)
  c.ackId = -1
  c.ackCallback = null
  return callback
}

/**
 * Fails the emits still waiting for an ack (all, or those of one namespace): the session or
 * the namespace is gone. Called back later, never inside the transport's own handler.
 * @param {Client} c
 * @param {number} ns -1 = every namespace
 * @param {string} reason
 */
export function failAcks (c, ns, reason) {
  /** @type {((error: Error | null, args: unknown[]) => void)[]} */
  const failed = []
  if (c.ackId !== -1 && (ns === -1 || c.ackNs === ns)) failed.push(takeFirstAck(c))
  const acks = c.acks
  if (acks !== null) {
    for (const [id, waiter] of acks) {
      if (ns !== -1 && waiter.ns !== ns) continue
      acks.delete(id)
      failed.push(waiter.callback)
    }
  }
  if (failed.length > 0) queueMicrotask(() => { for (const callback of failed) callback(new Error(reason), []) })
}

/**
 * The ack sweeper's deadline for client c has come: fails its emits whose ack is overdue
 * (an ack timeout), and sets its deadline again to the earliest still pending. The deadline
 * is a lower bound, left as it is when acks come (no work per ack): a client is looked at
 * about once per ack timeout while it emits.
 * @param {LeanSession} s
 * @param {Client | undefined} c
 */
export function expireAcks (s, c) {
  if (c === undefined) return
  const now = performance.now()
  let next = Infinity
  /** @type {((error: Error | null, args: unknown[]) => void)[]} */
  const expired = []
  if (c.ackId !== -1) {
    if (c.ackDeadline <= now) expired.push(takeFirstAck(c))
    else next = c.ackDeadline
  }
  const acks = c.acks
  if (acks !== null) {
    for (const [id, waiter] of acks) {
      if (waiter.deadline <= now) {
        acks.delete(id)
        expired.push(waiter.callback)
      } else if (waiter.deadline < next) next = waiter.deadline
    }
  }
  if (next !== Infinity) s.ackSweeper.lower(c.i, next)
  for (const callback of expired) callback(ackTimeout(), [])
}
