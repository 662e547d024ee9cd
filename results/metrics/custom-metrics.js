/**
 * The app's own figures (a scenario's ctx.timing and ctx.count) from the simulators' final
 * reports, merged by the one merge (lib/custom.js): a count per name, and per timing name its
 * number of timings and its exact HDR percentiles. Names are bounded (50) and plain where they
 * are recorded, so they are labels as they are. Like the storms, they appear as simulators end.
 */
import { metricMakers, setQuantiles } from './makers.js'
import { mergeCustomReports } from '../../lib/custom.js'

/**
 * @param {import('prom-client').Registry} registry
 */
export function createCustomMetrics (registry) {
  const { gauge: g } = metricMakers(registry)
  const m = {
    count: g('ioswarm_custom_counted', 'A scenario\'s ctx.count(name, n): the total over the simulators\' final reports', ['name']),
    timings: g('ioswarm_custom_timings_recorded', 'A scenario\'s ctx.timing(name, ms): timings recorded, over the simulators\' final reports', ['name']),
    timing: g('ioswarm_custom_timing_seconds', 'A scenario\'s ctx.timing(name, ms): exact HDR percentiles, merged over the simulators\' final reports', ['name', 'quantile'])
  }
  return {
    /**
     * Final reports of every simulator so far.
     * @param {import('../collector/types.js').FinalReport[]} finals
     */
    observeFinals (finals) {
      const custom = mergeCustomReports(finals.map((f) => f.custom))
      if (!custom) return
      for (const [name, n] of Object.entries(custom.counts)) m.count.set({ name }, n)
      for (const [name, t] of Object.entries(custom.timings)) {
        m.timings.set({ name }, t.count)
        setQuantiles(m.timing, t, { name })
      }
    }
  }
}
