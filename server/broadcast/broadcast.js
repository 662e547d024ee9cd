/**
 * Turns a broadcast request into messages emitted to every client of a namespace, or to one
 * room of it: validates the request, stamps each message with its send time, and paces
 * `count` messages `intervalMs` apart.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import { wallMs } from '../../lib/measure/clock.js'
import { invalidOption } from '../../lib/errors.js'
import { RESERVED_EVENTS } from '../../lib/cli-options/tables/serve.js'
import { MAX_BROADCAST_ROOMS } from '../../lib/cli-options/tables/broadcast.js'
import { MAX_ROOM_NAME_LENGTH, broadcastMessage, broadcastRoom, makePayload } from '../../lib/protocol.js'

const MAX_PAYLOAD_BYTES = 10 * 1024 * 1024

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
 * @property {string} [room] every message to this room (io.of(namespace).to(room))
 * @property {number} [rooms] message `seq` to room-{(seq-1) mod rooms}: round-robin
 * @property {string | string[]} [namespace] emit into each (default: every namespace the server serves)
 * @property {unknown} [message] emitted exactly as given instead of {id, round, seq, sentAt, room, payload}
 *   (the broadcaster's --message template, already rendered); the answer still carries an id
 */

/**
 * @typedef {{ namespace: string, room: string | null, local: number }} BroadcastTarget
 *   local: this process's sockets the emit reaches in that namespace (or room)
 * @typedef {{ id: string, event: string, sentAt: number, recipients: number, room?: string }} BroadcastAnswer
 */

/**
 * A broadcast function for the server's HTTP endpoint and admin namespace.
 * @param {object} options
 * @param {import('socket.io').Server} options.io
 * @param {string} options.defaultEvent
 * @param {string[]} [options.namespaces] the app namespaces (default ['/'])
 * @param {(targets: BroadcastTarget[]) => number} [options.recipients] clients one message reaches,
 *   from this process's counts (a cluster adds the other workers'); called once per message
 * @returns {(body: unknown) => Promise<BroadcastAnswer[]>}
 */
export function createBroadcastHandler ({ io, defaultEvent, namespaces = ['/'], recipients = localRecipients }) {
  let counter = 0
  return async function broadcast (body) {
    const request = validate(body, defaultEvent, namespaces)
    const payload = request.payload !== undefined ? request.payload : makePayload(request.size)
    /** @type {BroadcastAnswer[]} */
    const sent = []
    for (let k = 0; k < request.count; k++) {
      if (k > 0 && request.intervalMs > 0) await sleep(request.intervalMs)
      counter++
      const seq = request.seq + k
      const id = request.id ?? (request.round > 0 ? `${request.round}.${seq}` : `s${counter}`)
      const room = broadcastRoom({ ...request, seq })
      const sentAt = wallMs()
      const message = request.message !== undefined
        ? request.message
        : broadcastMessage({ id, batch: request.batch, round: request.round, seq, sentAt, room, payload })
      const targets = request.namespaces.map((name) => {
        const nsp = io.of(name)
        ;(room === null ? nsp : nsp.to(room)).emit(request.event, message)
        return { namespace: name, room, local: room === null ? nsp.sockets.size : nsp.adapter.rooms.get(room)?.size ?? 0 }
      })
      sent.push({ id, event: request.event, sentAt, recipients: recipients(targets), ...(room === null ? {} : { room }) })
    }
    return sent
  }
}

/**
 * The clients one message reached in this process: the sum over its targets.
 * @param {BroadcastTarget[]} targets
 */
export function localRecipients (targets) {
  return targets.reduce((total, t) => total + t.local, 0)
}

/**
 * @param {unknown} body
 * @param {string} defaultEvent
 * @param {string[]} namespaces
 */
function validate (body, defaultEvent, namespaces) {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw invalidOption('body', 'must be a JSON object')
  const b = /** @type {BroadcastRequest} */ (body)
  const event = b.event ?? defaultEvent
  if (typeof event !== 'string' || event.length === 0 || event.length > 200 || RESERVED_EVENTS.includes(event)) {
    throw invalidOption('event', `must be a non-reserved event name of 1 to 200 characters, got ${JSON.stringify(event)}`)
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
    namespaces: validNamespaces(b.namespace, namespaces),
    ...validRooms(b),
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

/**
 * @param {unknown} v
 * @param {string} name
 * @param {number} min
 * @param {number} max
 * @param {number} fallback when v is undefined
 */
function int (v, name, min, max, fallback) {
  if (v === undefined) return fallback
  const n = /** @type {number} */ (v)
  if (!Number.isSafeInteger(v) || n < min || n > max) throw invalidOption(name, `must be a whole number from ${min} to ${max}, got ${JSON.stringify(v)}`)
  return /** @type {number} */ (v)
}

/**
 * Where a request's messages go: one room, round-robin over `rooms` rooms, or everyone.
 * @param {BroadcastRequest} b
 * @returns {{ room: string | null, rooms: number | null }}
 */
function validRooms (b) {
  if (b.room !== undefined && (typeof b.room !== 'string' || b.room.length === 0 || b.room.length > MAX_ROOM_NAME_LENGTH)) {
    throw invalidOption('room', `must be a room name of 1 to ${MAX_ROOM_NAME_LENGTH} characters, got ${JSON.stringify(b.room)}`)
  }
  const rooms = b.rooms === undefined ? null : int(b.rooms, 'rooms', 1, MAX_BROADCAST_ROOMS, 1)
  if (rooms !== null && b.room !== undefined) {
    throw invalidOption('rooms', 'and room cannot both be given: rooms is a count of rooms to go round-robin over, room one room')
  }
  return { room: b.room ?? null, rooms }
}

/**
 * The namespaces a request asks for: some of the server's, each once; all of them by default.
 * @param {unknown} value
 * @param {string[]} served
 * @returns {string[]}
 */
function validNamespaces (value, served) {
  if (value === undefined) return served
  const asked = [value].flat()
  const bad = asked.find((name) => typeof name !== 'string' || !served.includes(name))
  if (asked.length === 0 || bad !== undefined) {
    const got = JSON.stringify(asked.length === 0 ? value : bad)
    throw invalidOption('namespace', `must be one or a list of the namespaces this server serves (${served.join(', ')}), got ${got}`)
  }
  return [...new Set(/** @type {string[]} */ (asked))]
}
