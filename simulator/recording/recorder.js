/**
 * Records every broadcast message as the swarm receives it: first receipt in this process,
 * each client's delay relative to it (monotonic clock), absolute latency from the message's
 * own send timestamp, and which clients that were connected when it was sent never got it
 * (those connected at its first receipt, less those that connected after its send time when it
 * carries one: recorder-connects.js). A message is closed (reported, its per-client state freed) once every expected client
 * has it and no copy arrived for `quietMs` (clients that connected meanwhile still count as
 * receivers), or `messageTimeoutMs` after its first receipt.
 *
 * Memory stays bounded on long runs and under floods: at most `maxOpen` messages are open at
 * once (an open message holds two live histograms, ≈ 70 KB each, and two bit sets); receipts of
 * further new messages are counted as untracked, not recorded. At most `keepClosed` closed
 * reports are kept whole; older ones are folded into one rollup per (event, round): counts
 * summed, histograms merged. A collector got every report whole when it closed.
 *
 * Rooms: a message that carries a target room (--room-field) is expected only by the clients
 * that joined that room and are connected when it first arrives (and were when it was sent); a copy to a client that was
 * never meant to be in the room is misdelivered (counted, not timed), a second copy to one
 * client a duplicate. A client whose join is still pending is meant to be in the room: its
 * copy is received, not misdelivered. Without rooms (--rooms, --room, a scenario's joins) the
 * room field means nothing and every message is for every connected client.
 *
 * The simulator's own floor per message: the CPU time this process used from the message's
 * first receipt until every expected client had it (or, if some never did, until its last
 * receipt), next to the wall time of the same interval. CPU close to the wall time means the
 * process was busy all along: the simulator itself could be what spread the delays.
 *
 * Its parts, each with its own test: recorder-rooms.js (who a room message is for),
 * recorder-connects.js (when each client connected), recorder-own.js (this process's own lines), recorder-message.js (a message from its first
 * receipt to its report), recorder-cpu.js (the floor's CPU reads), recorder-closed.js (closed
 * reports kept, rolled up, keys forgotten). This file is the receipt path that joins them.
 */
import { createHash } from 'node:crypto'
import { monotonicMs, wallMs } from '../../lib/measure/clock.js'
import { recordMs } from '../../lib/measure/histogram.js'
import { fieldGetter, toEpochMs } from '../../lib/input/fields.js'
import { createClosedBook } from './recorder-closed.js'
import { createConnectBook } from './recorder-connects.js'
import { createCpuReader } from './recorder-cpu.js'
import { closedReport, expectedOf, missingByClient, openMessage } from './recorder-message.js'
import { createOwnLines } from './recorder-own.js'
import { createRoomBook } from './recorder-rooms.js'
// Defaults of the recorder's memory bounds (see the module comment): options, defined in lib/.
import { RECORDER_LIMITS } from '../../lib/values/option-values.js'

export { RECORDER_LIMITS }

/**
 * Allowance on another process's send time before a client that connected after it is not
 * expected: send times stamped in whole milliseconds (Date.now()) and each process's own anchor
 * of its wall clock (lib/measure/clock.js). Besides it, the clock offset's measured uncertainty.
 */
export const SEND_SLACK_MS = 2

/**
 * @typedef {import('../../lib/schema/result-schema.js').MessageReport} MessageReport
 * @typedef {import('./recorder-message.js').OpenMessage} OpenMessage
 * @typedef {import('../../lib/schema/result-schema.js').MessageRollup} MessageRollup
 * @typedef {import('../../lib/schema/result-schema.js').RecorderInfo} RecorderInfo
 */

/**
 * A reconnect storm's gap (simulator/recording/storms.js createStormTracker): receipts of the messages
 * sent while clients were away, by the recorder's key and the send time on this process's clock.
 * @typedef {{ following: () => boolean, message: (i: number, key: string, sentAt: number | null) => void }} Gap
 */

