/**
 * A swarm with its collector link: what `ioswarm simulate` runs in its own process and what
 * a simulator child (simulator/processes/child.js) runs for `ioswarm run` or `simulate --workers`.
 * Registers with the collector (Redis, or the parent over IPC) when there is one, forwards
 * every report, stops on the collector's `stop` control message, and flushes the final
 * report before it resolves.
 */
import { refusedOf } from '../../results/collector/index.js'
import { linkCollector } from '../reporting/collector-link.js'
import { startSwarm } from '../swarm/swarm.js'

/**
 * @typedef {import('../reporting/collector-link.js').CollectorLinkOptions} CollectorLinkOptions
 * @typedef {object} LinkedResult
 * @property {import('../../lib/schema/result-schema.js').SimResult} result
 * @property {{ undelivered: number, lastError: string | null } | null} delivery what the collector did not get (null without one); reports it
 *   refused past the run's bound are in the result (`reportsRefused`)
 */

/**
 * @param {import('../sim-options.js').SimOptions & { id: string }} options normalised options, with the simulator's id
 * @param {CollectorLinkOptions | null} link null = no collector
 * @param {import('../swarm/swarm.js').SwarmHooks} [hooks] signal, progress, …; message and sample hooks run beside the collector's
 * @returns {Promise<LinkedResult>}
 */
export async function runLinkedSwarm (options, link, hooks = {}) {
  const controlStop = new AbortController()
  const linked = link ? await linkCollector(link, options, controlStop) : null
  const signal = hooks.signal ? AbortSignal.any([hooks.signal, controlStop.signal]) : controlStop.signal
  const result = await startSwarm(options, {
    ...hooks,
    signal,
    clock: linked?.hooks.clock ?? hooks.clock,
    onMessage: (report) => {
      linked?.hooks.onMessage(report)
      hooks.onMessage?.(report)
    },
    onSample: (sample) => {
      linked?.hooks.onSample(sample)
      hooks.onSample?.(sample)
    },
    onWindow: (window) => {
      linked?.hooks.onWindow(window)
      hooks.onWindow?.(window)
    }
  })
  if (!linked) return { result, delivery: null }
  const sent = await linked.finish(result)
  const refused = refusedOf(sent.refusedLimit ?? 0, { [options.id]: sent.refused })
  return { result: refused ? { ...result, reportsRefused: refused } : result, delivery: { undelivered: sent.undelivered, lastError: sent.lastError } }
}
