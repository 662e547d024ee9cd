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
