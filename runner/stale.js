/**
 * Simulators that stop heartbeating while a distribution runs: hung (SIGSTOP, a blocked
 * event loop), cut off from Redis, or dead. The runner says which one and since when as soon
 * as it notices, goes on without it (rounds wait for live simulators only), and at the end
 * kills those of its own children that are still stale: a hung process does not handle
 * SIGTERM (a stopped one keeps it pending), so waiting for it would only cost the grace period.
 */
import { setTimeout as sleep } from 'node:timers/promises'

/**
 * @typedef {import('../results/collector/types.js').Collector} Collector
 * @typedef {import('../results/collector/types.js').SimulatorStatus} SimulatorStatus
 */

/**
 * Epoch ms as `03:57:54 UTC`: a run's log lines are minutes apart, the date is in the summary.
 * @param {number} epochMs
 */
function formatClockTime (epochMs) {
  return `${new Date(epochMs).toISOString().slice(11, 19)} UTC`
}

/**
 * One line for a simulator just found stale.
 * @param {SimulatorStatus} s
 * @param {number} now epoch ms
 */
export function staleLine (s, now) {
  const since = s.lastHeartbeatAt === null
    ? `never heartbeat (registered ${formatClockTime(s.startedAt)})`
    : `no heartbeat since ${formatClockTime(s.lastHeartbeatAt)} (${Math.max(0, (now - s.lastHeartbeatAt) / 1000).toFixed(1)} s ago)`
  return `simulator ${s.id} (${s.hostname}, pid ${s.pid}) went stale: ${since}; going on without it, its delivered reports are kept`
}

/**
 * Polls the collector until stopped and logs every simulator that turns stale (and any that
 * comes back). Polls are sequential, so a slow collector never has several in flight.
 * @param {{ collector: Collector, runId: string, name: string, log: (line: string) => void, intervalMs?: number }} options
 * @returns {{ stale: Set<string>, stop: () => Promise<void> }} stale: the ids stale at the last poll
 */
export function watchStale ({ collector, runId, name, log, intervalMs = 1000 }) {
  /** @type {Set<string>} */
  const stale = new Set()
  // Registered but no heartbeat yet: stale only if still so at the next poll (the two
  // writes arrive one after the other, and a poll may fall between them).
  /** @type {Set<string>} */
  const unconfirmed = new Set()
  const controller = new AbortController()
  const poll = async () => {
    for (const s of await collector.listSimulators(runId)) {
      if (!s.stale) {
        unconfirmed.delete(s.id)
        if (stale.delete(s.id)) log(`${name}: simulator ${s.id} is reporting again`)
      } else if (!stale.has(s.id)) {
        if (s.lastHeartbeatAt === null && !unconfirmed.has(s.id)) {
          unconfirmed.add(s.id)
          continue
        }
        stale.add(s.id)
        log(`${name}: ${staleLine(s, Date.now())}`)
      }
    }
  }
  const loop = (async () => {
    while (!controller.signal.aborted) {
      await poll().catch(() => {}) // the collector's own errors surface in the runner's queries
      await sleep(intervalMs, undefined, { signal: controller.signal }).catch(() => {})
    }
  })()
  return {
    stale,
    async stop () {
      controller.abort()
      await loop
      await poll().catch(() => {})
    }
  }
}
