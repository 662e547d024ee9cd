/**
 * Message reports the collector refused past a run's bound (LIMITS.messageReports): counted
 * by simulator in the collector, carried in the result as `reportsRefused`, and warned about
 * in the terminal summary and the report. Windows are separate reports and stay complete.
 */
import { plain } from '../lib/format.js'

/** What a refused report is missing from. */
export const REFUSED_AFFECTS = Object.freeze(['messages.csv', 'per-message results', 'rounds', 'per-room deliveries'])

/**
 * The refusals of one run in the collector, or null without any.
 * @param {Pick<import('./collector/types.js').CollectorReader, 'getRefused'>} collector
 * @param {string} runId
 * @returns {Promise<import('../lib/schema.js').ReportsRefused | null>}
 */
export async function readRefused (collector, runId) {
  const { limit, bySimulator } = await collector.getRefused(runId)
  const total = Object.values(bySimulator).reduce((sum, n) => sum + n, 0)
  return total > 0 ? { total, limit, bySimulator, affects: [...REFUSED_AFFECTS] } : null
}

/**
 * The warning line for a distribution's refused reports, or null without any.
 * @param {{ name: string, reportsRefused?: import('../lib/schema.js').ReportsRefused }} d
 */
export function refusedWarning (d) {
  const r = d.reportsRefused
  if (!r || r.total === 0) return null
  const bySim = Object.entries(r.bySimulator).map(([s, n]) => `${plain(s)} ${n}`).join(', ')
  return `WARNING: ${plain(d.name)}: ${r.total} message reports refused past the collector's bound of ${r.limit} per run (${bySim}); ` +
    `they are missing from ${r.affects.join(', ')} (windows are complete). The bound is fixed (LIMITS.messageReports in ` +
    'lib/collector-keys.js, no flag or env): stay under it with rounds, a shorter run or fewer messages.'
}
