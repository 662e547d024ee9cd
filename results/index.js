/**
 * The public entry of results/: the collector, IPC transport, aggregation, CSV, reports and
 * thresholds. Other feature folders and CLI files import from here only.
 */

/** @typedef {import('./thresholds/thresholds.js').Threshold} Threshold */

export { createCollector } from './collector/index.js'
export { redactUrl } from '../lib/redis.js'
export { createIpcWriter, attachIpcReader, createIpcErrorBook, ipcErrorsWarning } from './collector/ipc.js'
export { CAPACITY_AFFECTS, mergeRefused, readRefused, refusedOf, refusedWarning } from './merge/refused.js'
export { buildDistribution, mergeMessageReports, groupRounds } from './merge/aggregate.js'
export { mergeSimResults, mergeDeliveries, RELATIVE_NOTE } from './merge/sim-merge.js'
export { finalReportOf, measuresOf, mergeSimMeasures, windowRow } from './merge/measures.js'
export { deliveriesCsv, messagesCsv, reasonsCsv, samplesCsv, windowsCsv } from './files/csv.js'
export { buildReport, buildCompareReport, buildCapacityReport } from './report/index.js'
export { liveEventsOf } from './report/live.js'
export { formatRunSummary, formatThresholds } from './text/summary.js'
export { formatCopies, formatDeliveryTable, formatEcho, formatCustom, formatEventLines, formatNamespaces, formatScenario } from './text/scenario-text.js'
export { mergeScenarioReports, mergeNamespaceCounts } from './merge/scenario-merge.js'
export { formatNodes } from './text/node-lines.js'
export { formatLogins } from './text/login-lines.js'
export { formatRampGuard } from './text/ramp-guard-line.js'
export {
  parseThreshold, parseThresholdOf, evaluateThresholds, measureThreshold, meetsThreshold, verdictOf, thresholdHelp, thresholdEpilog, METRICS
} from './thresholds/thresholds.js'
export { waitForRound, formatRoundLine } from './follow/rounds.js'
export { formatPublishLine } from './text/publish-line.js'
export { followWindows } from './follow/window-follow.js'
export { followLines } from './follow/lines.js'

/**
 * The live metrics (createLiveMetrics, createRunMetrics, createServerMetrics, followCollector,
 * serveMetrics, parseMetricsPort, startMetricsOutputs), loaded when asked for: prom-client is
 * for --metrics-port and --otlp only, and a process without them does not load it.
 * @returns {Promise<typeof import('./metrics/index.js')>}
 */
export function loadMetrics () {
  return import('./metrics/index.js')
}
export { capacityStepsCsv } from './files/capacity-csv.js'
export { checkCiPaths, junitXml, summaryJson, writeCiOutputs } from './files/ci.js'
