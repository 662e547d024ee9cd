/**
 * The reference server's own metrics (`ioswarm serve --metrics-port`): connections by
 * transport, broadcasts and emits per second (as counters: rate() gives per second), and its
 * process sample, fed once a second by the server's sample hook.
 */
import client from 'prom-client'
import { metricMakers } from './makers.js'

/**
 * @param {{ server?: string }} [labels]
 */
export function createServerMetrics ({ server = 'server' } = {}) {
  const registry = new client.Registry()
  registry.setDefaultLabels({ server })
  const { gauge: g, counter: c } = metricMakers(registry)
  const connected = g('ioswarm_server_clients_connected', 'Clients connected, by transport', ['transport'])
  const cpu = g('ioswarm_server_cpu_percent', 'CPU over the last second, % of one core')
  const rss = g('ioswarm_server_rss_bytes', 'Resident memory')
  const loopDelay = g('ioswarm_server_loop_delay_p99_seconds', 'Event-loop delay p99 over the last second')
  const broadcasts = c('ioswarm_server_broadcasts_total', 'Broadcast messages emitted (io.emit calls)')
  const emits = c('ioswarm_server_emits_total', 'Frames emitted to clients: each broadcast times the clients connected then')
  return {
    registry,
    /** @param {import('../../lib/schema/result-schema.js').ServerSample} sample */
    observeSample (sample) {
      for (const [transport, n] of Object.entries(sample.byTransport ?? {})) connected.set({ transport }, n)
      cpu.set(sample.cpuPct)
      rss.set(sample.rssBytes)
      loopDelay.set(sample.loopDelayP99Ms / 1000)
    },
    /**
     * @param {number} messages broadcasts emitted
     * @param {number} recipients clients each went to
     */
    observeBroadcast (messages, recipients) {
      broadcasts.inc(messages)
      emits.inc(messages * recipients)
    }
  }
}
