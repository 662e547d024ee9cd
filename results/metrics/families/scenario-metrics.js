/**
 * The exact emit → ack and emit → reply times from the simulators' final reports, merged by the
 * one merge (results/merge/scenario-merge.js): --emit --emit-ack and a scenario's emitWithAck together, as
 * `ack.p99` reads them; the replies that come as an event (--reply-event, a scenario's
 * emitAndWait). Exact HDR percentiles, as the custom figures and the storms; like them, they
 * appear as simulators end. Their counts, and the times as histograms, move during the run
 * (figure-metrics.js).
 */
import { metricMakers, setQuantiles } from '../makers.js'
import { ackTimeOf, mergeScenarioReports } from '../../merge/scenario-merge.js'

/**
 * @param {import('prom-client').Registry} registry
 */
export function createScenarioMetrics (registry) {
  const { gauge: g } = metricMakers(registry)
  const over = 'over the simulators\' final reports'
  const ackTime = g('ioswarm_emit_ack_seconds', `Emit → ack (--emit-ack, a scenario's emitWithAck): exact HDR percentiles, merged ${over}`, ['quantile'])
  const replyTime = g('ioswarm_reply_seconds', `Emit → reply event: exact HDR percentiles, merged ${over}`, ['quantile'])
  return {
    /**
     * Final reports of every simulator so far.
     * @param {import('../../collector/types.js').FinalReport[]} finals
     */
    observeFinals (finals) {
      const scenario = mergeScenarioReports(finals.map((f) => f.scenario))
      if (!scenario) return
      setQuantiles(ackTime, ackTimeOf(scenario))
      setQuantiles(replyTime, scenario.replies?.time)
    }
  }
}
