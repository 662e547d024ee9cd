/**
 * --ramp-guard for people: one line in simulate's and run's summaries (a run's sums its simulators' holds).
 */
import { formatMs } from '../../lib/text/format.js'
import { formatConnectBound } from '../../lib/input/ramp-guard.js'

/**
 * @param {import('../../lib/schema/result-schema.js').RampGuardReport | undefined} g
 * @returns {string[]} no line without --ramp-guard
 */
export function formatRampGuard (g) {
  if (!g) return []
  const slow = g.connectMs ? `, connect time p99 over ${formatConnectBound(g.connectMs)}` : ''
  const bounds = `loop delay over ${g.loopDelayMs} ms${slow} or connect failures over ${g.failuresPct}%`
  const times = `${g.holds} time${g.holds === 1 ? '' : 's'}`
  const held = g.holds === 0 ? 'never held' : `held ${times}, ${formatMs(g.heldMs)} in all (longest ${formatMs(g.longestHoldMs)})`
  return [`ramp guard (${bounds}): ${held}; reconnects deferred over ${g.reconnectsPerS}/s: ${g.deferredReconnects}`]
}
