/**
 * HTML reports from result JSON, as pure functions: buildReport(result) for one run,
 * buildCompareReport(results) for runs side by side. One self-contained file each, with
 * Chart.js inlined and the data as JSON blocks; the only I/O is reading Chart.js once.
 */
import { connectionCharts, healthCharts, stormChart, serverCharts } from './charts-time.js'
import { messageCharts } from './charts-messages.js'
import { compareCharts, compareHeader, compareSeries, compareTables } from './compare.js'
import { chartCard, htmlPage } from './html.js'
import { GLOSSARY, details, distributionSection, header, overview } from './sections.js'

/**
 * @typedef {import('../../lib/schema.js').RunResult} RunResult
 * @typedef {import('../../lib/schema.js').DistributionResult} DistributionResult
 * @typedef {import('./html.js').ChartSpec} ChartSpec
 */

/** The charts of each distribution, in page order; a chart's name is `d<N>-<kind>`. */
export const CHART_KINDS = Object.freeze([
  'connected-transport', 'connected-simulator', 'storm-transport', 'relative-delay', 'absolute-latency', 'missing', 'connect-time',
  'server-load', 'server-memory', 'health-loop', 'health-cpu'
])

/** The charts of a comparison page. */
export const COMPARE_CHARTS = Object.freeze(['compare-avg', 'compare-p99'])

/**
 * Every chart of one distribution, in page order.
 * @param {DistributionResult} d
 * @param {number} index
 * @returns {ChartSpec[]}
 */
export function distributionCharts (d, index) {
  const prefix = `d${index + 1}`
  const byName = new Map([...connectionCharts(d, prefix), stormChart(d, prefix), ...messageCharts(d, prefix), ...serverCharts(d, prefix), ...healthCharts(d, prefix)]
    .map((c) => [c.name, c]))
  return CHART_KINDS.map((kind) => /** @type {ChartSpec} */ (byName.get(`${prefix}-${kind}`)))
}

/**
 * The report of one run as one HTML page.
 * @param {RunResult} result
 * @param {{ generatedAt?: number }} [opts] epoch ms shown as the report's date (omitted when not given, so output is reproducible)
 * @returns {string}
 */
export function buildReport (result, { generatedAt } = {}) {
  /** @type {ChartSpec[]} */
  const charts = []
  const sections = result.distributions.map((d, i) => {
    const specs = distributionCharts(d, i)
    charts.push(...specs)
    return distributionSection(d, i, specs)
  })
  const body = [header(result, generatedAt), '<main>', overview(result), ...sections, details(result), GLOSSARY, '</main>'].join('\n')
  return htmlPage({ title: `ioswarm: ${result.run.name}`, body, charts })
}

/**
 * Runs side by side: average and p99 relative delay per round, one series per distribution of each run.
 * @param {RunResult[]} results
 * @param {{ labels?: string[] }} [opts] a label per result (defaults to the run names)
 * @returns {string}
 */
export function buildCompareReport (results, { labels = [] } = {}) {
  const series = compareSeries(results, labels)
  const charts = compareCharts(series)
  const tables = compareTables(results, labels, series)
  const body = [
    compareHeader(results, series),
    '<main>',
    `<section id="charts"><h2>Delay per round</h2><div class="charts">${charts.map(chartCard).join('\n')}</div></section>`,
    `<section id="numbers"><h2>Numbers</h2>${tables.numbers}</section>`,
    `<section id="runs"><h2>Runs</h2>${tables.runs}</section>`,
    GLOSSARY,
    '</main>'
  ].join('\n')
  return htmlPage({ title: `ioswarm comparison of ${results.length} runs`, body, charts })
}
export { buildCapacityReport, capacityChart, CAPACITY_CHARTS } from './capacity.js'
