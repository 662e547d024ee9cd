/**
 * The exact percentiles of a scenario's ctx.timing from the simulators' final reports, merged
 * by the one merge (lib/measure/custom-measures.js), per timing name. Names are bounded (50) and plain where
 * they are recorded, so they are labels as they are. Like the storms, they appear as
 * simulators end; the counts (ctx.count, timings recorded) and the timings as a histogram move
 * during the run (figure-metrics.js).
 */
import { metricMakers, setQuantiles } from '../makers.js'
import { mergeCustomReports } from '../../../lib/measure/custom-measures.js'

/**
 * @param {import('prom-client').Registry} registry
 */
export function createCustomMetrics (registry) {
  const { gauge: g } = metricMakers(registry)
  const timing = g('ioswarm_custom_timing_seconds',
    'A scenario\'s ctx.timing(name, ms): exact HDR percentiles, merged over the simulators\' final reports', ['name', 'quantile'])
  return {
    /**
     * Final reports of every simulator so far.
     * @param {import('../../collector/types.js').FinalReport[]} finals
     */
    observeFinals (finals) {
      const custom = mergeCustomReports(finals.map((f) => f.custom))
      for (const [name, t] of Object.entries(custom?.timings ?? {})) setQuantiles(timing, t, { name })
    }
  }
}
