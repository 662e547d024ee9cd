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
 * The simulator's own floor per message: the CPU time this process used from the message's
 * first receipt until every expected client had it (or, if some never did, until its last
 * receipt), next to the wall time of the same interval. CPU close to the wall time means the
 * process was busy all along: the simulator itself could be what spread the delays.
 */
import { createHash } from 'node:crypto'
import { monotonicMs, processCpuMs, wallMs } from '../lib/clock.js'
import { createHistogram, recordMs, summarize, encode, decode } from '../lib/histogram.js'
// Defaults of the recorder's memory bounds (see the module comment): options, defined in lib/.
import { RECORDER_LIMITS } from '../lib/cli-options/simulate.js'

export { RECORDER_LIMITS }

/** Keys remembered after their report was rolled up or their message left untracked, so a late copy is not taken for a new message. */
const REMEMBERED_KEYS = 100_000
/** Distinct (event, round) rollups; messages past it share one rollup with event '*'. */
const MAX_ROLLUPS = 64

/**
 * @typedef {import('../lib/schema.js').MessageReport} MessageReport
 * @typedef {object} OpenMessage
 * @property {MessageReport} report
 * @property {number} firstMono
 * @property {number} lastMono latest receipt
 * @property {Uint32Array} expectedBits clients connected at the first receipt
 * @property {Uint32Array} receivedBits
 * @property {number} receivedExpected
 * @property {import('../lib/histogram.js').Histogram} relative
 * @property {import('../lib/histogram.js').Histogram | null} absolute
 * @property {number} negative absolute latencies below zero (clock skew larger than the latency)
 * @property {number} cpuFirstMs process CPU at the first receipt
 * @property {number} cpuEndMs process CPU when every expected client had it, else at about the latest receipt
 * @property {number} cpuEndMono when cpuEndMs was read
 * @property {boolean} drained every expected client has it
 * @typedef {import('../lib/schema.js').MessageRollup} MessageRollup
 * @typedef {import('../lib/schema.js').RecorderInfo} RecorderInfo
 * @typedef {Omit<MessageRollup, 'relative' | 'absolute'> & { relative: import('../lib/histogram.js').Histogram, absolute: import('../lib/histogram.js').Histogram | null, negative: number }} Rollup
 */

/**
 * A CPU read costs about 1 µs (a getrusage call; bench/recorder.js puts a whole receipt at
 * ~0.5 µs), so receipts of a message still being drained reuse a read at most this old; its
 * first receipt and the one that completes it read exactly. A message that is never
 * completed has its floor end within this much of its last receipt.
 */
const CPU_READ_MS = 1

/**
 * Identity of a message: its `id` field when it has one, else a hash of its content, so
 * broadcasts of any server can be measured.
 * @param {unknown[]} args
 * @returns {{ id: string, batch?: string, round: number | null, seq: number | null, sentAt: number | null }}
 */
