/**
 * Live metrics (Prometheus, through prom-client): the run's merged view for `ioswarm run`,
 * one simulator's for `ioswarm simulate`, the reference server's for `ioswarm serve`.
 */
import client from 'prom-client'
import { createRunMetrics } from './run-metrics.js'
import { followCollector } from './feed.js'
import { serveMetrics } from './http.js'
import { startOtlpPush } from './otlp/otlp.js'

export { createRunMetrics, transportShares } from './run-metrics.js'
export { createServerMetrics } from './server-metrics.js'
export { createLabelBound, OTHER_LABEL } from './labels.js'
export { DELAY_BUCKETS_SECONDS, bucketCounts } from '../../lib/measure/hdr-buckets.js'
export { serveMetrics, parseMetricsPort } from './http.js'
export { startOtlpPush } from './otlp/otlp.js'
export { followCollector }

/**
 * The runner's live view: per distribution a fresh set of metrics (labels run and
 * distribution) fed by following its run in the collector.
 * @param {{ collector: import('../collector/types.js').Collector, run: string, pollEveryMs?: number }} options
 */
export function createLiveMetrics ({ collector, run, pollEveryMs }) {
  /** @type {import('./run-metrics.js').RunMetrics | null} */
  let current = null
  const empty = new client.Registry()
  return {
    /** The registry to serve now. */
    registry: () => current?.registry ?? empty,
    /**
     * Starts the metrics of one distribution (collector run id `runId`).
     * @param {string} runId
     * @param {string} distribution
     * @param {import('../collector/types.js').PlannedRound[]} [planned]
     */
    begin (runId, distribution, planned) {
      const metrics = createRunMetrics({ run, distribution })
      current = metrics
      const follow = followCollector({ collector, runId, metrics, planned, everyMs: pollEveryMs })
      return { metrics, stop: () => follow.stop() }
    }
  }
}

/**
 * Where a command's live metrics go: served on --metrics-port, pushed to --otlp, or both.
 * Rejects (having closed what it opened) when the port cannot be used.
 * @param {object} options
 * @param {() => import('prom-client').Registry} options.registry read at each scrape and push
 * @param {number | null} options.port
 * @param {string} options.host
 * @param {string | null} options.otlp
 * @param {number} options.otlpIntervalMs
 * @param {string} options.command 'run', 'simulate' or 'serve'
 * @param {(error: Error) => void} [options.onOtlpError] a push that failed (once per series of failures)
 */
export async function startMetricsOutputs ({ registry, port, host, otlp, otlpIntervalMs, command, onOtlpError }) {
  const server = port === null ? null : await serveMetrics({ port, host, registry })
  const push = otlp
    ? await startOtlpPush({ url: otlp, registry, intervalMs: otlpIntervalMs, command, onError: onOtlpError }).catch(async (error) => {
      await server?.close()
      throw error
    })
    : null
  return {
    /** The /metrics URL, or null without --metrics-port. */
    url: server?.url ?? null,
    /** Pushes the final values once more (--otlp), then stops serving. */
    async close () {
      await push?.close().catch(() => {})
      await server?.close()
    }
  }
}
