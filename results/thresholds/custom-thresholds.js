/**
 * Thresholds on the app's own measurements (a scenario's ctx.timing and ctx.count, lib/measure/custom-measures.js):
 * `custom.NAME.p50|p90|p99|max|mean` (a timing's, the worst distribution's, merged over its
 * simulators, or the worst window's, named) and `custom.NAME.count` (a count's sum, or a timing's
 * number of timings, over every distribution; a capacity step's over the windows of its hold). No data = the threshold fails, as every other metric.
 */
import { CUSTOM_NAME } from '../../lib/measure/custom-measures.js'
import { formatMs } from '../../lib/text/format.js'
import { countsOf, worstTime } from './scenario-thresholds.js'

/** @typedef {{ timings: Record<string, import('../../lib/measure/histogram.js').DelaySummary>, counts: Record<string, number> }} CustomFigures a run's, a distribution's or a window's */

/** What a custom metric may read of a figure: a timing's percentiles, or a count. */
const CUSTOM_STATS = Object.freeze(['p50', 'p90', 'p99', 'max', 'mean', 'count'])

/** The help line of the custom metrics. */
export const CUSTOM_HELP = 'custom.NAME.p50|p90|p99|max|mean  a scenario\'s ctx.timing(NAME, ms), worst distribution (ms, s); ' +
  'custom.NAME.count  a ctx.count(NAME, n) total, or how many timings of NAME (a whole count)'

/**
 * The metric's kind, when it is a custom one (`custom.NAME.STAT`); a usage error otherwise.
 * @param {string} metric what comes before the operator
 * @param {(problem: string) => Error} bad the flag's error
 * @returns {'delay' | 'count'}
 */
export function customMetricKind (metric, bad) {
  const rest = metric.slice('custom.'.length)
  const dot = rest.lastIndexOf('.')
  const name = dot < 0 ? rest : rest.slice(0, dot)
  const stat = dot < 0 ? '' : rest.slice(dot + 1)
  if (!CUSTOM_NAME.test(name)) {
    throw bad(`has a custom figure name ${JSON.stringify(name)}: ` +
      'a name is a letter, then letters, digits or _ (64 at most), as ctx.timing and ctx.count take it')
  }
  if (!CUSTOM_STATS.includes(stat)) {
    throw bad(`reads ${JSON.stringify(stat)} of custom.${name}: write custom.${name}.STAT with STAT one of ${CUSTOM_STATS.join(', ')}`)
  }
  return stat === 'count' ? 'count' : 'delay'
}

/**
 * @param {import('../../lib/schema/result-schema.js').RunResult} result
 * @param {string} metric custom.NAME.STAT, checked by customMetricKind
 * @returns {{ value: number | null, actual: string }}
 */
export function measureCustom (result, metric) {
  const rest = metric.slice('custom.'.length)
  const name = rest.slice(0, rest.lastIndexOf('.'))
  const stat = /** @type {'p50' | 'p90' | 'p99' | 'max' | 'mean' | 'count'} */ (rest.slice(rest.lastIndexOf('.') + 1))
  const known = (/** @type {Record<string, unknown> | undefined} */ record) => record !== undefined && Object.hasOwn(record, name)
  const timingIn = (/** @type {CustomFigures | undefined} */ c) => (known(c?.timings) ? c?.timings[name] : undefined)
  const countIn = (/** @type {CustomFigures | undefined} */ c) => (known(c?.counts) ? c?.counts[name] : undefined)
  // The run's figures, or a capacity step's (only the windows of its hold): summed over its windows.
  const figures = result.distributions.flatMap((d) =>
    countsOf(d, (d) => (d.custom ? figureOf(d.custom) : null), (w) => (w.custom ? figureOf(w.custom) : null), ['timings', 'counts']) ?? [])
  const isTiming = figures.some((f) => f.timings > 0)
  const isCount = result.distributions.some((d) => countIn(d.custom) !== undefined || (d.windows ?? []).some((w) => countIn(w.custom) !== undefined))
  const recorded = result.distributions.some((d) => d.custom || (d.windows ?? []).some((w) => w.custom))
  const noData = `${metric}: no data (no hook recorded ${name}${recorded ? '' : '; no hook recorded any custom figure'})`
  if (stat === 'count') {
    if (!isTiming && !isCount) return { value: null, actual: noData }
    const total = figures.reduce((sum, f) => sum + f.timings + f.counts, 0)
    return { value: total, actual: `${metric} ${total}${isTiming ? ' timings' : ''}` }
  }
  const worst = worstTime(result, stat, (d) => timingIn(d.custom), (w) => timingIn(w.custom))
  if (worst === null) return { value: null, actual: isCount ? `${metric}: ${name} is a count, not a timing: custom.${name}.count` : noData }
  return { value: worst.value, actual: `${metric} ${formatMs(worst.value)} (${worst.where}, ${worst.count} timings)` }

  /**
   * One record's figures of `name`: how many timings, and its count.
   * @param {CustomFigures} c
   */
  function figureOf (c) {
    return { timings: timingIn(c)?.count ?? 0, counts: countIn(c) ?? 0 }
  }
}
