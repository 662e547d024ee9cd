/**
 * Delivery figures per (namespace, room, event) over every simulator of a distribution, from
 * the stored message reports: counts summed, delays from merged histograms (true
 * percentiles, never averages of percentiles). Rooms are many (10,000 rooms of a chat), so
 * only the top rooms by traffic get rows of their own; the others are folded into one row per
 * namespace and event, so the breakdown stays small whatever the number of rooms.
 */
import { createHistogram, decode, summarize } from '../../lib/measure/histogram.js'
import { addHistograms, groupBy } from './sim-merge.js'
import { joinKey } from '../../lib/text/keys.js'
import { addDeliveryCounts, emptyDeliveryCounts } from './delivery-counts.js'

/**
 * @typedef {import('../../lib/schema/result-schema.js').DeliveryRow} DeliveryRow
 * @typedef {import('../../lib/schema/result-schema.js').DeliveryBreakdown} DeliveryBreakdown
 * @typedef {import('../../lib/schema/result-schema.js').ClockInfo} ClockInfo
 * @typedef {import('../collector/types.js').MessageEntry} MessageEntry
 */

/** Rooms listed on their own, by traffic; the rest are folded together. */
export const TOP_ROOMS = 20

/**
 * Copies a report's message caused or should have: received, missing, misdelivered, duplicated.
 * @param {import('../../lib/schema/result-schema.js').MessageReport} r
 */
export const trafficOf = (r) => r.received + r.missing + (r.misdelivered ?? 0) + (r.duplicates ?? 0) + (r.echo ?? 0)

/** @param {string | undefined} namespace */
export const nspOf = (namespace) => namespace ?? '/'

/** @typedef {import('./delivery-counts.js').DeliveryCounts} DeliveryCounts */

/**
 * Counts, message keys and live histograms of a row being built. Its distinct messages are its
 * keys, plus `lines`: messages counted without their keys (rolled up as they came: lines.js).
 * @typedef {DeliveryCounts & { keys: Set<string>, lines: number, relative: import('../../lib/measure/histogram.js').Histogram,
 *   absolute: import('../../lib/measure/histogram.js').Histogram | null, uncertaintyMs: number }} Tally
 */

/** @returns {Tally} */
export function newTally () {
  return { keys: new Set(), lines: 0, ...emptyDeliveryCounts(), relative: createHistogram(), absolute: null, uncertaintyMs: 0 }
}

/**
 * Adds a group of reports (one per simulator and message) to a tally: each histogram decoded
 * once, here, unless the group's histograms come merged already.
 * @param {Tally} tally
 * @param {MessageEntry[]} entries
 * @param {Record<string, ClockInfo>} clocks
 * @param {import('./sim-merge.js').Histograms} [merged] the group's histograms (message-results.js)
 */
function addEntries (tally, entries, clocks, merged) {
  for (const { simulator, report: r } of entries) {
    tally.keys.add(joinKey(nspOf(r.namespace), r.key))
    addReport(tally, r, !merged)
    if (r.absolute) tally.uncertaintyMs = Math.max(tally.uncertaintyMs, clocks[simulator]?.uncertaintyMs ?? 0)
  }
  if (merged) addHistograms(tally, merged)
}

/**
 * Adds one report's counts to a tally, and its histograms (decoded here) unless told not to.
 * @param {Tally} tally
 * @param {import('../../lib/schema/result-schema.js').MessageReport} r
 * @param {boolean} [histograms]
 */
export function addReport (tally, r, histograms = true) {
  addDeliveryCounts(tally, r)
  if (histograms && r.relative.histogram) tally.relative.add(decode(r.relative.histogram))
  if (r.absolute) {
    tally.absolute ??= createHistogram()
    if (histograms && r.absolute.histogram) tally.absolute.add(decode(r.absolute.histogram))
  }
}

/**
 * Adds a finished row's tally into a larger one (a namespace's, the total): no decoding again.
 * @param {Tally} into
 * @param {Tally} from
 */