export function identify (args) {
  const first = /** @type {Record<string, unknown> | null} */ (args[0])
  if (first !== null && typeof first === 'object' && !Buffer.isBuffer(first)) {
    const { id, batch, round, seq, sentAt } = first
    if (typeof id === 'string' || typeof id === 'number') {
      return {
        id: String(id),
        ...(typeof batch === 'string' ? { batch } : {}),
        round: typeof round === 'number' ? round : null,
        seq: typeof seq === 'number' ? seq : null,
        sentAt: typeof sentAt === 'number' && Number.isFinite(sentAt) ? sentAt : null
      }
    }
  }
  const hash = createHash('sha1').update(JSON.stringify(args)).digest('hex').slice(0, 16)
  return { id: `content:${hash}`, round: null, seq: null, sentAt: null }
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
 */
export function createRecorder ({ clients, messageTimeoutMs, quietMs = 1000, clockOffsetMs = () => 0, onClose = () => {}, maxOpen = RECORDER_LIMITS.maxOpen, keepClosed = RECORDER_LIMITS.keepClosed }) {
  const words = Math.ceil(clients / 32) || 1
  const connected = new Uint32Array(words)
  /** @type {Map<string, OpenMessage>} */
  const open = new Map()
  /** @type {Map<string, MessageReport>} */
  const closed = new Map()
  let lateReceipts = 0
  let untrackedReceipts = 0
  let untrackedMessages = 0
  let rolledUpMessages = 0
  /** @type {MessageReport | null} */
  let lastClosed = null
  let cpuReadMs = 0
  let cpuReadMono = -Infinity

  /** @param {number} now */
  function readCpu (now) {
    cpuReadMs = processCpuMs()
    cpuReadMono = now
  }
  /** Keys of rolled-up messages (value true) and of untracked ones (false), oldest first, bounded. */
  /** @type {Map<string, boolean>} */
  const forgotten = new Map()
  /** @type {Map<string, Rollup>} */
  const rollups = new Map()

  /**
   * @param {string} key
   * @param {boolean} rolledUp
   */
  function forget (key, rolledUp) {
    forgotten.set(key, rolledUp)
    if (forgotten.size > REMEMBERED_KEYS) forgotten.delete(/** @type {string} */ (forgotten.keys().next().value))
  }

  /**
   * Folds the oldest kept report into its (event, round) rollup.
   * @param {MessageReport} report
   */
  function rollUp (report) {
    closed.delete(report.key)
    forget(report.key, true)
    rolledUpMessages++
    let groupKey = `${report.event}\u0000${report.round}`
    if (!rollups.has(groupKey) && rollups.size >= MAX_ROLLUPS - 1) groupKey = '*'
    let group = rollups.get(groupKey)
    if (group === undefined) {
      group = {
        event: groupKey === '*' ? '*' : report.event,
        round: groupKey === '*' ? null : report.round,
        messages: 0,
        received: 0,
        expected: 0,
        missing: 0,
        duplicates: 0,
        late: 0,
        firstAt: report.firstAt,
        lastAt: report.firstAt,
        relative: createHistogram(),
        absolute: null,
        negative: 0
      }
      rollups.set(groupKey, group)
    }
    group.messages++
    group.received += report.received
    group.expected += report.expected
    group.missing += report.missing
    group.duplicates += report.duplicates
    group.late += report.late
    group.firstAt = Math.min(group.firstAt, report.firstAt)
    group.lastAt = Math.max(group.lastAt, report.firstAt)
    if (report.relative.histogram) group.relative.add(decode(report.relative.histogram))
    if (report.absolute) {
      group.absolute ??= createHistogram()
      if (report.absolute.histogram) group.absolute.add(decode(report.absolute.histogram))
      group.negative += report.absolute.negative ?? 0
    }
  }

  /**
   * @param {OpenMessage} message
   */
  function close (message) {
    const { report } = message
    report.missing = report.expected - message.receivedExpected
    report.floor = { cpuMs: round3(message.cpuEndMs - message.cpuFirstMs), spreadMs: round3(message.cpuEndMono - message.firstMono) }
    report.relative = { ...summarize(message.relative), histogram: encode(message.relative) }
    if (message.absolute) {
      report.absolute = { ...summarize(message.absolute), histogram: encode(message.absolute), negative: message.negative }
    }
    open.delete(report.key)
    closed.set(report.key, report)
    lastClosed = report
    onClose(report)
    if (closed.size > keepClosed) rollUp(/** @type {MessageReport} */ (closed.values().next().value))
  }

  /**
   * @param {string} key
   * @param {string} event
   * @param {unknown[]} args
   * @param {number} now
   * @returns {OpenMessage}
   */
  function openMessage (key, event, args, now) {
    const { id, batch, round, seq, sentAt } = identify(args)
    const expectedBits = connected.slice()
    let expected = 0
    for (let w = 0; w < words; w++) expected += popcount(expectedBits[w])
    readCpu(now)
    /** @type {OpenMessage} */
    const message = {
      report: {
        key,
        id,
        ...(batch === undefined ? {} : { batch }),
        event,
        round,
        seq,
        sentAt,
        firstAt: wallMs(),
        received: 0,
        expected,
        missing: 0,
        duplicates: 0,
        late: 0,
        relative: { ...summarize(createHistogram()), histogram: '' },
        absolute: null,
        floor: { cpuMs: 0, spreadMs: 0 }
      },
      firstMono: now,
      lastMono: now,
      expectedBits,
      receivedBits: new Uint32Array(words),
      receivedExpected: 0,
      relative: createHistogram(),
      absolute: sentAt === null ? null : createHistogram(),
      negative: 0,
      cpuFirstMs: cpuReadMs,
      cpuEndMs: cpuReadMs,
      cpuEndMono: now,
      drained: false
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
     * Client `i` received `event` with `args`. The hot path: once per client per message.
     * @param {number} i
     * @param {string} event
     * @param {unknown[]} args
     */
    receive (i, event, args) {
      const now = monotonicMs()
      const first = /** @type {{ id?: unknown, batch?: unknown } | null} */ (args[0])
      // The common case (a message with an id) builds its key without hashing the content.
      // `batch` (one per `ioswarm broadcast`) keeps ids of two broadcasters apart.
      const isObject = first !== null && typeof first === 'object'
      const rawId = isObject ? first.id : undefined
      const batch = isObject ? first.batch : undefined
      const key = typeof rawId === 'string' || typeof rawId === 'number'
        ? (typeof batch === 'string' ? `${event}:${batch}/${rawId}` : `${event}:${rawId}`)
        : `${event}:${identify(args).id}`
      let message = open.get(key)
      if (message === undefined) {
        const done = closed.get(key)
        if (done !== undefined) {
          done.late++
          lateReceipts++
          return
        }
        const gone = forgotten.get(key)
        if (gone !== undefined) {
          if (gone) lateReceipts++
          else untrackedReceipts++
          return
        }
        if (open.size >= maxOpen) {
          // A flood: more messages in flight than the recorder holds. Counted, not recorded.
          untrackedMessages++
          untrackedReceipts++
          forget(key, false)
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
      message.report.received++
      message.lastMono = now
      recordMs(message.relative, now - message.firstMono)
      if (message.absolute !== null) {
        const latencyMs = wallMs() + clockOffsetMs() - /** @type {number} */ (message.report.sentAt)
        if (latencyMs < 0) message.negative++
        recordMs(message.absolute, latencyMs)
      }
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

    /** Closes every open message (end of run). */
    closeAll () {
      for (const message of [...open.values()]) close(message)
    },

    /** @returns {MessageReport[]} the kept messages (the newest `keepClosed`), in order of first receipt */
    reports () {
      return [...closed.values()].sort((a, b) => a.firstAt - b.firstAt)
    },

    /** @returns {MessageRollup[]} messages older than the kept ones, one entry per (event, round) */
    rollups () {
      return [...rollups.values()].map((g) => ({
        event: g.event,
        round: g.round,
        messages: g.messages,
        received: g.received,
        expected: g.expected,
        missing: g.missing,
        duplicates: g.duplicates,
        late: g.late,
        firstAt: g.firstAt,
        lastAt: g.lastAt,
        relative: { ...summarize(g.relative), histogram: encode(g.relative) },
        absolute: g.absolute && { ...summarize(g.absolute), histogram: encode(g.absolute), negative: g.negative }
      })).sort((a, b) => a.firstAt - b.firstAt)
    },

    /** @returns {RecorderInfo} the bounds and what they cost */
    info () {
      return { maxOpen, keepClosed, rolledUpMessages, untrackedMessages, untrackedReceipts, lateReceipts }
    },

    /** Live figures for progress lines. */
    stats () {
      return { messages: open.size + closed.size + rolledUpMessages, open: open.size, lateReceipts, untrackedReceipts, lastRelativeP99Ms: lastClosed ? lastClosed.relative.p99 : null }
    }
  }
}

/** @param {number} v */
const round3 = (v) => Math.round(v * 1000) / 1000

/**
 * Number of set bits in a 32-bit word.
 * @param {number} v
 */
function popcount (v) {
  v -= (v >>> 1) & 0x55555555
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333)
  return (((v + (v >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24
}
