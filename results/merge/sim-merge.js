/**
 * Merging simulator results and message reports across processes: the one place where
 * counts are summed and histograms merged, used by `simulate --workers` (whole results) and
 * by a run's aggregation (message reports from every simulator, aggregate.js); what a
 * simulator measured besides messages and samples merges in measures.js, for both.
 */
import { createHistogram, encode, mergeEncoded, summarize } from '../../lib/measure/histogram.js'
import { measuresOf, mergeSimMeasures, mergeWindowLists, sumOf, sumRecords } from './measures.js'
import { joinKey } from '../../lib/text/keys.js'

export { sumOf }

/** @typedef {import('../../lib/schema/result-schema.js').SimResult} SimResult */

export const RELATIVE_NOTE = 'relative delays are relative to the first receipt in each worker process; their histograms are merged'

/**
 * Merges the results of several simulator processes that measured one simulator's clients
 * (`simulate --workers K`) into one SimResult: counts summed, histograms merged, messages by
 * key; each message's floor is its slowest process's; joins, emits and namespaces merged.
 * @param {SimResult[]} results
 * @param {string} id the merged simulator's id
 * @param {import('../../lib/schema/result-schema.js').MessageReport[]} [lostWorkerMessages] what workers that died had closed before
 * @returns {SimResult}
 */
export function mergeSimResults (results, id, lostWorkerMessages = []) {
  const [first] = results
  // Clients, health summary, joins and emits, destinations, source addresses, the recorder's
  // costs, churn: the one merge a run uses too (measures.js).
  const { clients, health, ...measured } = mergeSimMeasures(results.map(measuresOf))
  return {
    ...first,
    id,
    pid: process.pid,
    startedAt: Math.min(...results.map((r) => r.startedAt)),
    endedAt: Math.max(...results.map((r) => r.endedAt)),
    options: { ...first.options, id, clients: clients.target },
    ...measured,
    clients,
    destinations: measured.destinations ?? [],
    messages: mergeMessages([...results.flatMap((r) => r.messages), ...lostWorkerMessages]),
    messageRollups: mergeRollups(results.flatMap((r) => r.messageRollups ?? [])),
    health: { samples: results.flatMap((r) => r.health.samples).sort((a, b) => a.t - b.t), summary: health },
    timeline: mergeTimelines(results.map((r) => r.timeline)),
    ...(results.some((r) => r.windows) ? { windows: mergeWindowLists(results.map((r) => r.windows ?? [])) } : {}),
    workers: {
      note: RELATIVE_NOTE,
      list: results.map((r) => {
        const { target, connected, failed } = r.clients
        return { id: r.id, pid: r.pid, clients: { target, connected, failed }, rssMaxBytes: r.health.summary.rssMaxBytes, exitCode: null }
      })
    }
  }
}

/**
 * @param {import('../../lib/schema/result-schema.js').MessageReport[]} reports
 * @returns {import('../../lib/schema/result-schema.js').MessageReport[]}
 */
function mergeMessages (reports) {
  return [...groupBy(reports, (r) => r.key).values()].map((group) => ({
    ...group[0],
    ...mergeDeliveries(group),
    // Each worker drains its own clients: the simulator's floor is its slowest worker's.
    floor: group.reduce((top, m) => (m.floor && (!top || m.floor.cpuMs > top.cpuMs) ? m.floor : top), group[0].floor)
  })).sort((a, b) => a.firstAt - b.firstAt)
}

/**
 * Merges the workers' rollups of the same (event, round). A message a worker kept whole and
 * another rolled up is counted in both lists (each holds only that worker's clients).
 * @param {import('../../lib/schema/result-schema.js').MessageRollup[]} rollups
 * @returns {import('../../lib/schema/result-schema.js').MessageRollup[]}
 */
function mergeRollups (rollups) {
  return [...groupBy(rollups, (r) => joinKey(r.event, r.round)).values()].map((group) => ({
    ...group[0],
    ...mergeDeliveries(group),
    messages: Math.max(...group.map((m) => m.messages)),
    lastAt: Math.max(...group.map((m) => m.lastAt))
  })).sort((a, b) => a.firstAt - b.firstAt)
}

/**
 * @typedef {{ relative: import('../../lib/measure/histogram.js').Histogram, absolute: import('../../lib/measure/histogram.js').Histogram | null }} Histograms
 * @typedef {import('../../lib/schema/result-schema.js').MessageReport | import('../../lib/schema/result-schema.js').MessageRollup} Delivered
 */

