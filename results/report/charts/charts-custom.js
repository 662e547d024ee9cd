/**
 * A hook's own figures per window (a scenario's ctx.timing and ctx.count, lib/measure/custom-measures.js): each
 * timing's p50 and p99 per window, and each count per window, on the per-window axis of the
 * other window charts (phases shaded). Drawn only when the windows hold such figures; the names
 * with the most records first, the rest named in the caption (the custom figures table lists all).
 */
import { axis, bandAxis, chartConfig, color, line, spec } from './chart-config.js'
import { X_WINDOWS, dots, labelsOf, phaseBands } from './charts-windows.js'

/**
 * @typedef {import('../../../lib/schema/result-schema.js').DistributionResult} DistributionResult
 * @typedef {import('../../../lib/schema/result-schema.js').WindowResult} WindowResult
 * @typedef {import('../html.js').ChartSpec} ChartSpec
 */

/** The charts of custom figures, when a distribution's windows hold them: their names end these. */
export const CUSTOM_CHART_KINDS = Object.freeze(['custom-timings', 'custom-counts'])

/** Names drawn per chart: a line pair (or bar) each; more would bury one another. */
const MAX_NAMES = 6

/**
 * The custom figure charts of a windowed distribution: none without custom figures in its windows.
 * @param {DistributionResult} d
 * @param {string} prefix
 * @returns {ChartSpec[]}
 */
export function customWindowCharts (d, prefix) {
  const windows = d.windows ?? []
  const timings = namesOf(windows, (w) => Object.entries(w.custom?.timings ?? {}).map(([name, t]) => [name, t.count]))
  const counts = namesOf(windows, (w) => Object.entries(w.custom?.counts ?? {}))
  const bands = phaseBands(d, windows)
  const seconds = windows.length ? (windows[0].endAt - windows[0].startAt) / 1000 : 0
  const axes = { labels: labelsOf(windows), bands, shaded: bands.length ? { band: bandAxis() } : {}, seconds }
  return [
    ...(timings.length > 0 ? [timingsChart(windows, timings, prefix, axes)] : []),
    ...(counts.length > 0 ? [countsChart(windows, counts, prefix, axes)] : [])
  ]
}

/**
 * @typedef {{ labels: string[], bands: Record<string, any>[], shaded: Record<string, unknown>, seconds: number }} WindowAxes
 */

/**
 * p50 (solid) and p99 (dashed) of each timing name per window, a colour per name.
 * @param {WindowResult[]} windows
 * @param {string[]} names the most recorded first
 * @param {string} prefix
 * @param {WindowAxes} axes
 */
function timingsChart (windows, names, prefix, { labels, bands, shaded, seconds }) {
  const stat = (/** @type {string} */ name, /** @type {'p50' | 'p99'} */ p) => windows.map((w) => nonEmpty(own(w.custom?.timings, name))?.[p] ?? null)
  const config = chartConfig('line', {
    labels,
    datasets: [
      ...names.slice(0, MAX_NAMES).flatMap((name, k) => [
        line(`${name} p50`, stat(name, 'p50'), color(k), { pointRadius: dots(windows) }),
        line(`${name} p99`, stat(name, 'p99'), color(k), { pointRadius: dots(windows), borderDash: [5, 4] })
      ]),
      ...bands
    ]
  }, { x: X_WINDOWS, y: axis('time (ms)', { beginAtZero: true }), ...shaded })
  return spec(`${prefix}-custom-timings`, 'Custom timings per window',
    'a scenario\'s ctx.timing(name, ms): p50 (solid) and p99 (dashed) of the timings recorded in each ' +
    `${seconds} s window, merged over the simulators${more(names)}`,
    config, 'no data: no timing in any window')
}

/**
 * What each count name added per window, a bar per name.
 * @param {WindowResult[]} windows
 * @param {string[]} names the most counted first
 * @param {string} prefix
 * @param {WindowAxes} axes
 */
function countsChart (windows, names, prefix, { labels, bands, shaded, seconds }) {
  const config = chartConfig('bar', {
    labels,
    datasets: [
      ...names.slice(0, MAX_NAMES).map((name, k) => ({
        label: name,
        data: windows.map((w) => own(w.custom?.counts, name) ?? 0),
        backgroundColor: color(k),
        yAxisID: 'y'
      })),
      ...bands
    ]
  }, { x: X_WINDOWS, y: axis('count', { beginAtZero: true, ticks: { precision: 0 } }), ...shaded })
  return spec(`${prefix}-custom-counts`, 'Custom counts per window',
    `a scenario's ctx.count(name, n): what was added in each ${seconds} s window, summed over the simulators${more(names)}`,
    config, 'no data: no count in any window')
}

/**
 * The names recorded in any window, the most recorded first (ties by name).
 * @param {WindowResult[]} windows
 * @param {(w: WindowResult) => [string, number][]} entries name → records (timings, or the count) in one window
 */
function namesOf (windows, entries) {
  /** @type {Map<string, number>} */
  const totals = new Map()
  for (const w of windows) for (const [name, n] of entries(w)) totals.set(name, (totals.get(name) ?? 0) + n)
  return [...totals].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([name]) => name)
}

/**
 * A record's own figure of a name (a name read from JSON is data, never a prototype's property).
 * @template T
 * @param {Record<string, T> | undefined} record
 * @param {string} name
 * @returns {T | undefined}
 */
const own = (record, name) => (record !== undefined && Object.hasOwn(record, name) ? record[name] : undefined)

/**
 * @param {import('../../../lib/measure/histogram.js').DelaySummary | undefined} t
 */
const nonEmpty = (t) => (t && t.count > 0 ? t : undefined)

/** `; 3 more names in the custom figures table` */
const more = (/** @type {string[]} */ names) => (names.length > MAX_NAMES
  ? `; the ${MAX_NAMES} with the most records shown, ${names.length - MAX_NAMES} more in the custom figures table`
  : '')
