/**
 * What a run's steering actions do to one running distribution: `clients N` resizes every
 * simulator to N clients (N means what `run --clients` means: clients per simulator), `emit-rate
 * R` gives every emitter the new mean interval. Local simulators take it over IPC and answer;
 * with --redis every simulator, local or joined from elsewhere, takes it as a control message
 * (as the run's stop), and one joined from elsewhere that has no room for N says nothing back.
 */
import { SteeringRefusal } from '../lib/steering.js'
import { shareOf } from '../simulator/index.js'

/**
 * @typedef {import('../lib/steering.js').Steering} Steering
 * @typedef {import('../simulator/processes/spawn.js').SimulatorChild} SimulatorChild
 */

/**
 * Binds the run's clients and emit-rate actions to a distribution's simulators while it runs.
 * @param {object} ctx
 * @param {import('./run-options.js').RunOptions} ctx.options
 * @param {import('../results/collector/types.js').Collector} ctx.collector
 * @param {string} ctx.runId
 * @param {number} ctx.rampMs new clients are spread over the run's ramp, as the first ones were
 * @param {SimulatorChild[]} children the local simulators
 * @param {{ clients: number, maxClients?: number }[]} parts each local simulator's share (simulator/processes/partition.js)
 * @param {Steering | null | undefined} steering
 * @returns {() => void} unbind (at the distribution's end: later actions are refused as not possible now)
 */
export function steerDistribution (ctx, children, parts, steering) {
  if (!steering) return () => {}
  const { options, collector, runId } = ctx
  const redis = collector.kind === 'redis'
  // The most clients every local simulator has room for (its arrays are sized once, at its start).
  const room = parts.length === 0 ? Infinity : Math.min(...parts.map((p) => Math.max(p.clients, p.maxClients ?? 0)))
  const releases = [
    steering.handle('clients', async (value) => {
      const clients = /** @type {number} */ (value)
      if (options.phases) throw new SteeringRefusal('the clients follow --phases in this run: a size set by hand would fight the profile')
      if (clients > room) {
        throw new SteeringRefusal(`each simulator of this run has room for ${room} clients (--max-clients, else --clients); ` +
          `start the run with --max-clients ${clients} or more to grow to ${clients}`)
      }
      if (redis) await collector.publishControl(runId, { type: 'resize', clients, rampMs: ctx.rampMs })
      // One swarm of N per simulator, split as everywhere: each local simulator its share of the whole.
      else await Promise.all(children.map((c, k) => c.resize(shareOf(clients * children.length, children.length, k), ctx.rampMs)))
      return `${clients} clients per simulator${redis ? ', sent to every simulator through Redis' : ''}`
    }),
    steering.handle('emit-rate', async (value, { emitIntervalMs }) => {
      if (!options.simulatorInput.emit) throw new SteeringRefusal('no client of this run emits at a rate: it has no --emit')
      const ms = /** @type {number} */ (emitIntervalMs)
      if (redis) await collector.publishControl(runId, { type: 'resize', emitIntervalMs: ms })
      else await Promise.all(children.map((c) => c.resize(undefined, undefined, ms)))
      return `each emitter's mean interval ${Math.round(ms * 10) / 10} ms from now on`
    })
  ]
  return () => { for (const release of releases) release() }
}
