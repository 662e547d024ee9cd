/**
 * `ioswarm simulate --metrics-port`: this simulator's live metrics, fed by the same hooks
 * that report to a collector (a closed message, a one-second sample), never per receipt.
 */
import { formatTransportMix, parseTransportMix } from '../lib/options.js'
import { createRunMetrics, parseMetricsPort, serveMetrics } from '../results/index.js'

/**
 * Starts serving when --metrics-port is given; null otherwise.
 * @param {{ metricsPort?: unknown, metricsHost?: string, run?: string, clients: string, transport: string }} argv
 * @param {string} id simulator id
 */
export async function startSimulatorMetrics (argv, id) {
  const port = parseMetricsPort(argv.metricsPort)
  if (port === null) return null
  const metrics = createRunMetrics({ run: argv.run ?? id })
  metrics.observeSimulator({ id, clients: Number(argv.clients), transport: formatTransportMix(parseTransportMix(argv.transport)) })
  const server = await serveMetrics({ port, host: argv.metricsHost ?? '127.0.0.1', registry: () => metrics.registry })
  return { metrics, url: server.url, close: server.close }
}
