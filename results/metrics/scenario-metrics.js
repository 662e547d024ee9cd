/**
 * The clients' own emits from the simulators' final reports, merged by the one merge
 * (results/scenario.js): emits sent, acked, timed out, failed and closed with their emit → ack
 * time (--emit --emit-ack and a scenario's emitWithAck together, as `ack.p99` reads them), and
 * the replies that come as an event (--reply-event, a scenario's emitAndWait): sent, replied,
 * timed out, failed, with their emit → reply time. Exact HDR percentiles, as the custom figures
 * and the storms; like them, they appear as simulators end.
 */
import { metricMakers, setQuantiles } from './makers.js'
import { ackTimeOf, emitCounts, mergeScenarioReports } from '../scenario.js'

/**
 * @param {import('prom-client').Registry} registry
 */
export function createScenarioMetrics (registry) {
  const { gauge: g } = metricMakers(registry)
  const over = 'over the simulators\' final reports'
  const emits = {
    sent: g('ioswarm_emits_sent', `Emits the clients sent (--emit, a scenario's emits), ${over}`),
    acked: g('ioswarm_emits_acked', `Emits acked by the server, ${over}`),
    timedOut: g('ioswarm_emits_timed_out', `Emits whose ack never came within --ack-timeout, ${over}`),
    failed: g('ioswarm_emits_failed', `Emits whose connection ended before their ack, ${over}`),
    closed: g('ioswarm_emits_closed', `Emits whose client the swarm closed (a ramp-down, the end) before their ack, ${over}`),
    time: g('ioswarm_emit_ack_seconds', `Emit → ack (--emit-ack, a scenario's emitWithAck): exact HDR percentiles, merged ${over}`, ['quantile'])
  }
  const replies = {
    sent: g('ioswarm_replies_sent', `Emits that waited for a reply event (--reply-event, a scenario's emitAndWait), ${over}`),
    replied: g('ioswarm_replies_replied', `Of them, answered by their reply event, ${over}`),
    timedOut: g('ioswarm_replies_timed_out', `Of them, no reply event within --ack-timeout, ${over}`),
    failed: g('ioswarm_replies_failed', `Of them, the connection ended (or the run) before the reply, ${over}`),
    time: g('ioswarm_reply_seconds', `Emit → reply event: exact HDR percentiles, merged ${over}`, ['quantile'])
  }
  return {
    /**
     * Final reports of every simulator so far.
     * @param {import('../collector/types.js').FinalReport[]} finals
     */
    observeFinals (finals) {
      const scenario = mergeScenarioReports(finals.map((f) => f.scenario))
      if (!scenario) return
      const counts = emitCounts(scenario)
      if (counts.sent > 0) {
        for (const key of /** @type {const} */ (['sent', 'acked', 'timedOut', 'failed', 'closed'])) emits[key].set(counts[key] ?? 0)
        setQuantiles(emits.time, ackTimeOf(scenario))
      }
      const r = scenario.replies
      if (r) {
        for (const key of /** @type {const} */ (['sent', 'replied', 'timedOut', 'failed'])) replies[key].set(r[key])
        setQuantiles(replies.time, r.time)
      }
    }
  }
}
