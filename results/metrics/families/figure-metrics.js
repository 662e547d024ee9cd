/**
 * The clients' own figures, live: emits and how their acks ended, the waits for a reply event,
 * a scenario's ctx.count and ctx.timing. Each simulator's one-second sample carries what
 * happened in that second (its `figures`, simulator/recording/figures.js: the times already in the
 * buckets), added as it comes; its final
 * report then raises its share to the final figures (the acks its clients' close ended after
 * the last sample, a sample lost in a collector outage), so the end equals result.json and
 * nothing counts twice: per simulator, what was added is kept, and only the difference is.
 * Samples of a simulator that has ended are not added any more.
 *
 * The counts are the gauges the final reports set before (`ioswarm_emits_acked`, …): now they
 * move during the run. The times come as histograms fed with whole HDR bucket counts
 * (`ioswarm_emit_ack_latency_seconds`, …); their exact percentiles stay the final reports'
 * (scenario-metrics.js, custom-metrics.js).
 */
import { metricMakers } from '../makers.js'
import { createHdrHistogramMetric } from './hdr-histogram-metric.js'
import { DELAY_BUCKETS_SECONDS, bucketCounts } from '../../../lib/measure/hdr-buckets.js'
import { emitCounts } from '../../merge/scenario-merge.js'
import { CUSTOM_NAME, MAX_CUSTOM_NAMES } from '../../../lib/measure/custom-measures.js'

/**
 * @typedef {import('../../../lib/schema/result-schema.js').SecondFigures} SecondFigures
 * @typedef {import('../../collector/types.js').FinalReport & { simulator: string }} FinalReport
 * @typedef {import('../../../lib/schema/result-schema.js').BucketCounts} Buckets
 * @typedef {{ counts: Map<string, number>, times: Map<string, Buckets> }} Figures counts and times, by series key
 */

const EMIT_FIELDS = /** @type {const} */ ([['sent', 'sent'], ['acked', 'acked'], ['timedOut', 'timed_out'], ['failed', 'failed'], ['closed', 'closed']])
const REPLY_FIELDS = /** @type {const} */ ([['sent', 'sent'], ['replied', 'replied'], ['timedOut', 'timed_out'], ['failed', 'failed']])

/**
 * @param {import('prom-client').Registry} registry
 */
