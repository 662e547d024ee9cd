/**
 * One second of a run, merged over every simulator: what the collector received since the last
 * read (each simulator's one-second samples, closed message reports, server samples) folded
 * into one plain JSON `second` event. The same reads feed the Prometheus metrics; nothing here
 * runs per receipt: a closed report is one fold, a simulator's second is one fold.
 */
import { DELAY_BUCKETS_SECONDS } from '../../lib/measure/hdr-buckets.js'
import { mergeEncoded, summarize } from '../../lib/measure/histogram.js'
import { isSaturated } from '../../lib/measure/process-sampler.js'
import { addDeliveryCounts, emptyDeliveryCounts } from '../merge/delivery-counts.js'

/** A simulator not heard from for this long stops counting in the connected totals. */
const GONE_MS = 3000
/** Rows (namespace, room, event) a second names, the busiest first; the rest are summed in `other`. */
export const MAX_ROWS = 20
/** Message keys remembered to count a message once over its simulators' reports. */
const MAX_KEYS = 20000
/** Simulators a second names one by one (a larger fleet: the busiest, by connected). */
export const MAX_SIMULATORS = 50

/**
 * @typedef {import('../collector/types.js').SampleReport} SampleReport
 * @typedef {import('../../lib/schema/result-schema.js').MessageReport} MessageReport
 * @typedef {import('../../lib/schema/result-schema.js').ServerSample} ServerSample
 * @typedef {import('../../lib/schema/result-schema.js').BucketCounts} BucketCounts
 * @typedef {{ p50: number, p99: number, max: number, count: number }} Delay ms
 * @typedef {{ loopMs: number, cpu: number, rssBytes: number, saturated: boolean }} SimHealth
 * @typedef {{ at: number, byTransport: Record<string, number>, byNode?: Record<string, number>, health: SimHealth }} SimState
 * @typedef {{ key: string, namespace: string, room: string | null, event: string, messages: number, received: number, missing: number,
 *   p99: number | null, max: number | null }} Row
 */

/** A fresh fold: feed it, then take() a second at a time. */
export function createSecondFold () {
  /** @type {Map<string, SimState>} */
  const latest = new Map()
  /** @type {ServerSample | null} */
  let server = null
  let part = emptyPart()
  /** @type {Set<string>} */
  let keys = new Set()
  const totals = {
    messages: 0, received: 0, expected: 0, missing: 0, duplicates: 0, misdelivered: 0, echo: 0, emitsSent: 0, emitsAcked: 0, emitsTimedOut: 0, emitsFailed: 0
  }

  return {
    /** @param {string} simId @param {SampleReport} sample */
    observeSample (simId, { timeline, health, figures }) {
      const saturated = isSaturated(health)
      latest.set(simId, {
        at: Date.now(),
        byTransport: { ...timeline.byTransport },
        ...(timeline.byNode ? { byNode: timeline.byNode } : {}),
        health: { loopMs: health.loopDelayP99Ms, cpu: health.cpuPct, rssBytes: health.rssBytes, saturated }
      })
      part.connects += timeline.connects
      part.errors += timeline.errors
      part.disconnects += timeline.disconnects
      part.closed += timeline.closed ?? 0
      if (figures) addFigures(part, figures)
    },
    /** @param {string} _simId @param {MessageReport} report */
    observeMessage (_simId, report) {
      const d = part.delivery
      // Each simulator reports a message it saw: it counts once.
      if (!keys.has(report.key)) {
        if (keys.size >= MAX_KEYS) keys = new Set()
        keys.add(report.key)
        d.messages++
      }
      addDeliveryCounts(d, report)
      part.relative.push(report.relative.histogram)
      if (report.absolute?.count) part.absolute.push(report.absolute)
      addRow(part.rows, report)
    },
    /** @param {ServerSample} sample */
    observeServerSample (sample) { server = sample },
    /**
     * The second so far as an event, and a fresh second begun.
     * @param {number} [now]
     */
    take (now = Date.now()) {
      for (const [id, s] of latest) if (now - s.at > GONE_MS) latest.delete(id)
      const done = part
      part = emptyPart()
      for (const k of /** @type {(keyof typeof done.delivery)[]} */ (Object.keys(done.delivery))) totals[k] += done.delivery[k]
      totals.emitsSent += done.emits.sent
      totals.emitsAcked += done.emits.acked
      totals.emitsTimedOut += done.emits.timedOut
      totals.emitsFailed += done.emits.failed
      return secondEvent(now, latest, done, server, totals)
    }
  }
}