export function addTally (into, from) {
  for (const key of from.keys) into.keys.add(key)
  into.lines += from.lines
  addDeliveryCounts(into, from)
  into.relative.add(from.relative)
  if (from.absolute) {
    into.absolute ??= createHistogram()
    into.absolute.add(from.absolute)
    into.uncertaintyMs = Math.max(into.uncertaintyMs, from.uncertaintyMs)
  }
}

/**
 * @param {Tally} t
 * @param {Pick<DeliveryRow, 'namespace' | 'room' | 'foldedRooms' | 'event'>} labels
 * @returns {DeliveryRow}
 */
function rowOf (t, labels) {
  return {
    ...labels,
    messages: t.keys.size + t.lines,
    expected: t.expected,
    received: t.received,
    missing: t.missing,
    misdelivered: t.misdelivered,
    duplicates: t.duplicates,
    echo: t.echo,
    relative: summarize(t.relative),
    absolute: t.absolute && { ...summarize(t.absolute), uncertaintyMs: t.uncertaintyMs }
  }
}

/**
 * Which row of the breakdown each report belongs to: rooms ranked by traffic, the top ones
 * rows of their own (no histogram is read).
 * @param {MessageEntry[]} entries
 * @param {number} [topRooms]
 */
export function deliveryRows (entries, topRooms = TOP_ROOMS) {
  // Traffic per (namespace, room): which rooms get rows of their own.
  /** @type {Map<string, number>} */
  const traffic = new Map()
  for (const { report: r } of entries) {
    if (r.room === null || r.room === undefined) continue
    const room = joinKey(nspOf(r.namespace), r.room)
    traffic.set(room, (traffic.get(room) ?? 0) + trafficOf(r))
  }
  const ranked = [...traffic].sort((a, b) => b[1] - a[1] || compare(a[0], b[0]))
  const top = new Map(ranked.slice(0, topRooms).map(([room], rank) => [room, rank]))
  /** @param {import('../../lib/schema/result-schema.js').MessageReport} r @returns {string} the row a report belongs to */
  const keyOf = (r) => {
    const nsp = nspOf(r.namespace)
    if (r.room === null || r.room === undefined) return `${nsp}\u0000\u0001all\u0000${r.event}`
    return top.has(joinKey(nsp, r.room)) ? `${nsp}\u0000\u0002${r.room}\u0000${r.event}` : `${nsp}\u0000\u0003other\u0000${r.event}`
  }
  return { topRooms, rooms: traffic.size, top, keyOf }
}

/**
 * The breakdown of a distribution's message reports. Each report's histograms are decoded
 * once, into its row (or come merged per row: `mergedOf`); namespaces and the total add the
 * rows' histograms.
 * @param {MessageEntry[]} entries one per (simulator, message), as stored
 * @param {Record<string, ClockInfo>} clocks by simulator, for the absolute uncertainty
 * @param {{ topRooms?: number, layout?: ReturnType<typeof deliveryRows>,
 *   mergedOf?: (row: string) => import('./sim-merge.js').Histograms | undefined }} [options]
 *   layout: deliveryRows of these entries, when the caller has them; mergedOf: a row's histograms, merged already
 * @returns {DeliveryBreakdown}
 */
export function deliveryBreakdown (entries, clocks, { topRooms = TOP_ROOMS, layout = deliveryRows(entries, topRooms), mergedOf } = {}) {
  const { top } = layout
  /** @type {RowTally[]} */
  const rows = []
  for (const [key, group] of groupBy(entries, (e) => layout.keyOf(e.report))) {
    const first = group[0].report
    const namespace = nspOf(first.namespace)
    const room = first.room ?? null
    const rank = room === null ? undefined : top.get(joinKey(namespace, room))
    const folded = room !== null && rank === undefined ? new Set(group.map((e) => e.report.room)).size : 0
    const tally = newTally()
    addEntries(tally, group, clocks, mergedOf?.(key))
    rows.push({ namespace, room, rank, folded, event: first.event, tally })
  }
  return assembleBreakdown(rows, layout)
}

/**
 * A row of the breakdown with its tally: `rank` among the top rooms (undefined: messages to
 * everyone, or the rooms folded together, `folded` of them).
 * @typedef {{ namespace: string, room: string | null, rank: number | undefined, folded: number, event: string, tally: Tally }} RowTally
 */

