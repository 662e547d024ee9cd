/**
 * Message reports the collector refused past a run's bound (LIMITS.messageReports): counted
 * by simulator in the collector, carried in the result as `reportsRefused`, and warned about
 * in the terminal summary and the report. Windows are separate reports and stay complete.
 */
import { plain } from '../../lib/text/format.js'

/** What a refused report is missing from (a run's; a capacity search's: CAPACITY_AFFECTS). */
const REFUSED_AFFECTS = Object.freeze(['messages.csv', 'per-message results', 'rounds', 'per-room deliveries'])

/** What a refused report is missing from in a capacity search: its steps' rounds, and so their verdicts. */
export const CAPACITY_AFFECTS = Object.freeze(['the steps\' rounds (their verdicts)'])

/**
 * The refusals of one run in the collector, or null without any.
 * @param {Pick<import('../collector/types.js').CollectorReader, 'getRefused'>} collector
 * @param {string} runId
 * @param {readonly string[]} [affects] what a refused report is missing from (default: a run's REFUSED_AFFECTS)
 * @returns {Promise<import('../../lib/schema/result-schema.js').ReportsRefused | null>}
 */
export async function readRefused (collector, runId, affects = REFUSED_AFFECTS) {
  const { limit, bySimulator } = await collector.getRefused(runId)
  return refusedOf(limit, bySimulator, affects)
}

/**
 * The refusals by simulator as a result carries them, or null without any.
 * @param {number} limit the bound
 * @param {Record<string, number>} bySimulator
 * @param {readonly string[]} [affects] what they are missing from
 * @returns {import('../../lib/schema/result-schema.js').ReportsRefused | null}
 */
export function refusedOf (limit, bySimulator, affects = REFUSED_AFFECTS) {
  const total = Object.values(bySimulator).reduce((sum, n) => sum + n, 0)
  return total > 0 ? { total, limit, bySimulator: { ...bySimulator }, affects: [...affects] } : null
}

/**
 * The refusals of several processes (simulate --workers) as one, or null without any.
 * @param {(import('../../lib/schema/result-schema.js').ReportsRefused | undefined | null)[]} list
 * @returns {import('../../lib/schema/result-schema.js').ReportsRefused | null}
 */
export function mergeRefused (list) {
  const present = list.filter((r) => r !== undefined && r !== null)
  if (present.length === 0) return null
  return refusedOf(Math.max(...present.map((r) => r.limit)), Object.assign({}, ...present.map((r) => r.bySimulator)), present[0].affects)
}

/**
 * The warning line for a distribution's refused reports, or null without any.
 * @param {{ name: string, reportsRefused?: import('../../lib/schema/result-schema.js').ReportsRefused }} d
 */
export function refusedWarning (d) {
  const r = d.reportsRefused
  if (!r || r.total === 0) return null
  const bySim = Object.entries(r.bySimulator).map(([s, n]) => `${plain(s)} ${n}`).join(', ')
  return `WARNING: ${plain(d.name)}: ${r.total} message reports refused past the collector's bound of ${r.limit} per run (${bySim}); ` +
    `they are missing from ${r.affects.join(', ')} (windows are complete). The bound is fixed (LIMITS.messageReports in ` +
    'lib/schema/collector-keys.js, no flag or env): stay under it with rounds, a shorter run or fewer messages.'
}
