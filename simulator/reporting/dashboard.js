/**
 * `ioswarm simulate --dashboard`: the live page of `run` and `capacity` (results/dashboard/)
 * for one simulator or its --workers. Its seconds are folded from the reports and samples that
 * feed --metrics-port (this process's hooks, or the follower of its workers), its actions are
 * simulate's steering, its log the lines simulate prints. Loaded only when asked for.
 */
import { formatWindowLine } from '../../lib/text/window-text.js'
import { phaseMarks } from '../../lib/input/phase-profile.js'
import { windowRow } from '../../results/index.js'

/**
 * @typedef {Awaited<ReturnType<typeof openSimulateDashboard>>} SimulateDashboard
 */

/**
 * Starts the page (null without --dashboard) and says its URL.
 * @param {{ port: number | null | undefined, host: string, id: string, steering: import('../../lib/steering.js').Steering }} options
 * @param {(line: string) => void} say where the URL is printed (stderr)
 */
export async function openSimulateDashboard ({ port, host, id, steering }, say) {
  if (port === null || port === undefined) return null
  const { openDashboard } = await import('../../results/dashboard/index.js')
  // No events log: simulate writes no results folder (its result goes to stdout with --json).
  const dashboard = await openDashboard({ command: 'simulate', port, host, runId: id, name: id, logFile: null }, say)
  dashboard.attachSteering(steering)
  const feed = dashboard.stream.feed()
  return {
    /** What the seconds are folded from: fed as --metrics-port is. */
    sink: feed.sink,
    /** @param {string} text a line simulate prints, for the page's log */
    log (text) {
      for (const line of text.split('\n')) if (line.trim() !== '') dashboard.stream.push({ type: 'log', at: Date.now(), text: line })
    },
    /** @param {import('../../lib/input/phase-profile.js').Phase[]} phases --phases, as the swarm starts them: each step shaded on the charts */
    phases (phases) {
      for (const mark of phaseMarks(phases, Date.now())) dashboard.stream.push(mark)
    },
    /**
     * A window as it closed (its delays as summaries, as result.json keeps them).
     * @param {import('../../lib/schema/result-schema.js').WindowReport | import('../../lib/schema/result-schema.js').WindowResult} window
     */
    window (window) {
      const row = 'histogram' in window.relative ? windowRow(/** @type {import('../../lib/schema/result-schema.js').WindowReport} */ (window)) : window
      dashboard.stream.push({ type: 'window', at: Date.now(), text: formatWindowLine(row), window: row })
    },
    /** The swarm is over: its last second, the end event; the pages' streams end and nothing waits for them. */
    async close () {
      feed.stop()
      dashboard.attachSteering(null)
      await dashboard.close({})
    }
  }
}
