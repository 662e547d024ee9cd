/**
 * The gauges and counters of one registry: what every metrics file of results/metrics/ makes
 * its metrics with.
 */
import client from 'prom-client'

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
