/**
 * --dashboard without --max-clients: room for the page to grow the swarm. A simulator sizes its
 * arrays once, at its start (simulator/swarm/resize.js), so the room is reserved then: twice the
 * swarm, or less when this host's limits (file descriptors, ports, memory, as the run's
 * preflight judges them) would not hold that many clients.
 */
import { CODES, IoswarmError } from '../../lib/errors.js'
import { checkRunPreflight } from '../preflight.js'

/** The room --dashboard reserves by default, as multiples of the swarm: the first this host holds. */
export const DASHBOARD_ROOM = [2, 1.5, 1.25]

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
  for (const factor of DASHBOARD_ROOM) {
    const room = Math.floor(clients * factor)
    try {
      checkRunPreflight({ ...options, distributions: [{ ...d, clients: Math.ceil(room / d.simulators), total: room }] }, limits)
      return { room, clients }
    } catch (error) {
      if (!(error instanceof IoswarmError && error.code === CODES.LIMIT)) throw error
    }
  }
  return { room: clients, clients }
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
