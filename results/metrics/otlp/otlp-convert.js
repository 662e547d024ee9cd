/**
 * A prom-client registry's values (getMetricsAsJSON) as OpenTelemetry MetricData, the shape
 * the SDK's exporters take: gauges as gauges, counters as cumulative monotonic sums (named
 * without `_total`, as the OpenTelemetry–Prometheus compatibility rules have it: a Prometheus
 * exporter downstream adds it back), histograms as explicit-bucket histograms (cumulative
 * `le` buckets turned into counts per bucket). Labels become attributes. Pure, so it is
 * tested on its own; the SDK's enum values are constants here (otlp.test.js checks them)
 * so that this module does not load the SDK.
 */

/** @sdk-metrics DataPointType, AggregationTemporality; @opentelemetry/api ValueType */
export const OTEL = Object.freeze({ HISTOGRAM: 0, GAUGE: 2, SUM: 3, CUMULATIVE: 1, DOUBLE: 1 })

/** Units from the name's suffix (UCUM, as OpenTelemetry writes them). */
const UNITS = /** @type {const} */ ([['_seconds', 's'], ['_bytes', 'By'], ['_percent', '%']])

/**
 * @typedef {{ value: number, labels: Record<string, string | number | undefined>, metricName?: string }} PromValue
 * @typedef {{ name: string, help: string, type: unknown, values: PromValue[] }} PromMetric prom-client's MetricObjectWithValues
 */

/** @param {number} ms @returns {[number, number]} an OpenTelemetry HrTime */
const hrTime = (ms) => [Math.floor(ms / 1000), Math.round((ms % 1000) * 1e6)]

/** @param {Record<string, string | number | undefined>} labels */
const attributes = (labels) => Object.fromEntries(Object.entries(labels).flatMap(([k, v]) => v === undefined ? [] : [[k, String(v)]]))

/**
 * @param {PromMetric[]} metrics from registry.getMetricsAsJSON()
 * @param {{ startMs: number, endMs: number, version: string }} at start of the cumulative series, time of this read
 * @returns {import('@opentelemetry/sdk-metrics').ScopeMetrics}
 */
export function registryToScopeMetrics (metrics, { startMs, endMs, version }) {
  const times = { startTime: hrTime(startMs), endTime: hrTime(endMs) }
  /** @type {any[]} */
  const out = []
  for (const metric of metrics) {
    const type = String(metric.type)
    const name = type === 'counter' ? metric.name.replace(/_total$/, '') : metric.name
    const unit = UNITS.find(([suffix]) => name.endsWith(suffix))?.[1] ?? ''
    const descriptor = { name, description: metric.help, unit, valueType: OTEL.DOUBLE }
    const point = (/** @type {PromValue} */ v) => ({ ...times, attributes: attributes(v.labels), value: v.value })
    const head = { descriptor, aggregationTemporality: OTEL.CUMULATIVE }
    if (type === 'gauge') out.push({ ...head, dataPointType: OTEL.GAUGE, dataPoints: metric.values.map(point) })
    else if (type === 'counter') out.push({ ...head, dataPointType: OTEL.SUM, isMonotonic: true, dataPoints: metric.values.map(point) })
    else if (type === 'histogram') out.push({ ...head, dataPointType: OTEL.HISTOGRAM, dataPoints: histogramPoints(metric, times) })
    // Summaries: none is registered (the exact percentiles are gauges).
  }
  return { scope: { name: 'ioswarm', version }, metrics: out }
}

/**
 * A Prometheus histogram's `_bucket` (cumulative, by `le`), `_sum` and `_count` values, one
 * point per label set.
 * @param {PromMetric} metric
 * @param {{ startTime: [number, number], endTime: [number, number] }} times
 */
function histogramPoints (metric, times) {
  /** @type {Map<string, { labels: Record<string, string | number | undefined>, les: [number, number][], sum: number, count: number }>} */
  const series = new Map()
  for (const v of metric.values) {
    const { le, ...labels } = v.labels
    const key = JSON.stringify(labels)
    let s = series.get(key)
    if (!s) series.set(key, (s = { labels, les: [], sum: 0, count: 0 }))
    if (v.metricName?.endsWith('_bucket')) {
      if (le !== '+Inf') s.les.push([Number(le), v.value])
    } else if (v.metricName?.endsWith('_sum')) s.sum = v.value
    else if (v.metricName?.endsWith('_count')) s.count = v.value
  }
  return [...series.values()].map((s) => {
    const les = s.les.sort((a, b) => a[0] - b[0])
    const counts = les.map(([, cumulative], i) => cumulative - (i > 0 ? les[i - 1][1] : 0))
    counts.push(s.count - (les.at(-1)?.[1] ?? 0))
    return { ...times, attributes: attributes(s.labels), value: { buckets: { boundaries: les.map(([le]) => le), counts }, sum: s.sum, count: s.count } }
  })
}
