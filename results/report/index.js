/**
 * HTML reports from result JSON, as pure functions: buildReport(result) for one run,
 * buildCompareReport(results) for runs side by side. One self-contained file each, with
 * Chart.js inlined and the data as JSON blocks; the only I/O is reading Chart.js once.
 */
import { connectionCharts, healthCharts, stormChart, serverCharts } from './charts/charts-time.js'
import { messageCharts } from './charts/charts-messages.js'
import { customWindowCharts } from './charts/charts-custom.js'
import { nodeChart } from './charts/charts-nodes.js'
import { compareCharts, compareHeader, compareSeries, compareTables } from './compare.js'
import { chartCard, chartCards, htmlPage } from './html.js'
import { GLOSSARY, details, distributionSection, header, overview } from './sections.js'
import { buildCapacityReport, compareCapacities } from './capacity.js'
import { toReportable } from './kinds.js'
import { liveSection } from './live.js'
import { markActions } from './charts/charts-actions.js'

/**
 * @typedef {import('../../lib/schema/result-schema.js').RunResult} RunResult
 * @typedef {import('../../lib/schema/result-schema.js').DistributionResult} DistributionResult
 * @typedef {import('./html.js').ChartSpec} ChartSpec
 * @typedef {RunResult | import('../../lib/schema/result-schema.js').SimResult | import('../../lib/schema/capacity-schema.js').CapacityResult} AnyResult
 */

/**
 * The charts of each distribution, in page order; a chart's name is `d<N>-<kind>`. A windowed
 * distribution whose windows hold a hook's own figures also has CUSTOM_CHART_KINDS after `missing`.
 */
const CHART_KINDS = Object.freeze([
  'connected-transport', 'connected-simulator', 'connected-node', 'storm-transport', 'relative-delay', 'absolute-latency', 'missing', 'connect-time',
  'server-load', 'server-memory', 'health-loop', 'health-cpu'
])

/**
 * Every chart of one distribution, in page order.
 * @param {DistributionResult} d
 * @param {number} index
 * @returns {ChartSpec[]}
 */
export function distributionCharts (d, index) {
  const prefix = `d${index + 1}`
  const charts = [
    ...connectionCharts(d, prefix), nodeChart(d, prefix), stormChart(d, prefix),
    ...messageCharts(d, prefix), ...serverCharts(d, prefix), ...healthCharts(d, prefix)
  ]
  const byName = new Map(charts.map((c) => [c.name, c]))
  // A hook's own figures per window, when the windows hold any: after the deliveries' charts.
  const custom = customWindowCharts(d, prefix)
  return CHART_KINDS.flatMap((kind) => {
    const chart = /** @type {ChartSpec} */ (byName.get(`${prefix}-${kind}`))
    return kind === 'missing' ? [chart, ...custom] : [chart]
  })
}

/**
 * The report of one run as one HTML page.
 * @param {RunResult} result
 * @param {{ generatedAt?: number, live?: import('./live.js').LiveEvents | null }} [opts] generatedAt: epoch ms shown as the report's date (omitted when not
 *   given, so output is reproducible); live: the run's stream (--dashboard, or its events.ndjson), drawn second by second as the dashboard drew it
 * @returns {string}
 */
export function buildReport (result, { generatedAt, live = null } = {}) {
  /** @type {ChartSpec[]} */
  const charts = []
  const sections = result.distributions.map((d, i) => {
    // Steering actions (the dashboard, its API, Ctrl-C) as lines on the charts over time.
    const specs = markActions(distributionCharts(d, i), result.actions, d)
    charts.push(...specs)
    return distributionSection(d, i, specs)
  })
  const liveSpecs = live ? liveSection(live) : null
  if (liveSpecs) charts.push(...liveSpecs.charts)
  const body = [header(result, generatedAt), '<main>', overview(result), ...sections, liveSpecs?.html ?? '', details(result), GLOSSARY, '</main>'].join('\n')
  return htmlPage({ title: `ioswarm: ${result.run.name}`, body, charts })
}

/**
 * The report of any result a report reads: a run, a simulate result (as a run of one
 * simulator), a capacity search.
 * @param {AnyResult} result
 * @param {{ generatedAt?: number }} [opts]
 * @returns {string}
 */
export function buildAnyReport (result, opts) {
  const item = toReportable(result)
  return item.kind === 'capacity' ? buildCapacityReport(item.result, opts) : buildReport(item.result, opts)
}

/**
 * Results side by side: average and p99 relative delay per round, one series per distribution
 * of each run or simulate result; capacity searches as p99 against clients, with their answers.
 * @param {AnyResult[]} results
 * @param {{ labels?: string[] }} [opts] a label per result (defaults to the run names)
 * @returns {string}
 */
export function buildCompareReport (results, { labels = [] } = {}) {
  const items = results.map((r) => toReportable(r)).map((item, i) => ({ ...item, label: labels[i] ?? item.result.run.name }))
  const runs = items.flatMap((x) => (x.kind === 'capacity' ? [] : [x]))
  const searches = items.flatMap((x) => (x.kind === 'capacity' ? [x] : []))
  const runResults = runs.map((x) => x.result)
  const runLabels = runs.map((x) => x.label)
  const series = compareSeries(runResults, runLabels)
  const charts = runs.length ? compareCharts(series) : []
  const tables = compareTables(runResults, runLabels, series)
  const capacity = searches.length ? compareCapacities(searches.map((x) => x.result), searches.map((x) => x.label)) : null
  const body = [
    compareHeader(items.map((x) => x.result), series),
    '<main>',
    runs.length ? `<section id="charts"><h2>Delay per round</h2>${chartCards(charts)}</section>` : '',
    runs.length ? `<section id="numbers"><h2>Numbers</h2>${tables.numbers}</section>` : '',
    runs.length ? `<section id="runs"><h2>Runs</h2>${tables.runs}</section>` : '',
    capacity ? `<section id="capacity"><h2>Capacity searches</h2><div class="charts">${chartCard(capacity.chart)}</div>${capacity.table}</section>` : '',
    GLOSSARY,
    '</main>'
  ].filter(Boolean).join('\n')
  return htmlPage({ title: `ioswarm comparison of ${results.length} results`, body, charts: capacity ? [...charts, capacity.chart] : charts })
}
export { buildCapacityReport, capacityChart } from './capacity.js'
export { resultKind, simulatorAsRun, toReportable, RESULT_KINDS } from './kinds.js'
export { CUSTOM_CHART_KINDS } from './charts/charts-custom.js'
