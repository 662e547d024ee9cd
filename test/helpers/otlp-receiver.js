/**
 * A small OTLP/HTTP metrics receiver for tests: accepts POST /v1/metrics in the JSON
 * encoding (what @opentelemetry/exporter-metrics-otlp-http sends), decodes every request as
 * the OTLP JSON mapping defines it (int64 fields may come as numbers or decimal strings,
 * attributes as key/value lists) and keeps the points, newest request last.
 */
import http from 'node:http'

/**
 * @typedef {{ name: string, unit: string, kind: 'gauge' | 'sum' | 'histogram', monotonic: boolean | null, temporality: number | null, resource: Record<string, string>, attributes: Record<string, string>, value: number, histogram: { count: number, sum: number, bucketCounts: number[], explicitBounds: number[] } | null, startMs: number, timeMs: number }} OtlpPoint
 */

/** @param {any} v an OTLP JSON AnyValue */
const anyValue = (v) => v?.stringValue ?? v?.intValue ?? v?.doubleValue ?? v?.boolValue ?? ''
/** @param {any[]} list @returns {Record<string, string>} */
const attrs = (list = []) => Object.fromEntries(list.map((a) => [a.key, String(anyValue(a.value))]))
/** @param {unknown} v int64 as a number or a decimal string */
const num = (v) => Number(v ?? 0)

/**
 * Decodes one ExportMetricsServiceRequest (JSON) into points.
 * @param {any} body
 * @returns {OtlpPoint[]}
 */
export function decodeOtlpJson (body) {
  /** @type {OtlpPoint[]} */
  const points = []
  for (const rm of body.resourceMetrics ?? []) {
    const resource = attrs(rm.resource?.attributes)
    for (const sm of rm.scopeMetrics ?? []) {
      for (const m of sm.metrics ?? []) {
        const kind = m.gauge ? 'gauge' : m.sum ? 'sum' : m.histogram ? 'histogram' : null
        if (!kind) throw new Error(`unexpected metric data in ${m.name}: ${Object.keys(m).join(', ')}`)
        const data = m[kind]
        for (const p of data.dataPoints ?? []) {
          points.push({
            name: m.name,
            unit: m.unit ?? '',
            kind,
            monotonic: kind === 'sum' ? Boolean(data.isMonotonic) : null,
            temporality: data.aggregationTemporality ?? null,
            resource,
            attributes: attrs(p.attributes),
            value: kind === 'histogram' ? num(p.count) : num(p.asDouble ?? p.asInt),
            histogram: kind === 'histogram'
              ? { count: num(p.count), sum: num(p.sum), bucketCounts: (p.bucketCounts ?? []).map(num), explicitBounds: (p.explicitBounds ?? []).map(Number) }
              : null,
            startMs: num(p.startTimeUnixNano) / 1e6,
            timeMs: num(p.timeUnixNano) / 1e6
          })
        }
      }
    }
  }
  return points
}

/**
 * Starts the receiver on a free loopback port; closed after the test.
 * @param {import('node:test').TestContext} t
 */
export async function startOtlpReceiver (t) {
  /** @type {OtlpPoint[][]} */
  const requests = []
  /** @type {string[]} */
  const contentTypes = []
  const server = http.createServer((req, res) => {
    if (req.method !== 'POST' || req.url !== '/v1/metrics') {
      res.writeHead(404).end()
      return
    }
    let text = ''
    req.setEncoding('utf8').on('data', (d) => { text += d }).on('end', () => {
      contentTypes.push(String(req.headers['content-type']))
      requests.push(decodeOtlpJson(JSON.parse(text)))
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}')
    })
  })
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)))
  t.after(() => new Promise((resolve) => {
    server.closeAllConnections() // the exporter keeps its connection alive
    server.close(() => resolve(undefined))
  }))
  const address = /** @type {import('node:net').AddressInfo} */ (server.address())
  return {
    url: `http://127.0.0.1:${address.port}/v1/metrics`,
    requests,
    contentTypes,
    /**
     * The newest request's points of `name` whose attributes include `where`.
     * @param {string} name
     * @param {Record<string, string>} [where]
     */
    latest (name, where = {}) {
      const last = requests.findLast((r) => r.some((p) => p.name === name)) ?? []
      return last.filter((p) => p.name === name && Object.entries(where).every(([k, v]) => p.attributes[k] === v))
    }
  }
}
