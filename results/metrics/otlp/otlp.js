/**
 * `--otlp URL`: pushes the same metrics as `--metrics-port` over OTLP/HTTP (JSON) with the
 * OpenTelemetry SDK. No metric is defined twice: a MetricProducer hands the SDK's periodic
 * reader what the prom-client registry holds at each export (registry-to-OTLP in
 * otlp-convert.js), and the SDK's exporter sends it. The SDK is loaded only when asked for.
 */
import { VERSION } from '../../../lib/version.js'
import { registryToScopeMetrics } from './otlp-convert.js'

/**
 * @typedef {object} OtlpPush
 * @property {string} url where it pushes
 * @property {() => Promise<void>} flush exports now
 * @property {() => Promise<void>} close exports the final values once more, then stops
 */

/**
 * Starts pushing `registry()` (read at each export: the runner changes it per distribution).
 * @param {object} options
 * @param {string} options.url the OTLP/HTTP metrics endpoint (parseOtlpUrl)
 * @param {() => import('prom-client').Registry} options.registry
 * @param {number} options.intervalMs between exports
 * @param {string} options.command 'run', 'simulate' or 'serve' (resource attribute)
 * @param {(error: Error) => void} [options.onError] a failed export (the first of a series; again after a success)
 * @returns {Promise<OtlpPush>}
 */
export async function startOtlpPush ({ url, registry, intervalMs, command, onError = () => {} }) {
  const [{ MeterProvider, PeriodicExportingMetricReader }, { resourceFromAttributes }, { OTLPMetricExporter }] = await Promise.all([
    import('@opentelemetry/sdk-metrics'), import('@opentelemetry/resources'), import('@opentelemetry/exporter-metrics-otlp-http')
  ])
  const resource = resourceFromAttributes({ 'service.name': 'ioswarm', 'service.version': VERSION, 'ioswarm.command': command })
  /** @type {WeakMap<import('prom-client').Registry, number>} when each registry was first exported: the start of its cumulative series */
  const startedAt = new WeakMap()
  /** @type {import('@opentelemetry/sdk-metrics').MetricProducer} */
  const producer = {
    async collect () {
      const current = registry()
      if (!startedAt.has(current)) startedAt.set(current, Date.now())
      const startMs = /** @type {number} */ (startedAt.get(current))
      const scope = registryToScopeMetrics(await current.getMetricsAsJSON(), { startMs, endMs: Date.now(), version: VERSION })
      return { resourceMetrics: { resource, scopeMetrics: [scope] }, errors: [] }
    }
  }
  // One bound on an export, its retries included: an endpoint that is down delays the end of
  // the command (the last push) by at most this.
  const timeoutMs = Math.min(intervalMs, 10000)
  const exporter = reportingExporter(new OTLPMetricExporter({ url, timeoutMillis: timeoutMs }), onError)
  const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: intervalMs, exportTimeoutMillis: timeoutMs, metricProducers: [producer] })
  const provider = new MeterProvider({ resource, readers: [reader] })
  return {
    url,
    flush: () => provider.forceFlush(),
    close: () => provider.shutdown()
  }
}

/**
 * The SDK reports failed exports only to its diagnostic logger (silent unless configured):
 * this exporter tells `onError` the first failure of a series, and again after a success.
 * @param {import('@opentelemetry/sdk-metrics').PushMetricExporter} exporter
 * @param {(error: Error) => void} onError
 * @returns {import('@opentelemetry/sdk-metrics').PushMetricExporter}
 */
function reportingExporter (exporter, onError) {
  let failing = false
  return {
    export (metrics, done) {
      exporter.export(metrics, (result) => {
        if (result.code !== 0 && !failing) onError(result.error ?? new Error('OTLP export failed'))
        failing = result.code !== 0
        done(result)
      })
    },
    forceFlush: () => exporter.forceFlush(),
    shutdown: () => exporter.shutdown(),
    selectAggregationTemporality: exporter.selectAggregationTemporality?.bind(exporter)
  }
}
