/**
 * The comparison report, after the original 2012 study's chart: average delay and p99
 * relative delay per round, every distribution of every run side by side as one series.
 */
import { formatMs } from '../../lib/text/format.js'
import { formatDate } from '../text/summary.js'
import { axis, chartConfig, color, spec } from './charts/chart-config.js'
import { escapeHtml, htmlTable } from './html.js'

/**
 * @typedef {import('../../lib/schema/result-schema.js').RunResult} RunResult
 * @typedef {object} CompareSeries one distribution of one run
 * @property {string} label run label + distribution name, e.g. `baseline 10x1000`
 * @property {RunResult} run
 * @property {{ round: number | null, plan: string, messages: number, avgMs: number | null, meanMs: number | null, p99Ms: number | null, maxMs: number | null, missing: number, expected: number }[]} rounds
 *   round null: every message of a distribution without rounds (a simulate result of an app's own traffic)
 */

/**
 * @param {RunResult[]} results
 * @param {string[]} labels one per result; defaults to the run names
 * @returns {CompareSeries[]}
 */
export function compareSeries (results, labels) {
  return results.flatMap((run, i) => run.distributions.map((d) => ({
    label: `${labels[i] ?? run.run.name} ${d.name}`,
    run,
    rounds: d.rounds.length === 0 && d.deliveries ? [allMessages(d.deliveries.total)] : d.rounds.map(roundRow)
  })))
}

/**
 * @param {import('../../lib/schema/result-schema.js').RoundResult} r
 * @returns {CompareSeries['rounds'][number]}
 */
function roundRow (r) {
  const seen = r.relative.count > 0
  return {
    round: r.round,
    plan: r.count ? `${r.count} × ${r.intervalMs} ms` : '-',
    messages: r.messages,
    avgMs: seen ? r.avgOfAverages.relativeMs : null,
    meanMs: seen ? r.relative.mean : null,
    p99Ms: seen ? r.relative.p99 : null,
    maxMs: seen ? r.relative.max : null,
    missing: r.missing,
    expected: r.expected
  }
}

/**
 * Every message of a distribution without rounds as one row (no avg of avgs: it is per round).
 * @param {import('../../lib/schema/result-schema.js').DeliveryRow} total
 * @returns {CompareSeries['rounds'][number]}
 */
function allMessages (total) {
  const seen = total.relative.count > 0
  return {
    round: null,
    plan: 'all messages',
    messages: total.messages,
    avgMs: null,
    meanMs: seen ? total.relative.mean : null,
    p99Ms: seen ? total.relative.p99 : null,
    maxMs: seen ? total.relative.max : null,
    missing: total.missing,
    expected: total.expected
  }
}

/** @param {number | null} round */
const roundLabel = (round) => (round === null ? 'all messages' : `round ${round}`)

/**
 * Two grouped bar charts, x = round, one bar per series.
 * @param {CompareSeries[]} series
 * @returns {import('./html.js').ChartSpec[]}
 */
export function compareCharts (series) {
  // Rounds in order, then 'all messages' of the series without rounds.
  const rounds = [...new Set(series.flatMap((s) => s.rounds.map((r) => r.round)))].sort((a, b) => (a ?? Infinity) - (b ?? Infinity))
  /** @param {'avgMs' | 'p99Ms'} field @param {string} title */
  const config = (field, title) => chartConfig('bar', {
    labels: rounds.map(roundLabel),
    datasets: series.map((s, i) => ({
      label: s.label,
      data: rounds.map((round) => s.rounds.find((r) => r.round === round)?.[field] ?? null),
      backgroundColor: color(i),
      borderWidth: 0
    }))
  }, { x: axis('round'), y: axis(title, { beginAtZero: true }) })
  const caption = `${series.length} series (each distribution of each run)`
  const note = 'no data: no round of any run received a message'
  return [
    spec('compare-avg', 'Average delay per round', `average of the simulators' average relative delays (the 2012 figure); ${caption}`,
      config('avgMs', 'avg of avgs (ms)'), note),
    spec('compare-p99', 'p99 relative delay per round', `true p99 over all clients, merged across simulators; ${caption}`,
      config('p99Ms', 'relative delay p99 (ms)'), note)
  ]
}

/**
 * The runs compared, then the numbers of every series and round.
 * @param {RunResult[]} results
 * @param {string[]} labels
 * @param {CompareSeries[]} series
 */
export function compareTables (results, labels, series) {
  // The label, name and id are often the same text: each is shown once.
  const runs = htmlTable(['run', 'kind', 'started', 'target', 'distributions', 'tool'], results.map((r, i) => [
    [...new Set([labels[i] ?? r.run.name, r.run.name, r.run.id])].join(' · '), kindOf(r), formatDate(r.run.startedAt), r.target.url,
    r.distributions.map((d) => d.name).join(', '), `${r.tool.name} ${r.tool.version}`
  ]))
  const rows = series.flatMap((s) => s.rounds.map((r) => [
    s.label, r.round ?? 'all', r.plan, r.messages, formatMs(r.avgMs), formatMs(r.meanMs), formatMs(r.p99Ms), formatMs(r.maxMs), `${r.missing}/${r.expected}`
  ]))
  const numbers = htmlTable(['series', 'round', 'plan', 'messages', 'avg of avgs', 'mean', 'p99', 'max', 'missing'], rows)
  return { runs, numbers }
}

/**
 * What made a result: `ioswarm run`, or `ioswarm simulate` (with its worker processes).
 * @param {RunResult} r
 */
export function kindOf (r) {
  if (!r.from) return 'run'
  return r.from.workers ? `simulate --workers ${r.from.workers}` : 'simulate'
}

/**
 * The comparison page's header.
 * @param {{ run: { name: string } }[]} results runs, simulate results read as runs, capacity searches
 * @param {CompareSeries[]} series
 */
export function compareHeader (results, series) {
  return `<header class="top"><div class="inner"><div>
<h1>ioswarm comparison: ${results.length} results, ${series.length} series</h1>
<p class="sub">${escapeHtml(results.map((r) => r.run.name).join(' · '))}</p>
</div></div></header>`
}
