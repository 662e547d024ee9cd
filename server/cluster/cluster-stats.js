/**
 * GET /stats of a cluster: the total over the primary and every worker, and each of them.
 * Totals: CPU, memory and connections add up; event-loop delay and utilisation are the
 * worst process's (a saturated worker is what delays its clients); the app counts (per
 * namespace, refused, rooms, relay) add up.
 */
import { perTransport, totalOf } from '../../lib/transports.js'
import { sumAppCounts } from '../app.js'

/**
 * @typedef {import('../../lib/measure/process-sampler.js').ProcessSample} ProcessSample
 * @typedef {import('../../lib/schema/result-schema.js').ServerSample} ServerSample
 */

/**
 * @param {ProcessSample} primary
 * @param {{ index: number, pid: number, sample: ServerSample | null }[]} workers null = no answer in time
 * @param {string} adapter
 */
export function totalStats (primary, workers, adapter) {
  const answered = workers.flatMap((w) => w.sample ? [w.sample] : [])
  const all = [primary, ...answered]
  const sum = (/** @type {(s: ProcessSample) => number} */ pick) => all.reduce((total, s) => total + pick(s), 0)
  const max = (/** @type {(s: ProcessSample) => number} */ pick) => Math.max(...all.map(pick))
  const round2 = (/** @type {number} */ v) => Math.round(v * 100) / 100
  const byTransport = perTransport((name) => answered.reduce((total, s) => total + s.byTransport[name], 0))
  return {
    t: primary.t,
    loopDelayP50Ms: max((s) => s.loopDelayP50Ms),
    loopDelayP99Ms: max((s) => s.loopDelayP99Ms),
    loopDelayMaxMs: max((s) => s.loopDelayMaxMs),
    elu: max((s) => s.elu),
    cpuPct: round2(sum((s) => s.cpuPct)),
    rssBytes: sum((s) => s.rssBytes),
    heapUsedBytes: sum((s) => s.heapUsedBytes),
    connected: totalOf(byTransport),
    byTransport,
    app: sumAppCounts(answered.flatMap((s) => s.app ? [s.app] : [])),
    cluster: {
      adapter,
      workers: workers.length,
      unanswered: workers.filter((w) => !w.sample).map((w) => w.index)
    },
    primary,
    workers: workers.map((w) => w.sample ? { worker: w.index, pid: w.pid, ...w.sample } : { worker: w.index, pid: w.pid, error: 'no answer in time' })
  }
}
