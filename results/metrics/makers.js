/**
 * The gauges and counters of one registry: what every metrics file of results/metrics/ makes
 * its metrics with.
 */
import client from 'prom-client'

/** The quantiles of an exact HDR summary, as `quantile` labels: the field of a DelaySummary each reads. */
export const QUANTILES = /** @type {const} */ ([['0.5', 'p50'], ['0.9', 'p90'], ['0.99', 'p99'], ['1', 'max']])

/**
 * @param {import('prom-client').Registry} registry
 */
export function metricMakers (registry) {
  return {
    /** @param {string} name @param {string} help @param {string[]} [labelNames] */
    gauge: (name, help, labelNames = []) => new client.Gauge({ name, help, labelNames, registers: [registry] }),
    /** @param {string} name @param {string} help @param {string[]} [labelNames] */
    counter: (name, help, labelNames = []) => new client.Counter({ name, help, labelNames, registers: [registry] })
  }
}

/**
 * Sets a gauge's `quantile` series from an exact HDR summary in ms (as seconds), beside any other labels.
 * @param {import('prom-client').Gauge<string>} gauge
 * @param {import('../../lib/measure/histogram.js').DelaySummary | null | undefined} summary nothing is set without data
 * @param {Record<string, string>} [labels]
 */
export function setQuantiles (gauge, summary, labels = {}) {
  if (!summary || summary.count === 0) return
  for (const [quantile, field] of QUANTILES) {
    const ms = summary[field]
    if (ms !== null && ms !== undefined) gauge.set({ ...labels, quantile }, ms / 1000)
  }
}
