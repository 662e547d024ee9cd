/**
 * Thresholds on the app's own measurements (a scenario's ctx.timing and ctx.count, lib/custom.js):
 * `custom.NAME.p50|p90|p99|max|mean` (a timing's, the worst distribution's, merged over its
 * simulators) and `custom.NAME.count` (a count's sum, or a timing's number of timings, over
 * every distribution). No data = the threshold fails, as every other metric.
 */
import { CUSTOM_NAME } from '../lib/custom.js'
import { formatMs } from '../lib/format.js'

/** What a custom metric may read of a figure: a timing's percentiles, or a count. */
export const CUSTOM_STATS = Object.freeze(['p50', 'p90', 'p99', 'max', 'mean', 'count'])

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
    throw bad(`has a custom figure name ${JSON.stringify(name)}: a name is a letter, then letters, digits or _ (64 at most), as ctx.timing and ctx.count take it`)
  }
  if (!CUSTOM_STATS.includes(stat)) throw bad(`reads ${JSON.stringify(stat)} of custom.${name}: write custom.${name}.STAT with STAT one of ${CUSTOM_STATS.join(', ')}`)
  return stat === 'count' ? 'count' : 'delay'
}

/**
 * @param {import('../lib/schema.js').RunResult} result
 * @param {string} metric custom.NAME.STAT, checked by customMetricKind
 * @returns {{ value: number | null, actual: string }}
 */
export function measureCustom (result, metric) {
  const rest = metric.slice('custom.'.length)
  const name = rest.slice(0, rest.lastIndexOf('.'))
  const stat = /** @type {'p50' | 'p90' | 'p99' | 'max' | 'mean' | 'count'} */ (rest.slice(rest.lastIndexOf('.') + 1))
  const known = (/** @type {Record<string, unknown> | undefined} */ record) => record !== undefined && Object.hasOwn(record, name)
  const figures = result.distributions.map((d) => ({
    d: d.name,
    timing: known(d.custom?.timings) ? d.custom?.timings[name] : undefined,
    count: known(d.custom?.counts) ? d.custom?.counts[name] : undefined
  }))
  const noData = `${metric}: no data (no hook recorded ${name}${result.distributions.some((d) => d.custom) ? '' : '; no hook recorded any custom figure'})`
  if (stat === 'count') {
    const seen = figures.filter((f) => f.timing !== undefined || f.count !== undefined)
    if (seen.length === 0) return { value: null, actual: noData }
    const total = seen.reduce((sum, f) => sum + (f.count ?? f.timing?.count ?? 0), 0)
    return { value: total, actual: `${metric} ${total}${seen.some((f) => f.timing) ? ' timings' : ''}` }
  }
  /** @type {{ value: number, where: string, count: number } | null} */
  let worst = null
  for (const f of figures) {
    if (!f.timing || f.timing.count === 0) continue
    if (worst === null || f.timing[stat] > worst.value) worst = { value: f.timing[stat], where: f.d, count: f.timing.count }
  }
  if (worst === null) {
    const isCount = figures.some((f) => f.count !== undefined)
    return { value: null, actual: isCount ? `${metric}: ${name} is a count, not a timing: custom.${name}.count` : noData }
  }
  return { value: worst.value, actual: `${metric} ${formatMs(worst.value)} (${worst.where}, ${worst.count} timings)` }
}