export function createFigureMetrics (registry) {
  const { gauge: g } = metricMakers(registry)
  const so = 'so far: each simulator\'s one-second samples, then its final report'
  /** @type {Map<string, import('prom-client').Gauge<string>>} */
  const gauges = new Map([
    ['emits.sent', g('ioswarm_emits_sent', `Emits the clients sent (--emit, a scenario's emits), ${so}`)],
    ['emits.acked', g('ioswarm_emits_acked', `Emits acked by the server, ${so}`)],
    ['emits.timedOut', g('ioswarm_emits_timed_out', `Emits whose ack never came within --ack-timeout, ${so}`)],
    ['emits.failed', g('ioswarm_emits_failed', `Emits whose connection ended before their ack, ${so}`)],
    ['emits.closed', g('ioswarm_emits_closed', `Emits whose client the swarm closed (a ramp-down, the end) before their ack, ${so}`)],
    ['replies.sent', g('ioswarm_replies_sent', `Emits that waited for a reply event (--reply-event, a scenario's emitAndWait), ${so}`)],
    ['replies.replied', g('ioswarm_replies_replied', `Of them, answered by their reply event, ${so}`)],
    ['replies.timedOut', g('ioswarm_replies_timed_out', `Of them, no reply event within --ack-timeout, ${so}`)],
    ['replies.failed', g('ioswarm_replies_failed', `Of them, the connection ended (or the run) before the reply, ${so}`)]
  ])
  const customCounted = g('ioswarm_custom_counted', `A scenario's ctx.count(name, n): the total ${so}`, ['name'])
  const customRecorded = g('ioswarm_custom_timings_recorded', `A scenario's ctx.timing(name, ms): timings recorded ${so}`, ['name'])
  const histogram = (/** @type {string} */ name, /** @type {string} */ help, /** @type {string[]} */ labelNames = []) =>
    createHdrHistogramMetric({ registry, name, help, labelNames })
  const times = {
    emits: histogram('ioswarm_emit_ack_latency_seconds', `Emit → ack (--emit-ack, a scenario's emitWithAck), ${so}`),
    replies: histogram('ioswarm_reply_latency_seconds', `Emit → reply event (--reply-event, a scenario's emitAndWait), ${so}`),
    custom: histogram('ioswarm_custom_duration_seconds', `A scenario's ctx.timing(name, ms), ${so}`, ['name'])
  }
  /** Custom names with series: the first MAX_CUSTOM_NAMES seen (result.json's merge keeps as many). */
  const names = new Set()
  /** @param {string} name @returns {boolean} the name has its series (later names are left out, as the merge refuses them) */
  const admit = (name) => {
    if (names.has(name)) return true
    if (!CUSTOM_NAME.test(name) || names.size >= MAX_CUSTOM_NAMES) return false
    names.add(name)
    return true
  }
  /** @type {Map<string, { counts: Map<string, number>, buckets: Map<string, Buckets> }>} per simulator: what it added so far */
  const added = new Map()
  /** Simulators whose final report was applied. */
  const ended = new Set()

  /** @param {string} key @returns {[import('prom-client').Gauge<string>, Record<string, string>] | null} */
  function gaugeOf (key) {
    if (key.startsWith('count:')) return [customCounted, { name: key.slice(6) }]
    if (key.startsWith('recorded:')) return [customRecorded, { name: key.slice(9) }]
    const gauge = gauges.get(key)
    return gauge ? [gauge, {}] : null
  }
  /** @param {string} key @returns {[ReturnType<typeof histogram>, Record<string, string>]} */
  const histogramOf = (key) => key.startsWith('custom:') ? [times.custom, { name: key.slice(7) }] : [key === 'emits' ? times.emits : times.replies, {}]

  /**
   * Adds a simulator's figures (a second's), or raises its share to them (its final report's).
   * @param {string} simId
   * @param {Figures} figures
   * @param {boolean} raise
   */
  function apply (simId, figures, raise) {
    let own = added.get(simId)
    if (!own) added.set(simId, (own = { counts: new Map(), buckets: new Map() }))
    for (const [key, n] of figures.counts) {
      const target = gaugeOf(key)
      if (!target || !Number.isFinite(n)) continue
      const before = own.counts.get(key) ?? 0
      const delta = raise ? n - before : n
      if (delta === 0) continue
      target[0].inc(target[1], delta)
      own.counts.set(key, before + delta)
    }
    for (const [key, total] of figures.times) {
      const before = own.buckets.get(key) ?? emptyBuckets()
      const delta = raise ? subtractBuckets(total, before) : total
      if (delta.count === 0) continue
      const [metric, labels] = histogramOf(key)
      metric.addBuckets(labels, delta)
      own.buckets.set(key, sumBuckets([before, delta]))
    }
  }

  return {
    /**
     * A simulator's second (a sample's `figures`); none after its final report.
     * @param {string} simId
     * @param {SecondFigures | undefined} figures
     */
    observeSample (simId, figures) {
      if (figures && !ended.has(simId)) apply(simId, figuresOfSecond(figures, admit), false)
    },
    /**
     * Final reports of every simulator so far: each applied once, raising its share to its final figures.
     * @param {FinalReport[]} finals
     */
    observeFinals (finals) {
      for (const f of finals) {
        if (ended.has(f.simulator)) continue
        ended.add(f.simulator)
        apply(f.simulator, figuresOfFinal(f, admit), true)
      }
    }
  }
}

/**
 * A second's figures by series key (times that are not bucket counts, from a simulator of
 * another version, are left out: its final report brings them).
 * @param {SecondFigures} f
 * @param {(name: string) => boolean} admit
 * @returns {Figures}
 */
