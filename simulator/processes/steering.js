/**
 * What `ioswarm simulate`'s steering actions do (lib/steering.js): `clients N` resizes the
 * swarm to N clients (the whole, as --clients means in simulate), `emit-rate R` gives every
 * emitter the new mean interval. One process resizes its own swarm; --workers sends each
 * worker its share of N, split by the one partition of a swarm (partition.js).
 */
import { SteeringRefusal } from '../../lib/steering.js'
import { partitionSwarm } from './partition.js'

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
        throw new SteeringRefusal(`this swarm has room for ${room} clients (--max-clients, else --clients); ` +
          `start it with --max-clients ${clients} or more to grow to ${clients}`)
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