/**
 * The breakdown from its rows' tallies (from stored reports here, or rolled up as they came:
 * lines.js): rows sorted, namespaces and the total added from the rows (no decoding again).
 * @param {RowTally[]} tallies
 * @param {{ topRooms: number, rooms: number }} layout
 * @returns {DeliveryBreakdown}
 */
export function assembleBreakdown (tallies, { topRooms, rooms }) {
  /** @type {Map<string, Tally>} */
  const byNamespace = new Map()
  const total = newTally()
  /** @type {{ order: number[], row: DeliveryRow }[]} */
  const rows = []
  for (const { namespace, room, rank, folded, event, tally } of tallies) {
    // Messages to everyone first, then the top rooms by traffic, then the folded rooms.
    const order = [room === null && folded === 0 ? 0 : rank === undefined ? 2 : 1, rank ?? 0]
    rows.push({ order, row: rowOf(tally, { namespace, room: rank === undefined ? null : room, foldedRooms: folded, event }) })
    if (!byNamespace.has(namespace)) byNamespace.set(namespace, newTally())
    addTally(/** @type {Tally} */ (byNamespace.get(namespace)), tally)
    addTally(total, tally)
  }
  rows.sort((a, b) => compare(a.row.namespace, b.row.namespace) || a.order[0] - b.order[0] || a.order[1] - b.order[1] || compare(a.row.event, b.row.event))
  return {
    topRooms,
    rooms,
    rows: rows.map((r) => r.row),
    namespaces: [...byNamespace].sort((a, b) => compare(a[0], b[0])).map(([namespace, t]) => rowOf(t, { namespace, room: null, foldedRooms: 0, event: '*' })),
    total: rowOf(total, { namespace: '*', room: null, foldedRooms: 0, event: '*' })
  }
}

/**
 * Misdelivered, duplicated and echoed copies of a distribution with the copies that arrived;
 * null when it holds no such figure (a result older than them).
 * @param {import('../../lib/schema/result-schema.js').DistributionResult} d
 * @returns {{ misdelivered: number, duplicated: number, echo: number, copies: number } | null}
 */
export function deliveryFaults (d) {
  const total = d.deliveries?.total
  if (total) {
    const echo = total.echo ?? 0
    return { misdelivered: total.misdelivered, duplicated: total.duplicates, echo, copies: total.received + total.misdelivered + total.duplicates + echo }
  }
  const counted = d.messages.filter((m) => typeof m.misdelivered === 'number')
  if (counted.length === 0) return null
  let misdelivered = 0
  let duplicated = 0
  let echo = 0
  let received = 0
  for (const m of counted) {
    misdelivered += m.misdelivered ?? 0
    duplicated += m.duplicates ?? 0
    echo += m.echo ?? 0
    received += m.received
  }
  return { misdelivered, duplicated, echo, copies: received + misdelivered + duplicated + echo }
}

/**
 * How a row's room reads: its name, everyone, or the rooms folded into it.
 * @param {Pick<DeliveryRow, 'room' | 'foldedRooms' | 'event'>} row
 */
export function roomLabel (row) {
  if (row.room !== null) return row.room
  if (row.foldedRooms > 0) return `(${row.foldedRooms} other room${row.foldedRooms === 1 ? '' : 's'})`
  return row.event === '*' ? '(all)' : '(everyone)'
}

/** @param {string} a @param {string} b code-unit order */
function compare (a, b) {
  return a < b ? -1 : a > b ? 1 : 0
}

/**
 * Missing and expected deliveries of a distribution: over its rounds, or over every message
 * when it has no rounds (a simulate result of an app's own traffic).
 * @param {import('../../lib/schema/result-schema.js').DistributionResult} d
 * @returns {{ missing: number, expected: number }}
 */
export function missedDeliveries (d) {
  const total = d.rounds.length === 0 ? d.deliveries?.total : undefined
  if (total) return { missing: total.missing, expected: total.expected }
  let missing = 0
  let expected = 0
  for (const r of d.rounds) {
    missing += r.missing
    expected += r.expected
  }
  return { missing, expected }
}
