/**
 * What one recorder keeps of its closed messages, bounded on long runs: the newest
 * `keepClosed` reports whole; older ones folded into one rollup per (event, round) (counts
 * summed, histograms merged; past MAX_ROLLUPS groups, one '*' rollup); and the keys of
 * messages rolled up or never tracked (a flood), oldest forgotten first, so a late copy of one
 * is not taken for a new message.
 */
import { createHistogram, decode, encode, summarize } from '../../lib/measure/histogram.js'

/** Keys remembered after their report was rolled up or their message left untracked. */
export const REMEMBERED_KEYS = 100_000
/** Distinct (event, round) rollups; messages past it share one rollup with event '*'. */
export const MAX_ROLLUPS = 64

/**
 * @typedef {import('../../lib/schema/result-schema.js').MessageReport} MessageReport
 * @typedef {import('../../lib/schema/result-schema.js').MessageRollup} MessageRollup
 * @typedef {import('../../lib/measure/histogram.js').Histogram} Histogram
 * @typedef {Omit<MessageRollup, 'relative' | 'absolute' | 'misdelivered' | 'echo'>
 *   & { misdelivered: number, echo: number, relative: Histogram, absolute: Histogram | null, negative: number }} Rollup
 */

/**
 * @param {MessageReport} report the first report of its group
 * @param {boolean} other the '*' group (past MAX_ROLLUPS)
 * @returns {Rollup}
 */
function emptyRollup (report, other) {
  return {
    event: other ? '*' : report.event,
    round: other ? null : report.round,
    messages: 0,
    received: 0,
    expected: 0,
    missing: 0,
    duplicates: 0,
    misdelivered: 0,
    echo: 0,
    late: 0,
    firstAt: report.firstAt,
    lastAt: report.firstAt,
    relative: createHistogram(),
    absolute: null,
    negative: 0
  }
}

/**
 * @param {Rollup} group
 * @param {MessageReport} report
 */
function fold (group, report) {
  group.messages++
  group.received += report.received
  group.expected += report.expected
  group.missing += report.missing
  group.duplicates += report.duplicates
  group.misdelivered += report.misdelivered ?? 0
  group.echo += report.echo ?? 0
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
 * @param {{ keepClosed: number, rememberedKeys?: number }} bounds
 */
export function createClosedBook ({ keepClosed, rememberedKeys = REMEMBERED_KEYS }) {
  /** @type {Map<string, MessageReport>} */
  const closed = new Map()
  /** Keys of rolled-up messages (value true) and of untracked ones (false), oldest first, bounded. @type {Map<string, boolean>} */
  const forgotten = new Map()
  /** @type {Map<string, Rollup>} */
  const rollups = new Map()
  let rolledUpMessages = 0

  /**
   * @param {string} key
   * @param {boolean} rolledUp
   */
  function forget (key, rolledUp) {
    forgotten.set(key, rolledUp)
    if (forgotten.size > rememberedKeys) forgotten.delete(/** @type {string} */ (forgotten.keys().next().value))
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
    if (group === undefined) rollups.set(groupKey, group = emptyRollup(report, groupKey === '*'))
    fold(group, report)
  }

  return {
    forget,

    /**
     * A report that just closed: kept whole; the oldest kept one past `keepClosed` is rolled up.
     * @param {MessageReport} report
     */
    keep (report) {
      closed.set(report.key, report)
      if (closed.size > keepClosed) rollUp(/** @type {MessageReport} */ (closed.values().next().value))
    },

    /** @param {string} key @returns {MessageReport | undefined} the kept report of a closed message */
    closed: (key) => closed.get(key),

    /** @param {string} key @returns {boolean | undefined} true: rolled up; false: never tracked; undefined: not forgotten */
    forgotten: (key) => forgotten.get(key),

    /** @returns {number} reports kept whole */
    size: () => closed.size,

    /** @returns {number} messages folded into rollups */
    rolledUp: () => rolledUpMessages,

    /** @returns {MessageReport[]} the kept reports, in order of first receipt */
    reports () {
      return [...closed.values()].sort((a, b) => a.firstAt - b.firstAt)
    },

    /** @returns {MessageRollup[]} one entry per (event, round), in order of first receipt */
    rollups () {
      return [...rollups.values()].map((g) => ({
        event: g.event,
        round: g.round,
        messages: g.messages,
        received: g.received,
        expected: g.expected,
        missing: g.missing,
        duplicates: g.duplicates,
        misdelivered: g.misdelivered,
        echo: g.echo,
        late: g.late,
        firstAt: g.firstAt,
        lastAt: g.lastAt,
        relative: { ...summarize(g.relative), histogram: encode(g.relative) },
        absolute: g.absolute && { ...summarize(g.absolute), histogram: encode(g.absolute), negative: g.negative }
      })).sort((a, b) => a.firstAt - b.firstAt)
    }
  }
}
