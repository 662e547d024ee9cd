/**
 * Live metrics (Prometheus, through prom-client): the run's merged view for `ioswarm run`,
 * one simulator's for `ioswarm simulate`, the reference server's for `ioswarm serve`.
 */
import client from 'prom-client'
import { createRunMetrics } from './run-metrics.js'
import { meterCollector, pollCollector } from './feed.js'

export { createRunMetrics, transportShares, MAX_SIMULATOR_LABELS, MAX_REASON_LABELS } from './run-metrics.js'
export { createServerMetrics } from './server-metrics.js'
export { createLabelBound, OTHER_LABEL } from './labels.js'
export { DELAY_BUCKETS_SECONDS, bucketCounts } from './hdr-buckets.js'
export { serveMetrics, parseMetricsPort } from './http.js'
export { meterCollector, pollCollector }

/**
 * The runner's live view: a metered collector to run the test with, and per distribution a
 * fresh set of metrics (labels run and distribution) fed by it and by a poll.
 * @param {{ collector: import('../collector/types.js').Collector, run: string, pollEveryMs?: number }} options
 */
export function createLiveMetrics ({ collector, run, pollEveryMs }) {
  /** @type {{ runId: string, metrics: import('./run-metrics.js').RunMetrics } | null} */
  let current = null
  const empty = new client.Registry()
  return {
    collector: meterCollector(collector, () => current),
    /** The registry to serve now. */
    registry: () => current?.metrics.registry ?? empty,
    /**
     * Starts the metrics of one distribution (collector run id `runId`).
     * @param {string} runId
     * @param {string} distribution
     * @param {import('../collector/types.js').PlannedRound[]} [planned]
     */
    begin (runId, distribution, planned) {
      const metrics = createRunMetrics({ run, distribution })
      current = { runId, metrics }
      const poll = pollCollector({ collector, runId, metrics, planned, everyMs: pollEveryMs })
      return { metrics, stop: () => poll.stop() }
    }
  }
}
