/**
 * The second public entry of results/, for a process that only reports to a collector (a
 * simulator): the collector and the IPC writer, without what index.js also carries
 * (aggregation, CSV, HTML reports, thresholds, summaries). A simulator child loads this and
 * none of the report code (issue 26: a light process).
 */
export { createCollector } from './collector/index.js'
export { createIpcWriter } from './ipc.js'