/**
 * Where a message keeps its id, send time and target room (--id-field, --sent-at-field,
 * --room-field): getters of the event's first argument.
 * @typedef {{ id: import('../../lib/input/fields.js').FieldGetter, sentAt: import('../../lib/input/fields.js').FieldGetter, room: import('../../lib/input/fields.js').FieldGetter }} MessageFields
 */

/**
 * How long after a message's first copy in this process a client closed on purpose is still
 * excused from it: a healthy swarm's copies of one message land within a few hundred ms.
 */
export const CLOSE_GRACE_MS = 1000

/** The id ioswarm's rounds give message seq of round r: `r.seq`. */
const ROUND_ID = /^([1-9]\d{0,6})\.([1-9]\d{0,8})$/

/** ioswarm's own message shape: `{ id, batch, round, seq, sentAt, room, payload }`. */
const DEFAULT_FIELDS = Object.freeze(messageFields({}))

/**
 * Getters for a message's fields from their dot paths.
 * @param {{ idField?: string, sentAtField?: string, roomField?: string }} paths
 * @returns {MessageFields}
 */
export function messageFields ({ idField = 'id', sentAtField = 'sentAt', roomField = 'room' }) {
  return { id: fieldGetter(idField), sentAt: fieldGetter(sentAtField), room: fieldGetter(roomField) }
}

/**
 * Identity of a message: its id field when it has one, else a hash of its content, so
 * broadcasts of any server can be measured; its send time (as epoch ms) and target room
 * when it carries them.
 * @param {unknown[]} args
 * @param {MessageFields} [fields]
 * @returns {{ id: string, batch?: string, round: number | null, seq: number | null, sentAt: number | null, room: string | null }}
 */
export function identify (args, fields = DEFAULT_FIELDS) {
  const first = /** @type {Record<string, unknown> | null} */ (args[0])
  if (first !== null && typeof first === 'object' && !Buffer.isBuffer(first)) {
    const id = fields.id(first)
    const { batch, round, seq } = first
    const room = fields.room(first)
    if (typeof id === 'string' || typeof id === 'number') {
      // A message of ioswarm's rounds in the user's own shape (`--message '{"id":"{{id}}",…}'`)
      // carries no round field: its id, the string `<round>.<seq>`, says which round it belongs
      // to. A number id is the app's own (3.14 is no round 3, and 1.10 would read as 1.1).
      const numbered = typeof round === 'number' || typeof id !== 'string' ? null : ROUND_ID.exec(id)
      return {
        id: String(id),
        ...(typeof batch === 'string' ? { batch } : {}),
        round: typeof round === 'number' ? round : numbered ? Number(numbered[1]) : null,
        seq: typeof seq === 'number' ? seq : numbered ? Number(numbered[2]) : null,
        sentAt: toEpochMs(fields.sentAt(first)),
        room: typeof room === 'string' || typeof room === 'number' ? String(room) : null
      }
    }
  }
  // Bytes (a plain WebSocket binary frame) are hashed as they are, not as JSON arrays of numbers.
  const bytes = args.length === 1 && Buffer.isBuffer(first)
  const hash = createHash('sha1').update(bytes ? first : JSON.stringify(args)).digest('hex').slice(0, 16)
  return { id: `${bytes ? 'bytes' : 'content'}:${hash}`, round: null, seq: null, sentAt: null, room: null }
}

/**
 * @param {object} options
 * @param {number} options.clients how many clients the swarm has (size of the bit sets)
 * @param {number} options.messageTimeoutMs close a message this long after its first receipt
 * @param {number} [options.quietMs] close a fully delivered message after this long without a copy
 * @param {() => number} [options.clockOffsetMs] added to the local wall clock for absolute latency
 * @param {() => number} [options.clockUncertaintyMs] the bound of that offset: a client is not expected only if it surely connected after the send
 * @param {(report: MessageReport) => void} [options.onClose] called once per message when it closes
 * @param {number} [options.maxOpen] most messages open at once; receipts of more are untracked
 * @param {number} [options.keepClosed] closed reports kept whole; older ones are rolled up
 * @param {MessageFields} [options.fields] where messages keep their id, send time and room
 * @param {string} [options.namespace] the namespace this recorder's messages arrive on: in reports, and in keys when not '/'
 * @param {Gap | null} [options.gap] a reconnect storm's gap (simulator/recording/storms.js), told of every receipt by the key found here
 * @param {{ receipt: (i: number, relativeMs: number, absoluteMs: number) => void, missing: (i: number) => void } | null} [options.nodes] per-node deliveries
 *   (--node-from): each counted receipt (absoluteMs NaN when the message has no send time), each missing one at close
 * @param {import('./window-recorder.js').WindowBook | null} [options.windows] --window: told of each message when it opens and closes (never per receipt)
 * @param {number} [options.clientOffset] this process's first client over the whole run: an id --emit stamped (own-ids.js) names its sender
 */
