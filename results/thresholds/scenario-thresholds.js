/**
 * The thresholds of application scenarios: wrong and second copies of messages,
 * emit → ack times, emits that timed out, joins that failed, emit → reply event times (--reply-event). Measured over a RunResult as
 * thresholds.js measures the others: totals over every distribution, delays the worst
 * distribution's (merged over its simulators) or, without rounds, the worst window's, no data = the threshold fails.
 * A result with windows and no whole-run figures (a capacity step: the windows of its hold) is measured over them.
 */
import { formatMs } from '../../lib/text/format.js'
import { windowLabel, worstWindow } from '../../lib/text/window-text.js'
import { deliveryFaults } from '../merge/delivery-rows.js'
import { ackTimeOf, emitCounts } from '../merge/scenario-merge.js'

/**
 * @typedef {import('../../lib/schema/result-schema.js').RunResult} RunResult
 * @typedef {import('../../lib/schema/result-schema.js').DistributionResult} DistributionResult
 * @typedef {import('../../lib/schema/result-schema.js').WindowResult} WindowResult
 * @typedef {import('../../lib/measure/histogram.js').DelaySummary} DelaySummary
 * @typedef {{ value: number | null, actual: string }} Measure
 */

/** The metrics of this module, as rows of the METRICS table. */
export const SCENARIO_METRICS = Object.freeze({
  misdelivered: {
    kind: /** @type {const} */ ('share'),
    describe: 'copies delivered to clients not in the message\'s target room, total (count, or % of the copies that arrived)'
  },
  duplicated: { kind: /** @type {const} */ ('share'), describe: 'second copies of a message to one client, total (count, or % of the copies that arrived)' },
  echo: {
    kind: /** @type {const} */ ('share'),
    describe: 'copies of a line back to the client that emitted it (not received: no one expects their own line), total (count, or % of the copies that arrived)'
  },
  ...Object.fromEntries(['p50', 'p90', 'p99', 'max'].map((p) => [`ack.${p}`, {
    kind: /** @type {const} */ ('delay'),
    describe: `emit → ack time ${p} (--emit --emit-ack and a scenario's emitWithAck, merged over a distribution's simulators), worst distribution`
  }])),
  'ack.timeouts': { kind: /** @type {const} */ ('share'), describe: 'emits whose ack never came within --ack-timeout, total (count, or % of the emits sent)' },
  'join.failed': {
    kind: /** @type {const} */ ('share'),
    describe: '--join emits refused by the server or cut by a disconnect, total (count, or % of the joins sent)'
  },
  ...Object.fromEntries(['p50', 'p90', 'p99', 'max'].map((p) => [`reply.${p}`, {
    kind: /** @type {const} */ ('delay'),
    describe: `emit → reply event time ${p} (--reply-event, a scenario's emitAndWait, merged over a distribution's simulators), worst distribution`
  }])),
  'reply.timeouts': {
    kind: /** @type {const} */ ('share'),
    describe: 'emits whose reply event never came within --ack-timeout, total (count, or % of the emits that waited)'
  }
})

/**
 * @param {RunResult} result
 * @param {string} metric one of SCENARIO_METRICS
 * @param {'ms' | '%' | 'count'} unit
 * @returns {Measure}
 */
export function measureScenario (result, metric, unit) {
  if (metric === 'misdelivered' || metric === 'duplicated' || metric === 'echo') return measureFaults(result, metric, unit)
  if (metric === 'ack.timeouts') return measureTimeouts(result, unit)
  if (metric === 'join.failed') return measureJoins(result, unit)
  if (metric === 'reply.timeouts') return measureReplyTimeouts(result, unit)
  if (metric.startsWith('reply.')) return measureReply(result, metric)
  return measureAck(result, metric)
}

/**
 * @param {number} count
 * @param {number} total
 * @param {'ms' | '%' | 'count'} unit
 * @param {string} text e.g. 'misdelivered 3 of 120 copies'
 * @returns {Measure}
 */
function shareOf (count, total, unit, text) {
  const pct = total > 0 ? count / total * 100 : null
  return { value: unit === '%' ? pct : count, actual: `${text}${pct === null ? '' : ` (${formatPct(pct)})`}` }
}

/**
 * @param {RunResult} result
 * @param {'misdelivered' | 'duplicated' | 'echo'} metric
 * @param {'ms' | '%' | 'count'} unit
 */
function measureFaults (result, metric, unit) {
  const faults = result.distributions.flatMap((d) => deliveryFaults(d) ?? [])
  const copies = faults.reduce((s, f) => s + f.copies, 0)
  if (copies === 0) return { value: null, actual: `${metric}: no data (${faults.length === 0 ? 'the result predates delivery checks' : 'no message arrived'})` }
  const count = faults.reduce((s, f) => s + f[metric], 0)
  return shareOf(count, copies, unit, `${metric} ${count} of ${copies} copies that arrived`)
}

/**
 * @param {RunResult} result
 * @param {'ms' | '%' | 'count'} unit
 */
function measureTimeouts (result, unit) {
  let sent = 0
  let timedOut = 0
  let acking = false
  for (const d of result.distributions) {
    const counts = countsOf(d, (d) => (d.scenario ? emitCounts(d.scenario) : null), (w) => w.emits, ['sent', 'acked', 'timedOut', 'failed', 'closed'])
    if (!counts) continue
    sent += counts.sent
    timedOut += counts.timedOut
    // Emits wait for acks with --emit-ack, or when a scenario's emitWithAck got an answer or none.
    acking ||= Boolean(d.scenario?.emits?.ackTime) || (!d.scenario && (d.windows ?? []).some((w) => w.emits.ackTime.count > 0)) ||
      counts.acked + counts.timedOut + counts.failed + counts.closed > 0
  }
  const noData = sent === 0 ? 'no client emitted' : 'no emit waited for an ack: --emit-ack'
  if (sent === 0 || !acking) return { value: null, actual: `ack.timeouts: no data (${noData})` }
  return shareOf(timedOut, sent, unit, `ack.timeouts ${timedOut} of ${sent} emits sent`)
}

