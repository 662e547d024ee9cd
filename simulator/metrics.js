/**
 * `ioswarm simulate --metrics-port`: this simulator's live metrics, fed by the same hooks
 * that report to a collector (a closed message, a one-second sample), never per receipt.
 */
import { formatTransportMix } from '../lib/options.js'
import { createRunMetrics, serveMetrics } from '../results/index.js'

/**
 * Starts serving on `port`.
 * @param {import('./options.js').SimOptions & { id: string }} options
 * @param {{ port: number, host: string, run: string | null }} serve
 */
export async function startSimulatorMetrics (options, { port, host, run }) {
  const metrics = createRunMetrics({ run: run ?? options.id })
  metrics.observeSimulator({ id: options.id, clients: options.clients, transport: formatTransportMix(options.transport) })
  const server = await serveMetrics({ port, host, registry: () => metrics.registry })
  return { metrics, url: server.url, close: server.close }
}