function emptyPart () {
  return {
    connects: 0,
    errors: 0,
    disconnects: 0,
    closed: 0,
    delivery: { messages: 0, ...emptyDeliveryCounts() },
    /** @type {string[]} */ relative: [],
    /** @type {import('../../lib/measure/histogram.js').DelaySummary[]} */ absolute: [],
    /** @type {Map<string, Row>} */ rows: new Map(),
    emits: { sent: 0, acked: 0, timedOut: 0, failed: 0 },
    replies: { sent: 0, replied: 0, timedOut: 0, failed: 0 },
    /** @type {number[]} */ ackBuckets: [],
    /** @type {number[]} */ replyBuckets: [],
    /** @type {Record<string, number>} */ counts: {},
    /** @type {Record<string, number[]>} */ timings: {}
  }
}

/**
 * @param {ReturnType<typeof emptyPart>} part
 * @param {import('../../lib/schema/result-schema.js').SecondFigures} figures
 */
function addFigures (part, figures) {
  for (const k of /** @type {const} */ (['sent', 'acked', 'timedOut', 'failed'])) part.emits[k] += figures.emits[k] ?? 0
  addBuckets(part.ackBuckets, figures.emits.ackTime)
  if (figures.replies) {
    for (const k of /** @type {const} */ (['sent', 'replied', 'timedOut', 'failed'])) part.replies[k] += figures.replies[k] ?? 0
    addBuckets(part.replyBuckets, figures.replies.time)
  }
  for (const [name, n] of Object.entries(figures.custom?.counts ?? {})) part.counts[name] = (part.counts[name] ?? 0) + n
  for (const [name, b] of Object.entries(figures.custom?.timings ?? {})) addBuckets(part.timings[name] ??= [], b)
}

/** @param {number[]} into @param {BucketCounts | undefined} b */
function addBuckets (into, b) {
  if (!b) return
  b.counts.forEach((n, i) => { into[i] = (into[i] ?? 0) + n })
}

/**
 * A percentile of bucket counts: the upper bound of the bucket it falls in, in ms (null: no values).
 * @param {number[]} counts
 * @param {number} q 0..1
 */
export function bucketQuantileMs (counts, q) {
  const total = counts.reduce((s, n) => s + (n ?? 0), 0)
  if (total === 0) return null
  let seen = 0
  for (let i = 0; i < counts.length; i++) {
    seen += counts[i] ?? 0
    if (seen >= q * total) return (DELAY_BUCKETS_SECONDS[i] ?? DELAY_BUCKETS_SECONDS[DELAY_BUCKETS_SECONDS.length - 1] * 2) * 1000
  }
  return null
}

/** @param {number[]} counts */
const bucketDelay = (counts) => (counts.length ? { p50: bucketQuantileMs(counts, 0.5), p99: bucketQuantileMs(counts, 0.99) } : null)

/**
 * @param {Map<string, Row>} rows
 * @param {MessageReport} report
 */
function addRow (rows, report) {
  const namespace = report.namespace ?? '/'
  const room = report.room ?? null
  const key = `${namespace} ${room ?? '*'} ${report.event}`
  let row = rows.get(key)
  if (!row) rows.set(key, row = { key, namespace, room, event: report.event, messages: 0, received: 0, missing: 0, p99: null, max: null })
  row.messages++
  row.received += report.received
  row.missing += report.missing
  row.p99 = Math.max(row.p99 ?? 0, report.relative.p99)
  row.max = Math.max(row.max ?? 0, report.relative.max)
}

/**
 * Exact percentiles of the second's reports merged (their HDR histograms), or null without any.
 * @param {string[]} encoded
 * @returns {Delay | null}
 */
