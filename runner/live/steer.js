/**
 * What a run's steering actions do to one running distribution: `clients N` makes the whole
 * swarm N clients, each simulator its share (shareOf, the one partition's split), `emit-rate R`
 * gives every emitter the new mean interval. Local simulators take it over IPC and answer; with
 * --redis every simulator alive in the run, local or joined from elsewhere, takes it as a control
 * message (as the run's stop) naming each one's share, and one joined from elsewhere that has no
 * room for its share says nothing back.
 */
import { SteeringRefusal } from '../../lib/steering.js'
import { shareOf } from '../../simulator/index.js'

/**
 * @typedef {import('../../lib/steering.js').Steering} Steering
 * @typedef {import('../../simulator/processes/spawn.js').SimulatorChild} SimulatorChild
 */

/**
 * Binds the run's clients and emit-rate actions to a distribution's simulators while it runs.
 * @param {object} ctx
 * @param {import('../run-options.js').RunOptions} ctx.options
 * @param {import('../../results/collector/types.js').Collector} ctx.collector
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
  // The most clients each local simulator has room for (its arrays are sized once, at its start).
  const rooms = parts.map((p) => Math.max(p.clients, p.maxClients ?? 0))
  const releases = [
    steering.handle('clients', async (value) => {
      const clients = /** @type {number} */ (value)
      if (options.phases) throw new SteeringRefusal('the clients follow --phases in this run: a size set by hand would fight the profile')
      if (redis) return resizeThroughRedis(ctx, clients)
      const shares = children.map((_, k) => shareOf(clients, children.length, k))
      const room = rooms.reduce((sum, r) => sum + r, 0)
      if (shares.some((share, k) => share > rooms[k])) {
        throw new SteeringRefusal(`the simulators of this run have room for ${room} clients (reserved at their start: --max-clients, ` +
          'else with --dashboard twice the swarm as far as this host\'s limits hold it); ' +
          `start the run with --max-clients ${clients} or more to grow to ${clients}`)
      }
      await Promise.all(children.map((c, k) => c.resize(shares[k], ctx.rampMs)))
      return `${clients} clients over ${children.length} simulator${children.length === 1 ? '' : 's'}`
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

/**
 * With --redis: each simulator alive in the run (local or joined) its share of N, by id, in one
 * control message; a simulator past its room keeps its size (pub/sub has no answer).
 * @param {Parameters<typeof steerDistribution>[0]} ctx
 * @param {number} clients
 */
async function resizeThroughRedis ({ collector, runId, rampMs }, clients) {
  const ids = (await collector.listSimulators(runId)).filter((s) => s.alive).map((s) => s.id).sort()
  if (ids.length === 0) throw new SteeringRefusal('no simulator of this run is alive')
  const shares = Object.fromEntries(ids.map((id, k) => [id, shareOf(clients, ids.length, k)]))
  await collector.publishControl(runId, { type: 'resize', shares, rampMs })
  return `${clients} clients over ${ids.length} simulator${ids.length === 1 ? '' : 's'}, sent through Redis (each up to its own room)`
}