function figuresOfSecond (f, admit) {
  /** @type {Figures} */
  const out = { counts: new Map(), times: new Map() }
  /** @param {string} key @param {unknown} b */
  const time = (key, b) => { if (isBuckets(b)) out.times.set(key, b) }
  if (f.emits) {
    for (const [field] of EMIT_FIELDS) out.counts.set(`emits.${field}`, f.emits[field] ?? 0)
    time('emits', f.emits.ackTime)
  }
  if (f.replies) {
    for (const [field] of REPLY_FIELDS) out.counts.set(`replies.${field}`, f.replies[field])
    time('replies', f.replies.time)
  }
  addCustom(out, f.custom, admit, (b) => (isBuckets(b) ? { count: b.count, buckets: b } : null))
  return out
}

/**
 * @param {unknown} b
 * @returns {b is Buckets}
 */
const isBuckets = (b) => {
  const o = /** @type {Partial<Buckets> | null} */ (b)
  return Array.isArray(o?.counts) && o.counts.length === DELAY_BUCKETS_SECONDS.length + 1 && Number.isFinite(o.sumSeconds) && Number.isFinite(o.count)
}

/**
 * A final report's figures by series key: the --emit ones and a scenario's hooks' together (emitCounts).
 * @param {FinalReport} final
 * @param {(name: string) => boolean} admit
 * @returns {Figures}
 */
function figuresOfFinal (final, admit) {
  /** @type {Figures} */
  const out = { counts: new Map(), times: new Map() }
  const scenario = final.scenario
  const counts = emitCounts(scenario)
  for (const [field] of EMIT_FIELDS) out.counts.set(`emits.${field}`, counts[field])
  /** @param {(string | null | undefined)[]} encoded */
  const buckets = (encoded) => sumBuckets(encoded.map((e) => (e ? bucketCounts(e) : null)))
  out.times.set('emits', buckets([scenario?.emits?.ackTime?.histogram, scenario?.hooks?.emits.ackTime?.histogram]))
  const r = scenario?.replies
  if (r) {
    for (const [field] of REPLY_FIELDS) out.counts.set(`replies.${field}`, r[field])
    out.times.set('replies', buckets([r.time?.histogram]))
  }
  addCustom(out, final.custom, admit, (t) => ({ count: t.count, buckets: buckets([t.histogram]) }))
  return out
}

/**
 * A scenario's own counts and timings (ctx.count, ctx.timing), the admitted names: a second's
 * and a final report's alike, each telling how one of its timings reads as a count and buckets.
 * @template T
 * @param {Figures} out
 * @param {{ counts?: Record<string, number>, timings?: Record<string, T> } | null | undefined} custom
 * @param {(name: string) => boolean} admit
 * @param {(timing: T) => { count: number, buckets: Buckets } | null} timed null: left out (not bucket counts)
 */
function addCustom (out, custom, admit, timed) {
  for (const [name, n] of Object.entries(custom?.counts ?? {})) if (admit(name)) out.counts.set(`count:${name}`, n)
  for (const [name, t] of Object.entries(custom?.timings ?? {})) {
    const read = admit(name) ? timed(t) : null
    if (read === null) continue
    out.counts.set(`recorded:${name}`, read.count)
    out.times.set(`custom:${name}`, read.buckets)
  }
}

/** @returns {Buckets} */
const emptyBuckets = () => ({ counts: [], sumSeconds: 0, count: 0 })

/**
 * @param {(Buckets | null)[]} list
 * @returns {Buckets}
 */
function sumBuckets (list) {
  const out = emptyBuckets()
  for (const b of list) {
    if (!b) continue
    b.counts.forEach((n, i) => { out.counts[i] = (out.counts[i] ?? 0) + n })
    out.sumSeconds += b.sumSeconds
    out.count += b.count
  }
  return out
}

/**
 * What `total` has beyond `before`, bucket by bucket (never below 0: a final report holds every value its seconds had).
 * @param {Buckets} total
 * @param {Buckets} before
 * @returns {Buckets}
 */
function subtractBuckets (total, before) {
  const counts = total.counts.map((n, i) => Math.max(0, n - (before.counts[i] ?? 0)))
  return { counts, sumSeconds: Math.max(0, total.sumSeconds - before.sumSeconds), count: counts.reduce((a, n) => a + n, 0) }
}
