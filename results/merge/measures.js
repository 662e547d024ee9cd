/**
 * The one merge of what simulators measured besides their messages and samples (lib/schema/result-schema.js
 * SimMeasures: client counts, health summary, joins and emits, destinations, source addresses,
 * the recorder's costs, churn, nodes, the hooks' own figures), field by field as MERGE_RULES says. `simulate --workers`
 * (mergeSimResults) and a run (buildDistribution, from the final reports) both use it, so a
 * field the schema gains reaches both, and a run's result.json, at once.
 */
import { encode, mergeEncoded, percentileCurve, summarize } from '../../lib/measure/histogram.js'
import { mergeCustomReports } from '../../lib/measure/custom-measures.js'
import { mergeNodeReports } from '../../lib/input/node-from.js'
import { mergeReasonCounts } from '../../lib/reasons.js'
import { MERGE_RULES, WINDOW_MERGE_RULES } from '../../lib/schema/result-schema.js'
import { sumByAddress } from '../../lib/input/source-addresses.js'
import { mergeNamespaceCounts, mergeScenarioReports } from './scenario-merge.js'

/**
 * @typedef {import('../../lib/schema/result-schema.js').SimMeasures} SimMeasures
 * @typedef {import('../../lib/schema/result-schema.js').SimResult} SimResult
 * @typedef {import('../../lib/schema/result-schema.js').MergeRule} MergeRule
 */

/**
 * @template T
 * @param {T[]} list
 * @param {(item: T) => number} pick
 */
export function sumOf (list, pick) {
  return list.reduce((sum, item) => sum + pick(item), 0)
}

/**
 * Sums records key by key, numbers at any depth (byTransport's { target, connected, upgraded }).
 * @template {Record<string, any>} T
 * @param {T[]} records
 * @returns {T}
 */
export function sumRecords (records) {
  /** @type {Record<string, any>} */
  const out = {}
  for (const record of records) {
    for (const [key, value] of Object.entries(record)) {
      out[key] = typeof value === 'number' ? (out[key] ?? 0) + value : sumRecords([out[key] ?? {}, value])
    }
  }
  return /** @type {T} */ (out)
}

/**
 * A merged histogram as a result's encoded delay.
 * @param {import('../../lib/measure/histogram.js').Histogram} histogram
 */
export function encodedDelay (histogram) {
  return { ...summarize(histogram), histogram: encode(histogram) }
}

/** @param {any[]} values */
const present = (values) => values.filter((v) => v !== undefined && v !== null)

/**
 * Each rule's merge of one field's values over processes (undefined where a process has none);
 * undefined: the field is left out (no process had it).
 * @type {Record<MergeRule, (values: any[]) => unknown>}
 */
const MERGE = {
  sum: (values) => sumOf(present(values), (v) => v),
  max: (values) => (present(values).length === 0 ? undefined : Math.max(...present(values))),
  first: (values) => present(values)[0],
  counts: (values) => sumRecords(present(values)),
  // Always there, as a simulator's own are: {} when no process counted any.
  reasons: (values) => mergeReasonCounts(values.map((v) => v ?? {})),
  storms: (values) => ({
    list: present(values).flatMap((s) => s.list).sort((a, b) => a.startedAt - b.startedAt),
    more: sumOf(present(values), (s) => s.more)
  }),
  namespaces: (values) => mergeNamespaceCounts(values),
  delay: (values) => (present(values).length === 0 ? undefined : encodedDelay(mergeEncoded(present(values).map((v) => v.histogram)))),
  delayCurve: (values) => {
    const merged = mergeEncoded(present(values).map((v) => v.histogram))
    return { ...encodedDelay(merged), curve: percentileCurve(merged) }
  },
  byUrl: (values) => (present(values).length === 0 ? undefined : byUrl(present(values).flat())),
  byAddress: (values) => (present(values).length === 0 ? undefined : sumByAddress(present(values).flat())),
  scenario: (values) => mergeScenarioReports(values),
  nodes: (values) => mergeNodeReports(values),
  custom: (values) => mergeCustomReports(values)
}

/**
 * Destinations added per URL, in order of first appearance.
 * @param {{ url: string, target: number, connected: number, everConnected: number }[]} list
 */
function byUrl (list) {
  /** @type {Map<string, { url: string, target: number, connected: number, everConnected: number }>} */
  const by = new Map()
  for (const d of list) {
    const into = by.get(d.url) ?? { url: d.url, target: 0, connected: 0, everConnected: 0 }
    by.set(d.url, { url: d.url, target: into.target + d.target, connected: into.connected + d.connected, everConnected: into.everConnected + d.everConnected })
  }
  return [...by.values()]
}

