/**
 * A Prometheus histogram fed with whole bucket counts (from HDR histograms of closed message
 * reports) instead of one observe() per value: prom-client's Histogram has no observe with a
 * count, and calling it once per receipt would be the per-receipt work the hot path must not
 * get. Registered as a prom-client metric object, so prom-client writes the exposition.
 */
import { bucketCounts, DELAY_BUCKETS_SECONDS } from '../../../lib/measure/hdr-buckets.js'

/**
 * @param {{ name: string, help: string, labelNames: string[], registry: import('prom-client').Registry, buckets?: readonly number[] }} options
 */
export function createHdrHistogramMetric ({ name, help, labelNames, registry, buckets = DELAY_BUCKETS_SECONDS }) {
  /** @type {Map<string, { labels: Record<string, string>, counts: number[], sum: number, count: number }>} */
  const series = new Map()
  const metric = {
    name,
    help,
    type: /** @type {const} */ ('histogram'),
    aggregator: /** @type {const} */ ('sum'),
    labelNames,
    /** @returns {Promise<any>} a prom-client MetricObjectWithValues */
    async get () {
      /** @type {import('prom-client').MetricValueWithName<string>[]} */
      const values = []
      for (const s of series.values()) {
        let cumulative = 0
        buckets.forEach((le, i) => {
          cumulative += s.counts[i]
          values.push({ metricName: `${name}_bucket`, labels: { ...s.labels, le }, value: cumulative })
        })
        values.push({ metricName: `${name}_bucket`, labels: { ...s.labels, le: '+Inf' }, value: s.count })
        values.push({ metricName: `${name}_sum`, labels: s.labels, value: s.sum })
        values.push({ metricName: `${name}_count`, labels: s.labels, value: s.count })
      }
      return { name, help, type: 'histogram', aggregator: 'sum', values }
    },
    reset () { series.clear() }
  }
  registry.registerMetric(/** @type {any} */ (metric))
  /**
   * Adds counts per bucket (bucketCounts of these buckets; the last: +Inf) to the series of `labels`.
   * @param {Record<string, string>} labels
   * @param {{ counts: number[], sumSeconds: number, count: number }} added
   */
  function addBuckets (labels, added) {
    const key = labelNames.map((l) => labels[l]).join('\u0000')
    let s = series.get(key)
    if (!s) series.set(key, (s = { labels, counts: new Array(buckets.length + 1).fill(0), sum: 0, count: 0 }))
    for (let i = 0; i < added.counts.length; i++) s.counts[i] += added.counts[i]
    s.sum += added.sumSeconds
    s.count += added.count
  }
  return {
    /**
     * Adds every value of an encoded HDR histogram (µs) to the series of `labels`.
     * @param {Record<string, string>} labels
     * @param {string | null | undefined} encoded
     */
    addEncoded (labels, encoded) {
      if (encoded) addBuckets(labels, bucketCounts(encoded, buckets))
    },
    addBuckets,
    /** Series held (for cardinality checks). */
    size: () => series.size
  }
}
