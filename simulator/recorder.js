/**
 * Records every broadcast message as the swarm receives it: first receipt in this process,
 * each client's delay relative to it (monotonic clock), absolute latency from the message's
 * own send timestamp, and which clients that were connected at the first receipt never got
 * it. A message is closed (reported, its per-client state freed) once every expected client
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
 * that joined that room and are connected when it first arrives; a copy to a client that was
 * never meant to be in the room is misdelivered (counted, not timed), a second copy to one
 * client a duplicate. A client whose join is still pending is meant to be in the room: its
 * copy is received, not misdelivered. Without rooms (--rooms, --room, a scenario's joins) the
 * room field means nothing and every message is for every connected client.
 *
 * The simulator's own floor per message: the CPU time this process used from the message's
 * first receipt until every expected client had it (or, if some never did, until its last
 * receipt), next to the wall time of the same interval. CPU close to the wall time means the
 * process was busy all along: the simulator itself could be what spread the delays.
 */
import { createHash } from 'node:crypto'
import { monotonicMs, processCpuMs, wallMs } from '../lib/clock.js'
import { createHistogram, recordMs, summarize, encode } from '../lib/histogram.js'
import { fieldGetter, toEpochMs } from '../lib/fields.js'
import { REMEMBERED_KEYS, createClosedBook } from './recorder-closed.js'
import { createRoomBook } from './recorder-rooms.js'
import { ownIdSender } from './own-ids.js'
// Defaults of the recorder's memory bounds (see the module comment): options, defined in lib/.
import { RECORDER_LIMITS } from '../lib/cli-options/simulate.js'

export { RECORDER_LIMITS }

/**
 * @typedef {import('../lib/schema.js').MessageReport} MessageReport
 * @typedef {object} OpenMessage
 * @property {MessageReport} report
 * @property {number} firstMono
 * @property {number} lastMono latest receipt
 * @property {Uint32Array} expectedBits clients connected (and in its room, for a room message) at the first receipt
 * @property {Set<number> | null} members for a room message: the clients meant to be in the room (the rest are misdelivered copies)
 * @property {number} sender the client of this process that emitted it (a relayed line), else -1: its own copy is not expected, and an echo if it comes
 * @property {Uint32Array} receivedBits
 * @property {number} receivedExpected
 * @property {import('../lib/histogram.js').Histogram} relative
 * @property {import('../lib/histogram.js').Histogram | null} absolute
 * @property {number} negative absolute latencies below zero (clock skew larger than the latency)
 * @property {number} cpuFirstMs process CPU at the first receipt
 * @property {number} cpuEndMs process CPU when every expected client had it, else at about the latest receipt
 * @property {number} cpuEndMono when cpuEndMs was read
 * @property {boolean} drained every expected client has it
 * @property {number} window its time window (--window: simulator/windows.js), else -1
 * @typedef {import('../lib/schema.js').MessageRollup} MessageRollup
 * @typedef {import('../lib/schema.js').RecorderInfo} RecorderInfo
 */

/**
 * A reconnect storm's gap (simulator/storms.js createStormTracker): receipts of the messages
 * sent while clients were away, by the recorder's key and the send time on this process's clock.
 * @typedef {{ following: () => boolean, message: (i: number, key: string, sentAt: number | null) => void }} Gap
 */

/**
 * A CPU read costs about 1 µs (a getrusage call; bench/recorder.js puts a whole receipt at
 * ~0.5 µs), so receipts of a message still being drained reuse a read at most this old; its
 * first receipt and the one that completes it read exactly. A message that is never
 * completed has its floor end within this much of its last receipt.
 */
const CPU_READ_MS = 1

/**
 * Where a message keeps its id, send time and target room (--id-field, --sent-at-field,
 * --room-field): getters of the event's first argument.
 * @typedef {{ id: import('../lib/fields.js').FieldGetter, sentAt: import('../lib/fields.js').FieldGetter, room: import('../lib/fields.js').FieldGetter }} MessageFields
 */