/**
 * @param {RunResult} result
 * @param {'ms' | '%' | 'count'} unit
 */
function measureJoins (result, unit) {
  const joins = result.distributions.flatMap((d) => (d.scenario?.joins ? [d.scenario.joins] : []))
  const sent = joins.reduce((s, j) => s + j.sent, 0)
  if (sent === 0) return { value: null, actual: 'join.failed: no data (no --join was sent)' }
  const failed = joins.reduce((s, j) => s + j.failed, 0)
  return shareOf(failed, sent, unit, `join.failed ${failed} of ${sent} joins sent`)
}

/**
 * The worst distribution's emit → ack percentile, or the worst window's.
 * @param {RunResult} result
 * @param {string} metric ack.p50 … ack.max
 * @returns {Measure}
 */
function measureAck (result, metric) {
  const stat = /** @type {'p50' | 'p90' | 'p99' | 'max'} */ (metric.slice(4))
  const worst = worstTime(result, stat, (d) => ackTimeOf(d.scenario), (w) => w.emits.ackTime)
  if (!worst) return { value: null, actual: `${metric}: no data (no emit was acked: --emit with --emit-ack, or a scenario's emitWithAck)` }
  return { value: worst.value, actual: `${metric} ${formatMs(worst.value)} (${worst.where}, ${worst.count} acks)` }
}

/**
 * A time's worst percentile over a run (acks, replies, a hook's timings): the worst distribution's
 * (merged over its simulators), or, without rounds, the worst window's when it is as bad or worse,
 * named (a window holds its own figures only). A capacity step holds only its windows.
 * @param {RunResult} result
 * @param {'p50' | 'p90' | 'p99' | 'max' | 'mean'} stat
 * @param {(d: DistributionResult) => DelaySummary | null | undefined} whole the distribution's
 * @param {(w: WindowResult) => DelaySummary | null | undefined} inWindow a window's
 * @returns {{ value: number, where: string, count: number } | null} null: no data
 */
export function worstTime (result, stat, whole, inWindow) {
  /** @type {{ value: number, where: string, count: number } | null} */
  let worst = null
  for (const d of result.distributions) {
    const time = whole(d)
    if (time && time.count > 0 && (worst === null || time[stat] > worst.value)) worst = { value: time[stat], where: d.name, count: time.count }
    const w = worstWindow(d.windows, (w) => {
      const t = inWindow(w)
      return t && t.count > 0 ? t[stat] : null
    })
    if (w !== null && (worst === null || w.value >= worst.value)) {
      worst = { value: w.value, where: `${windowLabel(w.window)}, ${d.name}`, count: /** @type {DelaySummary} */ (inWindow(w.window)).count }
    }
  }
  return worst
}

/**
 * A count over a distribution: its whole-run figure, or, when it has none and has windows (a
 * capacity step holds only the windows of its hold), the sum over its windows.
 * @template {string} K
 * @param {DistributionResult} d
 * @param {(d: DistributionResult) => Partial<Record<K, unknown>> | null} whole null: no whole-run figure
 * @param {(w: WindowResult) => Partial<Record<K, unknown>> | null | undefined} inWindow
 * @param {K[]} keys what to add up
 * @returns {Record<K, number> | null} null: neither
 */
export function countsOf (d, whole, inWindow, keys) {
  const own = whole(d)
  /** @type {Partial<Record<K, unknown>>[]} */
  const parts = own ? [own] : []
  for (const w of own ? [] : d.windows ?? []) {
    const part = inWindow(w)
    if (part) parts.push(part)
  }
  if (parts.length === 0) return null
  return /** @type {Record<K, number>} */ (Object.fromEntries(keys.map((k) => [k, parts.reduce((n, p) => n + Number(p[k] ?? 0), 0)])))
}

/**
 * @param {RunResult} result
 * @param {'ms' | '%' | 'count'} unit
 */
function measureReplyTimeouts (result, unit) {
  const replies = result.distributions.flatMap((d) => countsOf(d, (d) => d.scenario?.replies ?? null, (w) => w.replies, ['sent', 'timedOut']) ?? [])
  const sent = replies.reduce((s, r) => s + r.sent, 0)
  if (sent === 0) return { value: null, actual: 'reply.timeouts: no data (no emit waited for a reply event: --reply-event, emitAndWait)' }
  const timedOut = replies.reduce((s, r) => s + r.timedOut, 0)
  return shareOf(timedOut, sent, unit, `reply.timeouts ${timedOut} of ${sent} emits that waited`)
}

/**
 * The worst distribution's emit → reply percentile, or the worst window's.
 * @param {RunResult} result
 * @param {string} metric reply.p50 … reply.max
 * @returns {Measure}
 */
function measureReply (result, metric) {
  const stat = /** @type {'p50' | 'p90' | 'p99' | 'max'} */ (metric.slice(6))
  const worst = worstTime(result, stat, (d) => d.scenario?.replies?.time, (w) => w.replies?.time)
  if (!worst) return { value: null, actual: `${metric}: no data (no reply event came: --reply-event, or a scenario's emitAndWait)` }
  return { value: worst.value, actual: `${metric} ${formatMs(worst.value)} (${worst.where}, ${worst.count} replies)` }
}

/** @param {number} pct */
export function formatPct (pct) {
  return `${Number(pct.toFixed(pct >= 10 ? 1 : 3))}%`
}
