/**
 * --dashboard without --max-clients: room for the page to grow the swarm. A simulator sizes its
 * arrays once, at its start (simulator/swarm/resize.js), so the room is reserved then: twice the
 * swarm, or less when this host's limits (file descriptors, ports, memory, as the run's
 * preflight judges them) would not hold that many clients.
 */
import { dashboardRoomOf } from '../../lib/steering.js'
import { checkRunPreflight } from '../preflight.js'

/**
 * @param {import('../run-options.js').RunOptions} options
 * @param {import('../../lib/limits.js').Limits} limits
 * @returns {{ room: number, clients: number } | null} the whole swarm's room and clients; null when the run sets its own
 *   (--max-clients), follows --phases, has several distributions or no local simulator
 */
export function dashboardRoom (options, limits) {
  if (options.simulatorInput.maxClients !== undefined || options.phases || options.distributions.length !== 1) return null
  const [d] = options.distributions
  if (d.simulators === 0) return null
  const clients = d.total
  const sized = (/** @type {number} */ size) => ({ ...options, distributions: [{ ...d, clients: Math.ceil(size / d.simulators), total: size }] })
  const room = dashboardRoomOf(clients, (size) => checkRunPreflight(sized(size), limits))
  return { room: room ?? clients, clients }
}

/**
 * The line that says the room (or why there is none to grow into).
 * @param {{ room: number, clients: number }} room
 */
export function roomLine ({ room, clients }) {
  return room > clients
    ? `dashboard: room for ${room} clients: the page may grow the swarm up to that (--max-clients N reserves another room)`
    : `dashboard: no room to grow the swarm past ${clients} clients from the page: this host's limits would not hold more (the preflight); ` +
      '--max-clients N reserves room anyway'
}