/** ioswarm's own message shape: `{ id, batch, round, seq, sentAt, room, payload }`. */
export const DEFAULT_FIELDS = Object.freeze(messageFields({}))

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
      return {
        id: String(id),
        ...(typeof batch === 'string' ? { batch } : {}),
        round: typeof round === 'number' ? round : null,
        seq: typeof seq === 'number' ? seq : null,
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
 * @param {(report: MessageReport) => void} [options.onClose] called once per message when it closes
 * @param {number} [options.maxOpen] most messages open at once; receipts of more are untracked
 * @param {number} [options.keepClosed] closed reports kept whole; older ones are rolled up
 * @param {MessageFields} [options.fields] where messages keep their id, send time and room
 * @param {string} [options.namespace] the namespace this recorder's messages arrive on: in reports, and in keys when not '/'
 * @param {Gap | null} [options.gap] a reconnect storm's gap (simulator/storms.js), told of every receipt by the key found here
 * @param {{ receipt: (i: number, relativeMs: number, absoluteMs: number) => void, missing: (i: number) => void } | null} [options.nodes] per-node deliveries
 *   (--node-from): each counted receipt (absoluteMs NaN when the message has no send time), each missing one at close
 * @param {import('./windows.js').WindowBook | null} [options.windows] --window: told of each message when it opens and closes (never per receipt)
 * @param {number} [options.clientOffset] this process's first client over the whole run: an id --emit stamped (own-ids.js) names its sender
 */
export function createRecorder ({
  clients, messageTimeoutMs, quietMs = 1000, clockOffsetMs = () => 0, onClose = () => {},
  maxOpen = RECORDER_LIMITS.maxOpen, keepClosed = RECORDER_LIMITS.keepClosed, fields = DEFAULT_FIELDS, namespace = '/', gap = null, nodes = null, windows = null,
  clientOffset = 0
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
  // Ids of this process's own lines (a chat line) and their sender: no one expects its own line
  // back. Two generations of half the bound each (the newer is set, both are read; when it is
  // full the older is dropped whole): the last REMEMBERED_KEYS / 2 to REMEMBERED_KEYS ids are
  // kept, at one Map.set per emit, with no eviction per emit (delete-oldest cost a Map.delete,
  // an iterator and a rehash now and then on every emit).
  /** @type {Map<string, number>} */
  let own = new Map()
  /** @type {Map<string, number>} */
  let ownBefore = new Map()
  /** @param {string} id @param {number} i */
  const remember = (id, i) => {
    if (own.size >= REMEMBERED_KEYS / 2) {
      ownBefore = own
      own = new Map()
    }
    own.set(id, i)
  }
  /** @param {string} id @returns {number | undefined} the sender of one of this process's own lines, forgotten once asked */
  const takeOwn = (id) => {
    let sender = own.get(id)
    if (sender !== undefined) own.delete(id)
    else {
      sender = ownBefore.get(id)
      if (sender !== undefined) ownBefore.delete(id)
    }
    if (sender !== undefined) return sender
    // An id --emit stamped names its sender: such lines are not remembered (ownLine).
    const stamper = ownIdSender(id, clientOffset, clients)
    return stamper === -1 ? undefined : stamper
  }
  const words = Math.ceil(clients / 32) || 1
  const connected = new Uint32Array(words)
  /** @type {Map<string, OpenMessage>} */
  const open = new Map()
  let lateReceipts = 0
  let untrackedReceipts = 0
  let untrackedMessages = 0
  /** @type {MessageReport | null} */
  let lastClosed = null
  let cpuReadMs = 0
  let cpuReadMono = -Infinity

  /** @param {unknown[]} args */
  function contentId (args) {
    const id = identify(args, fields).id
    contentIds.set(args, id)
    return id
  }

  /** @param {number} now */
  function readCpu (now) {
    cpuReadMs = processCpuMs()
    cpuReadMono = now
  }
  /**
   * @param {OpenMessage} message
   */
  function close (message) {
    const { report } = message
    report.missing = report.expected - message.receivedExpected
    if (nodes !== null && report.missing > 0) missingByClient(message, nodes.missing)
    // Each CPU read is paired with the receipt time read just before it on this thread. cpuMs counts
    // the process's helper threads too (GC, compilers), so on a short drain it may pass spreadMs:
    // its share of the spread is read with busyShare (lib/process-sampler.js), at most 100 %.
    report.floor = { cpuMs: round3(message.cpuEndMs - message.cpuFirstMs), spreadMs: round3(message.cpuEndMono - message.firstMono) }
    report.relative = { ...summarize(message.relative), histogram: encode(message.relative) }
    if (message.absolute) {
      report.absolute = { ...summarize(message.absolute), histogram: encode(message.absolute), negative: message.negative }
    }
    open.delete(report.key)
    if (windows !== null) windows.closed(message.window, report, message.relative, message.absolute)
    done.keep(report)
    lastClosed = report
    onClose(report)
  }

  /**
   * @param {string} key
   * @param {string} event
   * @param {unknown[]} args
   * @param {number} now
   * @returns {OpenMessage}
   */
  function openMessage (key, event, args, now) {
    const { id, batch, round, seq, sentAt, room } = identify(args, fields)
    const targeted = room !== null && rooms.active()
    const target = targeted ? rooms.target(room, connected) : null
    let expectedBits
    let expected = 0
    if (target !== null) {
      // Expected: the room's joined clients that are connected now (a room unknown here: none).
      expectedBits = target.expectedBits
      expected = target.expected
    } else {
      expectedBits = connected.slice()
      for (let w = 0; w < words; w++) expected += popcount(expectedBits[w])
    }
    const sender = takeOwn(id)
    if (sender !== undefined) {
      // A server may send it back to its sender (io.to(room)) or not (socket.to(room)): either
      // is right, and that copy is not counted as received.
      if (expectedBits[sender >>> 5] & (1 << (sender & 31))) {
        expectedBits[sender >>> 5] &= ~(1 << (sender & 31))
        expected--
      }
    }
    readCpu(now)
    /** @type {OpenMessage} */
    const message = {
      report: {
        key,
        id,
        ...(batch === undefined ? {} : { batch }),
        event,
        namespace,
        room: targeted ? room : null,
        round,
        seq,
        sentAt,
        firstAt: wallMs(),
        received: 0,
        expected,
        missing: 0,
        duplicates: 0,
        misdelivered: 0,
        echo: 0,
        late: 0,
        relative: { ...summarize(createHistogram()), histogram: '' },
        absolute: null,
        floor: { cpuMs: 0, spreadMs: 0 }
      },
      firstMono: now,
      lastMono: now,
      expectedBits,
      members: target === null ? null : target.members,
      sender: sender ?? -1,
      receivedBits: new Uint32Array(words),
      receivedExpected: 0,
      relative: createHistogram(),
      absolute: sentAt === null ? null : createHistogram(),
      negative: 0,
      cpuFirstMs: cpuReadMs,
      cpuEndMs: cpuReadMs,
      cpuEndMono: now,
      drained: false,
      window: windows === null ? -1 : windows.opened()
    }
    open.set(key, message)
    return message
  }

  return {
    /**
     * Client `i` is connected (true) or not (false) from now on.
     * @param {number} i
     * @param {boolean} isConnected
     */
    setConnected (i, isConnected) {
      if (isConnected) connected[i >>> 5] |= 1 << (i & 31)
      else connected[i >>> 5] &= ~(1 << (i & 31))
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
      const first = args[0]
      if (first !== null && typeof first === 'object' && !Buffer.isBuffer(first)) {
        const id = idOf(first)
        // An id --emit stamped for this client is known by reading it (takeOwn): nothing to remember.
        if (typeof id === 'string' && ownIdSender(id, clientOffset, clients) === i) return
        if (typeof id === 'string' || typeof id === 'number') return remember(String(id), i)
      } else if (typeof first === 'string') remember(first, i)
      remember(identify(args, fields).id, i)
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
        message = openMessage(key, event, args, now)
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
      if (!message.drained) {
        if (message.receivedExpected === message.report.expected) {
          readCpu(now)
          message.drained = true
        } else if (now - cpuReadMono >= CPU_READ_MS) {
          readCpu(now)
        }
        message.cpuEndMs = cpuReadMs
        message.cpuEndMono = cpuReadMono
      }
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

/** @param {number} v */
const round3 = (v) => Math.round(v * 1000) / 1000

/**
 * Calls `onMissing` for each client that expected a message and never got it.
 * @param {OpenMessage} message
 * @param {(i: number) => void} onMissing
 */
function missingByClient (message, onMissing) {
  const { expectedBits, receivedBits } = message
  for (let w = 0; w < expectedBits.length; w++) {
    let bits = expectedBits[w] & ~receivedBits[w]
    while (bits !== 0) {
      const low = bits & -bits
      onMissing(w * 32 + 31 - Math.clz32(low))
      bits ^= low
    }
  }
}

/**
 * Number of set bits in a 32-bit word.
 * @param {number} v
 */
function popcount (v) {
  v -= (v >>> 1) & 0x55555555
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333)
  return (((v + (v >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24
}
