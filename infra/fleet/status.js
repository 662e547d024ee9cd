/**
 * `fleet status`: which simulators of a run are alive, stale or finished, grouped by the
 * host they run on, read from the run's Redis (the collector's listSimulators). It needs no
 * ssh: every simulator reports to Redis, and a host that cannot reach Redis shows as stale.
 */
import { createRedisCollector } from '../../results/collector/index.js'

/**
 * @typedef {import('../../results/collector/types.js').SimulatorStatus} SimulatorStatus
 * @typedef {'alive' | 'finished' | 'stale'} SimulatorState
 * @typedef {object} FleetStatus
 * @property {string} runId
 * @property {{ alive: number, finished: number, stale: number, clientsConnected: number, clientsTarget: number }} totals
 * @property {{ hostname: string, simulators: (SimulatorStatus & { state: SimulatorState })[] }[]} hosts by hostname
 */

/**
 * A simulator's state: alive while its heartbeat key lives, finished once it sent its final report.
 * @param {SimulatorStatus} sim
 * @returns {SimulatorState}
 */
export function simulatorState (sim) {
  if (sim.alive) return 'alive'
  return sim.final ? 'finished' : 'stale'
}

/**
 * Groups a run's simulators by host and counts them.
 * @param {string} runId
 * @param {SimulatorStatus[]} simulators
 * @returns {FleetStatus}
 */
export function summarizeFleet (runId, simulators) {
  /** @type {Map<string, (SimulatorStatus & { state: SimulatorState })[]>} */
  const byHost = new Map()
  const totals = { alive: 0, finished: 0, stale: 0, clientsConnected: 0, clientsTarget: 0 }
  for (const sim of simulators) {
    const state = simulatorState(sim)
    totals[state]++
    totals.clientsConnected += sim.clients.connected
    totals.clientsTarget += sim.clients.target
    const list = byHost.get(sim.hostname) ?? []
    list.push({ ...sim, state })
    byHost.set(sim.hostname, list)
  }
  const hosts = [...byHost].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([hostname, sims]) => ({ hostname, simulators: sims }))
  return { runId, totals, hosts }
}

/**
 * Reads a run's fleet status from Redis.
 * @param {{ redisUrl: string, runId: string }} options
 * @returns {Promise<FleetStatus>}
 */
export async function readFleetStatus ({ redisUrl, runId }) {
  const collector = await createRedisCollector({ redisUrl })
  try {
    return summarizeFleet(runId, await collector.listSimulators(runId))
  } finally {
    await collector.close()
  }
}

/**
 * The status as text: one line per host, one per simulator under it, totals last.
 * @param {FleetStatus} status
 * @param {number} [nowMs]
 */
export function formatFleetStatus (status, nowMs = Date.now()) {
  if (status.hosts.length === 0) return `run ${status.runId}: no simulator has registered`
  const lines = [`run ${status.runId}`]
  for (const { hostname, simulators } of status.hosts) {
    const alive = simulators.filter((s) => s.state === 'alive').length
    lines.push(`${hostname}: ${alive}/${simulators.length} alive`)
    for (const s of simulators) {
      const seen = s.lastHeartbeatAt === null ? 'never heartbeat' : `last heartbeat ${Math.max(0, Math.round((nowMs - s.lastHeartbeatAt) / 1000))} s ago`
      lines.push(`  ${s.id}  ${s.state.padEnd(8)} pid ${s.pid}  ${s.clients.connected}/${s.clients.target} clients  ${s.transport} ${s.engine}  ${seen}`)
    }
  }
  const t = status.totals
  lines.push(`total: ${t.alive} alive, ${t.finished} finished, ${t.stale} stale; ${t.clientsConnected}/${t.clientsTarget} clients connected`)
  return lines.join('\n')
}
