/**
 * The comparison report, after the original 2012 study's chart: average delay and p99
 * relative delay per round, every distribution of every run side by side as one series.
 */
import { formatMs } from '../../lib/format.js'
import { formatDate } from '../summary.js'
import { axis, chartConfig, color, spec } from './chart-config.js'
import { escapeHtml, htmlTable } from './html.js'

/**
 * @typedef {import('../../lib/schema.js').RunResult} RunResult
 * @typedef {object} CompareSeries one distribution of one run
 * @property {string} label run label + distribution name, e.g. `baseline 10x1000`
 * @property {RunResult} run
 * @property {{ round: number, plan: string, messages: number, avgMs: number | null, meanMs: number | null, p99Ms: number | null, maxMs: number | null, missing: number, expected: number }[]} rounds
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
    rounds: d.rounds.map((r) => {
      const seen = r.relative.count > 0
      return {
        round: r.round,
        plan: `${r.count} × ${r.intervalMs} ms`,
        messages: r.messages,
        avgMs: seen ? r.avgOfAverages.relativeMs : null,
        meanMs: seen ? r.relative.mean : null,
        p99Ms: seen ? r.relative.p99 : null,
        maxMs: seen ? r.relative.max : null,
        missing: r.missing,
        expected: r.expected
      }
    })
  })))
}

/**
 * Two grouped bar charts, x = round, one bar per series.
 * @param {CompareSeries[]} series
 * @returns {import('./html.js').ChartSpec[]}
 */
export function compareCharts (series) {
  const rounds = [...new Set(series.flatMap((s) => s.rounds.map((r) => r.round)))].sort((a, b) => a - b)
  /** @param {'avgMs' | 'p99Ms'} field @param {string} title */
  const config = (field, title) => chartConfig('bar', {
    labels: rounds.map((r) => `round ${r}`),
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
    spec('compare-avg', 'Average delay per round', `average of the simulators' average relative delays (the 2012 figure); ${caption}`, config('avgMs', 'avg of avgs (ms)'), note),
    spec('compare-p99', 'p99 relative delay per round', `true p99 over all clients, merged across simulators; ${caption}`, config('p99Ms', 'relative delay p99 (ms)'), note)
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
  const runs = htmlTable(['run', 'started', 'target', 'distributions', 'tool'], results.map((r, i) => [
    [...new Set([labels[i] ?? r.run.name, r.run.name, r.run.id])].join(' · '), formatDate(r.run.startedAt), r.target.url, r.distributions.map((d) => d.name).join(', '), `${r.tool.name} ${r.tool.version}`
  ]))
  const rows = series.flatMap((s) => s.rounds.map((r) => [s.label, r.round, r.plan, r.messages, formatMs(r.avgMs), formatMs(r.meanMs), formatMs(r.p99Ms), formatMs(r.maxMs), `${r.missing}/${r.expected}`]))
  const numbers = htmlTable(['series', 'round', 'plan', 'messages', 'avg of avgs', 'mean', 'p99', 'max', 'missing'], rows)
  return { runs, numbers }
}

/**
 * The comparison page's header.
 * @param {RunResult[]} results
 * @param {CompareSeries[]} series
 */
export function compareHeader (results, series) {
  return `<header class="top"><div class="inner"><div>
<h1>ioswarm comparison: ${results.length} runs, ${series.length} series</h1>
<p class="sub">${escapeHtml(results.map((r) => r.run.name).join(' · '))}</p>
</div></div></header>`
}
