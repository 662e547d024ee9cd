/**
 * --dashboard for `run` and `capacity`: the live page started before the run, its URL printed
 * on a line that says "dashboard" (a warning when it is bound beyond this host), its events
 * logged beside result.json. Loaded only when asked for.
 */
import path from 'node:path'
import { parseOptions } from '../../lib/cli-options/index.js'
import { parseThresholdOf } from '../../results/index.js'

/**
 * @param {Record<string, unknown>} argv
 * @param {{ command: 'run' | 'capacity', runId: string, name: string, out: string }} run
 * @param {(line: string) => void} [say] where the URL is printed (stderr)
 */
export async function openDashboard (argv, { command, runId, name, out }, say = (line) => process.stderr.write(`${line}\n`)) {
  const { dashboard: port, dashboardHost: host } = parseOptions(command, argv)
  if (port === null || port === undefined) return null
  const { openDashboard: open, EVENTS_FILE } = await import('../../results/dashboard/index.js')
  // The thresholds as given (checked already): the page draws them on their charts and says how they stand.
  const given = [argv.assert, argv.slo].flat().filter((e) => typeof e === 'string')
  const thresholds = given.map((e) => parseThresholdOf(e, command === 'capacity' ? '--slo' : '--assert'))
  return open({ command, port: Number(port), host: String(host), runId, name, logFile: path.join(out, EVENTS_FILE), thresholds }, say)
}
