/**
 * The public entry of results/: the collector, IPC transport, aggregation, CSV, reports and
 * thresholds. Other feature folders and CLI files import from here only.
 */

/** @typedef {import('./thresholds.js').Threshold} Threshold */

export { createCollector } from './collector/index.js'
export { redactUrl } from '../lib/redis.js'
export { createIpcWriter, attachIpcReader, createIpcErrorBook, ipcErrorsWarning } from './ipc.js'
export { CAPACITY_AFFECTS, mergeRefused, readRefused, refusedOf, refusedWarning } from './refused.js'
export { buildDistribution, mergeMessageReports, groupRounds } from './aggregate.js'
export { mergeSimResults, mergeDeliveries, RELATIVE_NOTE } from './merge.js'
export { finalReportOf, measuresOf, mergeSimMeasures } from './measures.js'
export { deliveriesCsv, messagesCsv, reasonsCsv, samplesCsv, windowsCsv } from './csv.js'
export { buildReport, buildCompareReport, buildCapacityReport } from './report/index.js'
export { formatRunSummary, formatThresholds } from './summary.js'
export { formatCopies, formatDeliveryTable, formatEcho, formatCustom, formatEventLines, formatNamespaces, formatScenario } from './scenario-format.js'
export { mergeScenarioReports, mergeNamespaceCounts } from './scenario.js'
export { formatNodes } from './nodes.js'
export { formatLogins } from './logins.js'
export { parseThreshold, parseThresholdOf, evaluateThresholds, measureThreshold, meetsThreshold, verdictOf, thresholdHelp, METRICS } from './thresholds.js'
export { waitForRound, formatRoundLine } from './rounds.js'
export { followWindows } from './windows.js'
export { followLines } from './lines.js'

/**
 * The live metrics (createLiveMetrics, createRunMetrics, createServerMetrics, followCollector,
 * serveMetrics, parseMetricsPort, startMetricsOutputs), loaded when asked for: prom-client is
 * for --metrics-port and --otlp only, and a process without them does not load it (issue 26).
 * @returns {Promise<typeof import('./metrics/index.js')>}
 */
export function loadMetrics () {
  return import('./metrics/index.js')
}
export { capacityStepsCsv } from './capacity-csv.js'
export { checkCiPaths, junitXml, summaryJson, writeCiOutputs } from './ci.js'
