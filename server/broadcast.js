/**
 * Turns a broadcast request into messages emitted to every client: validates the request,
 * stamps each message with its send time, and paces `count` messages `intervalMs` apart.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import { wallMs } from '../lib/clock.js'
import { invalidOption } from '../lib/errors.js'
import { makePayload } from '../lib/protocol.js'

/** Events socket.io reserves; emitting them would confuse every client. */
const RESERVED_EVENTS = new Set(['connect', 'connect_error', 'disconnect', 'disconnecting', 'newListener', 'removeListener'])
export const MAX_PAYLOAD_BYTES = 10 * 1024 * 1024

/**
 * @typedef {object} BroadcastRequest
 * @property {string} [event]
 * @property {unknown} [payload] sent as is (instead of a filler of `size` bytes)
 * @property {number} [size] filler payload size in bytes
 * @property {number} [count] messages to send (default 1)
 * @property {number} [intervalMs] between them (default 0)
 * @property {number} [round]
 * @property {number} [seq] of the first message
 * @property {string} [id] for a single message
 * @property {string} [batch] the broadcaster invocation: carried in each message so that ids of two invocations never collide
 * @property {unknown} [message] emitted exactly as given instead of {id, round, seq, sentAt, payload}
 *   (the broadcaster's --message template, already rendered); the answer still carries an id
 */

/**
 * A broadcast function for the server's HTTP endpoint and admin namespace.
 * @param {{ io: import('socket.io').Server, defaultEvent: string, recipients?: (local: number) => number }} options
 *   recipients: clients the emit reaches, from this process's count (a cluster adds the other workers')
 * @returns {(body: unknown) => Promise<{ id: string, event: string, sentAt: number, recipients: number }[]>}
 */
export function createBroadcastHandler ({ io, defaultEvent, recipients = (local) => local }) {
  let counter = 0
  return async function broadcast (body) {
    const request = validate(body, defaultEvent)
    const payload = request.payload !== undefined ? request.payload : makePayload(request.size)
    const sent = []
    for (let k = 0; k < request.count; k++) {
      if (k > 0 && request.intervalMs > 0) await sleep(request.intervalMs)
      counter++
      const seq = request.seq + k
      const id = request.id ?? (request.round > 0 ? `${request.round}.${seq}` : `s${counter}`)
      const sentAt = wallMs()
      io.emit(request.event, request.message !== undefined ? request.message : { id, ...(request.batch === undefined ? {} : { batch: request.batch }), round: request.round, seq, sentAt, payload })
      sent.push({ id, event: request.event, sentAt, recipients: recipients(io.of('/').sockets.size) })
    }
    return sent
  }
}

/**
 * @param {unknown} body
 * @param {string} defaultEvent
 */
function validate (body, defaultEvent) {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw invalidOption('body', 'must be a JSON object')
  const b = /** @type {BroadcastRequest} */ (body)
  const event = b.event ?? defaultEvent
  if (typeof event !== 'string' || event.length === 0 || event.length > 200 || RESERVED_EVENTS.has(event)) {
    throw invalidOption('event', `must be a non-reserved event name of 1 to 200 characters, got ${JSON.stringify(event)}`)
  }
  const int = (/** @type {unknown} */ v, /** @type {string} */ name, /** @type {number} */ min, /** @type {number} */ max, /** @type {number} */ fallback) => {
    if (v === undefined) return fallback
    if (!Number.isSafeInteger(v) || /** @type {number} */ (v) < min || /** @type {number} */ (v) > max) throw invalidOption(name, `must be a whole number from ${min} to ${max}, got ${JSON.stringify(v)}`)
    return /** @type {number} */ (v)
  }
  const count = int(b.count, 'count', 1, 10000, 1)
  if (b.batch !== undefined && (typeof b.batch !== 'string' || !/^[A-Za-z0-9_-]{1,40}$/.test(b.batch))) {
    throw invalidOption('batch', 'must be 1 to 40 letters, digits, - or _')
  }
  if (b.id !== undefined && (typeof b.id !== 'string' || b.id.length > 200 || count !== 1)) {
    throw invalidOption('id', 'must be a string of at most 200 characters, and only with count 1')
  }
  if (b.message !== undefined && (count !== 1 || b.payload !== undefined)) {
    throw invalidOption('message', 'is sent as is: only with count 1 and without payload')
  }
  return {
    event,
    message: b.message,
    payload: b.payload,
    size: int(b.size, 'size', 0, MAX_PAYLOAD_BYTES, 0),
    count,
    intervalMs: int(b.intervalMs, 'intervalMs', 0, 60000, 0),
    round: int(b.round, 'round', 0, 1e6, 0),
    seq: int(b.seq, 'seq', 1, 1e9, 1),
    id: b.id,
    batch: b.batch
  }
}
