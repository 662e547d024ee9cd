/**
 * What `ioswarm simulate`'s steering actions do (lib/steering.js): `clients N` resizes the
 * swarm to N clients (the whole, as --clients means in simulate), `emit-rate R` gives every
 * emitter the new mean interval. One process resizes its own swarm; --workers sends each
 * worker its share of N, split by the one partition of a swarm (partition.js).
 */
import { SteeringRefusal, dashboardRoomOf } from '../../lib/steering.js'
import { checkPreflight, needOf, readLimits } from '../inspection/preflight.js'
import { partitionSwarm } from './partition.js'

/**
 * --dashboard without --max-clients: room for the page to grow the swarm, reserved at the start
 * (a swarm sizes its arrays once): twice the clients, or less when this host's limits (the
 * preflight's file descriptors and ports) would not hold that many.
 * @template {import('../sim-options.js').SimOptions} O
 * @param {O} options
 * @param {number} processes 1, or --workers
 * @param {import('../inspection/preflight.js').Limits} [limits]
 * @returns {O} with maxClients set, unless --max-clients or --phases set the size
 */
export function withDashboardRoom (options, processes, limits = readLimits()) {
  if (options.maxClients !== undefined || options.phases) return options
  const room = dashboardRoomOf(options.clients, (size) => checkPreflight(needOf({ ...options, clients: size }, processes), limits))
  return room === null ? options : { ...options, maxClients: room }
}

/**
 * @typedef {import('../../lib/steering.js').Steering} Steering
 * @typedef {(clients: number | undefined, emitIntervalMs: number | undefined) => Promise<void> | void} Apply
 */

/**
 * The checks both layouts share, then `apply`.
 * @param {Steering} steering
 * @param {import('../sim-options.js').SimOptions} options the whole simulator's
 * @param {Apply} apply
 * @returns {() => void} unbind
 */
function bind (steering, options, apply) {
  const room = Math.max(options.clients, options.maxClients ?? 0)
  const releases = [
    steering.handle('clients', async (value) => {
      const clients = /** @type {number} */ (value)
      if (options.phases) throw new SteeringRefusal('the clients follow --phases: a size set by hand would fight the profile')
      if (clients > room) {
        throw new SteeringRefusal(`this swarm has room for ${room} clients (reserved at its start: --max-clients, else with --dashboard twice the swarm ` +
          `as far as this host's limits hold it); start it with --max-clients ${clients} or more to grow to ${clients}`)
      }
      await apply(clients, undefined)
      return `${clients} clients`
    }),
    steering.handle('emit-rate', async (value, { emitIntervalMs }) => {
      if (!options.emit) throw new SteeringRefusal('no client of this swarm emits at a rate: it has no --emit')
      await apply(undefined, emitIntervalMs)
      return `each emitter's mean interval ${Math.round(/** @type {number} */ (emitIntervalMs) * 10) / 10} ms from now on`
    })
  ]
  return () => { for (const release of releases) release() }
}

/**
 * One process: the actions resize this swarm, once it runs (its onResizable hook).
 * @param {Steering | null | undefined} steering
 * @param {import('../sim-options.js').SimOptions} options
 * @returns {{ onResizable: (resize: import('../swarm/resize.js').SwarmResize) => void, release: () => void }}
 */
export function steerSwarm (steering, options) {
  let release = () => {}
  return {
    onResizable: (resize) => {
      if (steering) release = bind(steering, options, (clients, emitIntervalMs) => resize(clients, undefined, emitIntervalMs))
    },
    release: () => release()
  }
}

/**
 * --workers: each worker its share of N (and every one the new emit rate); resolves once each took it.
 * @param {Steering | null | undefined} steering
 * @param {import('../sim-options.js').SimOptions} options the whole simulator's
 * @param {import('./spawn.js').SimulatorChild[]} children
 * @returns {() => void} unbind
 */
export function steerWorkers (steering, options, children) {
  if (!steering) return () => {}
  return bind(steering, options, async (clients, emitIntervalMs) => {
    const shares = clients === undefined ? null : partitionSwarm({ ...options, clients }, children.length).map((p) => p.clients)
    await Promise.all(children.map((c, k) => c.resize(shares?.[k], undefined, emitIntervalMs)))
  })
}