/**
 * Merges objects field by field, each by its rule; a field no process had stays out.
 * @param {{ readonly [field: string]: MergeRule | { readonly [field: string]: MergeRule } }} rules (a nested record of rules: its fields merged each by its rule)
 * @param {any[]} objects
 * @returns {Record<string, unknown> | undefined} undefined when no process had the object
 */
function mergeFields (rules, objects) {
  const list = present(objects)
  if (list.length === 0) return undefined
  /** @type {Record<string, unknown>} */
  const out = {}
  for (const [field, rule] of Object.entries(rules)) {
    const values = list.map((o) => o[field])
    const merged = typeof rule === 'string' ? MERGE[/** @type {MergeRule} */ (rule)](values) : mergeFields(rule, values)
    if (merged !== undefined) out[field] = merged
  }
  return out
}

/**
 * The measures of several processes merged into one: those of one simulator's workers, or of
 * a run's simulators (their final reports).
 * @param {SimMeasures[]} list
 * @returns {SimMeasures}
 */
export function mergeSimMeasures (list) {
  /** @type {Record<string, unknown>} */
  const out = {}
  for (const [field, rule] of Object.entries(MERGE_RULES)) {
    const values = list.map((m) => /** @type {Record<string, unknown>} */ (m)[field])
    const merged = typeof rule === 'string' ? MERGE[rule](values) : mergeFields(rule, values)
    if (merged !== undefined) out[field] = merged
  }
  return /** @type {SimMeasures} */ (/** @type {unknown} */ (out))
}

/**
 * Window reports of the same window (same index) from several processes merged into one, field
 * by field as WINDOW_MERGE_RULES says: counts summed, histograms merged (true percentiles).
 * @param {import('../../lib/schema/result-schema.js').WindowReport[]} reports
 * @returns {import('../../lib/schema/result-schema.js').WindowReport}
 */
export function mergeWindowReports (reports) {
  return /** @type {import('../../lib/schema/result-schema.js').WindowReport} */ (/** @type {unknown} */ (mergeFields(WINDOW_MERGE_RULES, reports)))
}

/**
 * Windows of several processes merged window by window (by index), oldest first.
 * @param {import('../../lib/schema/result-schema.js').WindowReport[][]} lists each process's windows
 * @returns {import('../../lib/schema/result-schema.js').WindowReport[]}
 */
export function mergeWindowLists (lists) {
  /** @type {Map<number, import('../../lib/schema/result-schema.js').WindowReport[]>} */
  const byIndex = new Map()
  for (const report of lists.flat()) byIndex.set(report.index, [...(byIndex.get(report.index) ?? []), report])
  return [...byIndex].sort((a, b) => a[0] - b[0]).map(([, reports]) => mergeWindowReports(reports))
}

/**
 * A merged window as result.json keeps it: its delays as summaries, histograms dropped.
 * @param {import('../../lib/schema/result-schema.js').WindowReport} report
 * @returns {import('../../lib/schema/result-schema.js').WindowResult}
 */
export function windowRow (report) {
  const { histogram: _r, ...relative } = report.relative
  const { histogram: _a, ...absolute } = report.absolute
  const { histogram: _t, ...ackTime } = report.emits.ackTime
  // Timings without their histograms: the summaries are what a run keeps.
  /** @param {Record<string, import('../../lib/schema/result-schema.js').EncodedDelay>} all */
  const summaries = (all) => Object.fromEntries(Object.entries(all).map(([name, { histogram, ...t }]) => [name, t]))
  const custom = report.custom && { ...report.custom, timings: summaries(report.custom.timings) }
  const replies = report.replies && { ...report.replies, time: (({ histogram, ...t }) => t)(report.replies.time) }
  return { ...report, relative, absolute, emits: { ...report.emits, ackTime }, ...(custom ? { custom } : {}), ...(replies ? { replies } : {}) }
}

/**
 * A simulator result's measures: what its final report carries to a run's collector.
 * @param {SimResult} result
 * @returns {SimMeasures}
 */
export function measuresOf (result) {
  /** @type {Record<string, unknown>} */
  const out = {}
  for (const field of Object.keys(MERGE_RULES)) {
    const value = field === 'health' ? result.health.summary : /** @type {Record<string, unknown>} */ (/** @type {unknown} */ (result))[field]
    if (value !== undefined) out[field] = value
  }
  return /** @type {SimMeasures} */ (/** @type {unknown} */ (out))
}

/**
 * A simulator's final report to a run's collector: its measures, whole (histograms too: the
 * run merges them over its simulators as --workers does), its clock and its end.
 * @param {SimResult} result
 * @returns {import('../collector/types.js').FinalReport}
 */
export function finalReportOf (result) {
  // --phases: the steps as this simulator ran them (the run sums them and labels its windows).
  const phased = result.phases ? { phases: result.phases, rampedDown: result.rampedDown ?? 0 } : {}
  return { ...measuresOf(result), clock: result.clock, endedAt: result.endedAt, ...phased }
}