/**
 * What message reports and rollups share, merged over processes (workers, simulators): counts
 * summed, histograms merged. One function for `--workers` and for a run's aggregation.
 * @param {Delivered[]} group
 * @param {{ histograms?: boolean, merged?: Histograms }} [options] histograms: false leaves the encoded merged histograms
 *   empty (a run's aggregation only needs their summaries); merged: the group's histograms already merged (each report
 *   decoded once for messages, rounds and deliveries: message-results.js), else decoded here
 */
export function mergeDeliveries (group, { histograms = true, merged = mergedHistograms(group) } = {}) {
  const { relative } = merged
  const absolutes = group.flatMap((m) => (m.absolute ? [m.absolute] : []))
  const absolute = merged.absolute ?? createHistogram()
  // A loop, not Math.min(...list): a run's round can hold 100,000s of reports.
  let firstAt = Infinity
  for (const m of group) firstAt = Math.min(firstAt, m.firstAt)
  return {
    firstAt,
    received: sumOf(group, (m) => m.received),
    expected: sumOf(group, (m) => m.expected),
    missing: sumOf(group, (m) => m.missing),
    duplicates: sumOf(group, (m) => m.duplicates ?? 0),
    misdelivered: sumOf(group, (m) => m.misdelivered ?? 0),
    echo: sumOf(group, (m) => m.echo ?? 0),
    late: sumOf(group, (m) => m.late ?? 0),
    relative: { ...summarize(relative), histogram: histograms ? encode(relative) : '' },
    absolute: absolutes.length === 0
      ? null
      : { ...summarize(absolute), histogram: histograms ? encode(absolute) : '', negative: sumOf(absolutes, (a) => a.negative ?? 0) }
  }
}

/**
 * A group's relative and absolute histograms, each report's decoded once and added (absolute:
 * null when no report has one).
 * @param {Delivered[]} group
 * @returns {Histograms}
 */
export function mergedHistograms (group) {
  const absolutes = group.flatMap((m) => (m.absolute ? [m.absolute.histogram] : []))
  return { relative: mergeEncoded(group.map((m) => m.relative.histogram)), absolute: absolutes.length === 0 ? null : mergeEncoded(absolutes) }
}

/**
 * Adds merged histograms into others (no decoding).
 * @param {Histograms} into
 * @param {Histograms} from
 */
export function addHistograms (into, from) {
  into.relative.add(from.relative)
  if (from.absolute) (into.absolute ??= createHistogram()).add(from.absolute)
}

/**
 * @template T, K
 * @param {Iterable<T>} items
 * @param {(item: T) => K} keyOf
 * @returns {Map<K, T[]>} groups in order of first appearance
 */
export function groupBy (items, keyOf) {
  /** @type {Map<K, T[]>} */
  const groups = new Map()
  for (const item of items) {
    const key = keyOf(item)
    const group = groups.get(key)
    if (group === undefined) groups.set(key, [item])
    else group.push(item)
  }
  return groups
}

/**
 * Sums the workers' per-second points by wall-clock second. A worker samples about once a
 * second, so two of its samples can round to one second: they are that worker's one point
 * first (its later level, both seconds' counts), never two workers' levels added.
 * @param {import('../../lib/schema/result-schema.js').TimelinePoint[][]} timelines
 */
function mergeTimelines (timelines) {
  /** @type {Map<number, import('../../lib/schema/result-schema.js').TimelinePoint>} */
  const bySecond = new Map()
  for (const timeline of timelines) {
    /** @type {Map<number, import('../../lib/schema/result-schema.js').TimelinePoint>} */
    const own = new Map()
    for (const point of timeline) {
      const second = Math.round(point.t / 1000)
      const before = own.get(second)
      own.set(second, before ? laterLevels(before, point) : point)
    }
    for (const [second, point] of own) {
      const into = bySecond.get(second)
      bySecond.set(second, into
        ? { ...sumRecords([into, point]), t: into.t, messages: Math.max(into.messages, point.messages) }
        : { ...point, byTransport: { ...point.byTransport } })
    }
  }
  return [...bySecond.values()].sort((a, b) => a.t - b.t)
}

/**
 * One worker's two samples in one second as one: the later one's levels (connected, by
 * transport, by node, messages so far) and the counts of both.
 * @param {import('../../lib/schema/result-schema.js').TimelinePoint} earlier
 * @param {import('../../lib/schema/result-schema.js').TimelinePoint} later
 * @returns {import('../../lib/schema/result-schema.js').TimelinePoint}
 */
function laterLevels (earlier, later) {
  const point = {
    ...later,
    connects: earlier.connects + later.connects,
    disconnects: earlier.disconnects + later.disconnects,
    errors: earlier.errors + later.errors
  }
  if (earlier.closed !== undefined || later.closed !== undefined) point.closed = (earlier.closed ?? 0) + (later.closed ?? 0)
  return point
}