function delayOf (encoded) {
  if (encoded.length === 0) return null
  const merged = mergeEncoded(encoded)
  const s = summarize(merged)
  const release = /** @type {any} */ (merged)
  release.destroy?.()
  return s.count === 0 ? null : { p50: s.p50, p99: s.p99, max: s.max, count: s.count }
}

/**
 * The absolute latency of a second from its reports' own summaries, not their histograms
 * (half the decoding, which is most of the stream's cost): each percentile is the largest of
 * the reports', an upper bound of the merged one. The relative delay, the headline, is merged exactly.
 * @param {import('../../lib/measure/histogram.js').DelaySummary[]} summaries
 * @returns {Delay | null}
 */
function largestOf (summaries) {
  if (summaries.length === 0) return null
  const most = (/** @type {'p50' | 'p99' | 'max'} */ k) => Math.max(...summaries.map((s) => s[k]))
  return { p50: most('p50'), p99: most('p99'), max: most('max'), count: summaries.reduce((n, s) => n + s.count, 0) }
}

/**
 * @param {number} t
 * @param {Map<string, { byTransport: Record<string, number>, byNode?: Record<string, number>, health: SimHealth }>} latest
 * @param {ReturnType<typeof emptyPart>} part
 * @param {ServerSample | null} server
 * @param {Record<string, number>} totals
 */
function secondEvent (t, latest, part, server, totals) {
  /** @type {Record<string, number>} */
  const byTransport = {}
  /** @type {Record<string, number>} */
  const byNode = {}
  /** @type {[string, number][]} */
  const bySimulator = []
  /** @type {Record<string, { loopMs: number, cpu: number, saturated: boolean }>} */
  const health = {}
  for (const [id, s] of latest) {
    let n = 0
    for (const [name, c] of Object.entries(s.byTransport)) { byTransport[name] = (byTransport[name] ?? 0) + c; n += c }
    for (const [name, c] of Object.entries(s.byNode ?? {})) byNode[name] = (byNode[name] ?? 0) + c
    bySimulator.push([id, n])
    health[id] = { loopMs: s.health.loopMs, cpu: s.health.cpu, saturated: s.health.saturated }
  }
  bySimulator.sort((a, b) => b[1] - a[1])
  const named = bySimulator.slice(0, MAX_SIMULATORS)
  const rows = [...part.rows.values()].sort((a, b) => b.messages - a.messages || b.received - a.received)
  return {
    type: 'second',
    t,
    clients: {
      connected: Object.values(byTransport).reduce((s, n) => s + n, 0),
      byTransport,
      bySimulator: Object.fromEntries(named),
      ...(Object.keys(byNode).length ? { byNode } : {}),
      simulators: latest.size,
      connects: part.connects,
      errors: part.errors,
      disconnects: part.disconnects,
      closed: part.closed
    },
    delivery: { ...part.delivery, relative: delayOf(part.relative), absolute: largestOf(part.absolute) },
    rows: rows.slice(0, MAX_ROWS),
    traffic: {
      emits: part.emits,
      ack: bucketDelay(part.ackBuckets),
      ...(part.replies.sent > 0 ? { replies: part.replies, reply: bucketDelay(part.replyBuckets) } : {}),
      ...(Object.keys(part.counts).length ? { counts: part.counts } : {}),
      ...(Object.keys(part.timings).length ? { timings: Object.fromEntries(Object.entries(part.timings).map(([k, c]) => [k, bucketDelay(c)])) } : {})
    },
    health: {
      simulators: Object.fromEntries(named.map(([id]) => [id, health[id]])),
      worstLoopMs: Math.max(0, ...Object.values(health).map((h) => h.loopMs)),
      maxCpu: Math.max(0, ...Object.values(health).map((h) => h.cpu)),
      saturated: Object.values(health).filter((h) => h.saturated).length
    },
    server: server ? { cpu: server.cpuPct, rssBytes: server.rssBytes, loopMs: server.loopDelayP99Ms, connected: server.connected } : null,
    totals: { ...totals }
  }
}