export function createRecorder ({
  clients, messageTimeoutMs, quietMs = 1000, clockOffsetMs = () => 0, clockUncertaintyMs = () => 0, onClose = () => {},
  maxOpen = RECORDER_LIMITS.maxOpen, keepClosed = RECORDER_LIMITS.keepClosed, fields = DEFAULT_FIELDS, namespace = '/',
  gap = null, nodes = null, windows = null, clientOffset = 0
}) {
  const idOf = fields.id
  const sentAtOf = fields.sentAt
  // Content ids by args array: engines that decode a frame once hand every client the same
  // array, so a message without an id is hashed once per process, not once per copy.
  /** @type {WeakMap<unknown[], string>} */
  const contentIds = new WeakMap()
  const keyPrefix = namespace === '/' ? '' : `${namespace}#`
  const rooms = createRoomBook()
  // Closed reports kept whole, older ones rolled up, and keys forgotten (bounded).
  const done = createClosedBook({ keepClosed })
  // Ids of this process's own lines (a chat line) and their sender: no one expects its own line back.
  const own = createOwnLines({ idOf, contentIdOf: (args) => identify(args, fields).id, clientOffset, clients })
  const cpu = createCpuReader()
  const words = Math.ceil(clients / 32) || 1
  const connected = new Uint32Array(words)
  const connects = createConnectBook(clients)
  /** @type {Map<string, OpenMessage>} */
  const open = new Map()
  let lateReceipts = 0
  let untrackedReceipts = 0
  let untrackedMessages = 0
  /** @type {MessageReport | null} */
  let lastClosed = null

  /** @param {unknown[]} args */
  function contentId (args) {
    const id = identify(args, fields).id
    contentIds.set(args, id)
    return id
  }

  /** @param {OpenMessage} message */
  function close (message) {
    const report = closedReport(message)
    if (nodes !== null && report.missing > 0) missingByClient(message, nodes.missing)
    open.delete(report.key)
    if (windows !== null) windows.closed(message.window, report, message.relative, message.absolute)
    done.keep(report)
    lastClosed = report
    onClose(report)
  }

  /**
   * A message's send time on this process's wall clock, plus what it may be off by: a client
   * that connected later than this is not expected. NaN: no send time (everyone connected now is).
   * @param {number | null} sentAt its send time field (epoch ms)
   * @param {number} sender one of this process's clients (its line), or -1
   */
  function sentLocalMs (sentAt, sender) {
    let sentMs = NaN
    if (sender !== -1) {
      // This process's own line: its send time here, exactly (noted at the emit, or stamped by --emit on the reference clock).
      sentMs = own.sentMs()
      if (Number.isNaN(sentMs) && sentAt !== null) sentMs = sentAt - clockOffsetMs()
    } else if (sentAt !== null) {
      sentMs = sentAt - clockOffsetMs() + clockUncertaintyMs() + SEND_SLACK_MS
    }
    // A send time older than the message timeout is no clock to trust (a skewed sender, a
    // replay): the message is for every client connected now, as one without a send time.
    return wallMs() - sentMs > messageTimeoutMs ? NaN : sentMs
  }

  /**
   * A message without an id whose field is a string line this process sent (a chat server that
   * wraps a line, `{ username, message: "<it>" }`): that line's sender, found without --id-field.
   * Read once per message, when it opens, never per receipt.
   * @param {string} id what identify() named it
   * @param {unknown} first the event's first argument
   * @returns {number | undefined}
   */
  function wrappedSender (id, first) {
    if (!id.startsWith('content:') || first === null || typeof first !== 'object' || Array.isArray(first) || Buffer.isBuffer(first)) return undefined
    for (const value of Object.values(first)) {
      const sender = typeof value === 'string' ? own.take(value) : undefined
      if (sender !== undefined) return sender
    }
    return undefined
  }

  /**
   * @param {string} key
   * @param {string} event
   * @param {unknown[]} args
   * @param {number} now
   * @returns {OpenMessage}
   */
  function openAt (key, event, args, now) {
    const identity = identify(args, fields)
    const targeted = identity.room !== null && rooms.active()
    const target = targeted ? rooms.target(/** @type {string} */ (identity.room), connected) : null
    const sender = own.take(identity.id) ?? wrappedSender(identity.id, args[0]) ?? -1
    const sentMs = sentLocalMs(identity.sentAt, sender)
    const message = openMessage({
      key,
      event,
      namespace,
      identity,
      targeted,
      expecting: expectedOf(connected, target, sender, connects, sentMs),
      members: target === null ? null : target.members,
      sender,
      now,
      cpuMs: cpu.first(now),
      window: windows === null ? -1 : windows.opened()
    })
    open.set(key, message)
    return message
  }

  return {
    /**
     * Client `i` is connected (true) or not (false) from now on: a message sent before it
     * connected is not expected by it.
     * @param {number} i
     * @param {boolean} isConnected
     */
    setConnected (i, isConnected) {
      if (isConnected) {
        connected[i >>> 5] |= 1 << (i & 31)
        connects.connected(i, wallMs())
      } else connected[i >>> 5] &= ~(1 << (i & 31))
    },

    /**
     * The swarm closes client `i` on purpose (a ramp down, a resize, a --session-lifetime's end,
     * a login anew): a message whose first copy here came less than CLOSE_GRACE_MS before is
     * not owed to it. It had no time to receive it, and no server fault kept it away.
     * @param {number} i
     */
    closeOnPurpose (i) {
      const word = i >>> 5
      const bit = 1 << (i & 31)
      const now = monotonicMs()
      for (const message of open.values()) {
        if (!(message.expectedBits[word] & bit) || message.receivedBits[word] & bit || now - message.firstMono >= CLOSE_GRACE_MS) continue
        message.expectedBits[word] &= ~bit
        message.report.expected--
      }
    },

    /**
     * Client `i` is meant to be in `room` (from --rooms/--room, or a scenario's join): its
     * copies of the room's messages are never misdelivered.
     * @param {number} i
     * @param {string} room
     */
    assignRoom (i, room) {
      rooms.assign(i, room)
    },

    /**
     * Client `i` is in `room` now (its join was acknowledged, or sent to a server that does
     * not acknowledge) or no longer (it left, or its session ended: rooms do not outlive it).
     * @param {number} i
     * @param {string} room
     * @param {boolean} isIn
     */
    setJoined (i, room, isIn) {
      rooms.setJoined(i, room, isIn)
    },

    /**
     * Client `i` of this process emitted `args` (a line the server may relay, under any event):
     * it never expects the line back, and a copy that does come back is an echo. The line is
     * known by what identifies it on arrival: its id (stamped, or at --id-field); for a string,
     * the string itself too (a server that wraps it, `{ user, message: "<it>" }` read with
     * `--id-field message`); else the hash of its content (relayed unchanged).
     * @param {number} i
     * @param {unknown[]} args
     */
    ownLine (i, args) {
      own.note(i, args)
    },

    /**
     * Client `i` received `event` with `args`. The hot path: once per client per message.
     * @param {number} i
     * @param {string} event
     * @param {unknown[]} args
     */
    receive (i, event, args) {
      const now = monotonicMs()
      const first = /** @type {{ batch?: unknown } | null} */ (args[0])
      // The common case (a message with an id) builds its key without hashing the content.
      // `batch` (one per `ioswarm broadcast`) keeps ids of two broadcasters apart.
      const isObject = first !== null && typeof first === 'object'
      const rawId = isObject ? idOf(first) : undefined
      const batch = isObject ? first.batch : undefined
      const hasId = typeof rawId === 'string' || typeof rawId === 'number'
      const key = keyPrefix + (hasId
        ? (typeof batch === 'string' ? `${event}:${batch}/${rawId}` : `${event}:${rawId}`)
        : `${event}:${contentIds.get(args) ?? contentId(args)}`)
      // A storm's gap follows this key (no second identification); its send time on this clock.
      if (gap !== null && gap.following()) {
        const sentAt = hasId ? toEpochMs(sentAtOf(/** @type {object} */ (first))) : null
        gap.message(i, key, sentAt === null ? null : sentAt - clockOffsetMs())
      }
      let message = open.get(key)
      if (message === undefined) {
        const kept = done.closed(key)
        if (kept !== undefined) {
          kept.late++
          lateReceipts++
          return
        }
        const gone = done.forgotten(key)
        if (gone !== undefined) {
          if (gone) lateReceipts++
          else untrackedReceipts++
          return
        }
        if (open.size >= maxOpen) {
          // A flood: more messages in flight than the recorder holds. Counted, not recorded.
          untrackedMessages++
          untrackedReceipts++
          done.forget(key, false)
          return
        }
        message = openAt(key, event, args, now)
      }
      const word = i >>> 5
      const bit = 1 << (i & 31)
      if (message.receivedBits[word] & bit) {
        message.report.duplicates++
        return
      }
      message.receivedBits[word] |= bit
      // The sender's own line back (io.emit, io.to(room)): an echo, not a delivery anyone waited for.
      if (i === message.sender) {
        message.report.echo = (message.report.echo ?? 0) + 1
        return
      }
      // A copy for a room this client was never meant to be in: counted, never timed.
      if (message.members !== null && !(message.expectedBits[word] & bit) && !message.members.has(i)) {
        message.report.misdelivered = (message.report.misdelivered ?? 0) + 1
        return
      }
      message.report.received++
      message.lastMono = now
      recordMs(message.relative, now - message.firstMono)
      let latencyMs = NaN
      if (message.absolute !== null) {
        latencyMs = wallMs() + clockOffsetMs() - /** @type {number} */ (message.report.sentAt)
        if (latencyMs < 0) message.negative++
        recordMs(message.absolute, latencyMs)
      }
      if (nodes !== null) nodes.receipt(i, now - message.firstMono, latencyMs)
      if (message.expectedBits[word] & bit) message.receivedExpected++
      if (!message.drained) cpu.receipt(message, now, message.receivedExpected === message.report.expected)
    },

    /** Closes messages that are fully delivered and quiet, or timed out. Call about once a second. */
    sweep () {
      const now = monotonicMs()
      for (const message of open.values()) {
        const delivered = message.receivedExpected === message.report.expected && now - message.lastMono >= quietMs
        if (delivered || now - message.firstMono >= messageTimeoutMs) close(message)
      }
    },

    /** @returns {number} open messages that some client expected to get has not received yet */
    undelivered () {
      let n = 0
      for (const message of open.values()) if (message.receivedExpected < message.report.expected) n++
      return n
    },

    /** Closes every open message (end of run). */
    closeAll () {
      for (const message of [...open.values()]) close(message)
    },

    /** @returns {MessageReport[]} the kept messages (the newest `keepClosed`), in order of first receipt */
    reports: () => done.reports(),

    /** @returns {MessageRollup[]} messages older than the kept ones, one entry per (event, round) */
    rollups: () => done.rollups(),

    /** @returns {RecorderInfo} the bounds and what they cost */
    info () {
      return { maxOpen, keepClosed, rolledUpMessages: done.rolledUp(), untrackedMessages, untrackedReceipts, lateReceipts }
    },

    /** Live figures for progress lines. */
    stats () {
      const messages = open.size + done.size() + done.rolledUp()
      return { messages, open: open.size, lateReceipts, untrackedReceipts, lastRelativeP99Ms: lastClosed ? lastClosed.relative.p99 : null }
    }
  }
}
