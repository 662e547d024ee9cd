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
import { steeredHooks } from '../../lib/steering.js'
import { steerSwarm } from './steering.js'

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
 * @param {import('../swarm/swarm.js').SwarmHooks & { steering?: import('../../lib/steering.js').Steering }} [hooks] signal, progress, …;
 *   message and sample hooks run beside the collector's; steering: `simulate`'s actions (lib/steering.js), its stop joined to the signal
 *   and its timeline the result's `actions`
 * @returns {Promise<LinkedResult>}
 */
export async function runLinkedSwarm (options, link, hooks = {}) {
  hooks = steeredHooks(hooks)
  const steered = steerSwarm(hooks.steering, options)
  const controlStop = new AbortController()
  /** @type {import('../swarm/resize.js').SwarmResize | null} */
  let resize = null
  // A run's clients or emit-rate action through Redis. Pub/sub has no answer: a resize this swarm
  // has no room for is not done, and the run's timeline says what was asked, not what each simulator did.
  const onResize = (/** @type {{ shares?: unknown, rampMs?: unknown, emitIntervalMs?: unknown }} */ m) => {
    // Each simulator's share of the whole, by id: one not named keeps its size.
    const share = m.shares && typeof m.shares === 'object' ? /** @type {Record<string, unknown>} */ (m.shares)[options.id] : undefined
    const clients = typeof share === 'number' ? share : undefined
    const emitIntervalMs = typeof m.emitIntervalMs === 'number' && m.emitIntervalMs >= 1 ? m.emitIntervalMs : undefined
    try {
      resize?.(clients, typeof m.rampMs === 'number' ? m.rampMs : undefined, emitIntervalMs)
    } catch {}
  }
  const linked = link ? await linkCollector(link, options, controlStop, onResize) : null
  const signal = hooks.signal ? AbortSignal.any([hooks.signal, controlStop.signal]) : controlStop.signal
  const result = await startSwarm(options, {
    ...hooks,
    signal,
    onResizable: (fn) => {
      resize = fn
      steered.onResizable(fn)
      hooks.onResizable?.(fn)
    },
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
  steered.release()
  const actions = hooks.steering?.timeline() ?? []
  if (actions.length > 0) result.actions = actions
  if (!linked) return { result, delivery: null }
  const sent = await linked.finish(result)
  const refused = refusedOf(sent.refusedLimit ?? 0, { [options.id]: sent.refused })
  return { result: refused ? { ...result, reportsRefused: refused } : result, delivery: { undelivered: sent.undelivered, lastError: sent.lastError } }
}
