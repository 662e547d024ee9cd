/**
 * Reconnect storms (waves of disconnects, from the first drop until every dropped client was
 * back) from the simulators' final reports: how many, how many clients they dropped and did
 * not get back, sessions recovered, gap deliveries lost, and the worst time back to
 * 50/90/99/100 % of the dropped. A simulator measures
 * a storm's end only once it is over, so these appear as simulators end, like the reasons.
 */
import { metricMakers } from '../makers.js'

const QUANTILES = /** @type {const} */ ([['0.5', 'p50'], ['0.9', 'p90'], ['0.99', 'p99'], ['1', 'p100']])

/**
 * @param {import('prom-client').Registry} registry
 */
export function createStormMetrics (registry) {
  const { gauge: g } = metricMakers(registry)
  const m = {
    storms: g('ioswarm_storms', 'Reconnect storms in the simulators\' final reports so far'),
    dropped: g('ioswarm_storm_clients_dropped', 'Clients dropped in those storms'),
    notBack: g('ioswarm_storm_clients_not_back', 'Of them, clients not connected again when the storm was measured'),
    recovered: g('ioswarm_storm_sessions_recovered', 'Of them, clients whose session the server restored (socket.io connection state recovery)'),
    lost: g('ioswarm_storm_deliveries_lost', 'Deliveries of messages sent while a dropped client was away that never reached it (replayed ones are not lost)'),
    back: g('ioswarm_storm_back_seconds', 'The slowest storm\'s time from the first drop until this share of its dropped clients was back', ['quantile'])
  }
  return {
    /**
     * Final reports of every simulator so far.
     * @param {import('../../collector/types.js').FinalReport[]} finals
     */
    observeFinals (finals) {
      const storms = finals.flatMap((f) => f.clients.storms?.list ?? [])
      m.storms.set(storms.length + finals.reduce((n, f) => n + (f.clients.storms?.more ?? 0), 0))
      m.dropped.set(storms.reduce((n, s) => n + s.dropped, 0))
      m.notBack.set(storms.reduce((n, s) => n + Math.max(0, s.dropped - s.back), 0))
      m.recovered.set(storms.reduce((n, s) => n + (s.recovered ?? 0), 0))
      m.lost.set(storms.reduce((n, s) => n + (s.lost ?? 0), 0))
      for (const [quantile, field] of QUANTILES) {
        const times = storms.flatMap((s) => (s.backMs[field] === null ? [] : [s.backMs[field]]))
        if (times.length > 0) m.back.set({ quantile }, Math.max(...times) / 1000)
      }
    }
  }
}
