/**
 * A run's windows (--window, a run without rounds), merged over every simulator as they come:
 * the collector holds each simulator's window reports (local over IPC, joined through Redis);
 * a follower reads the new ones, and once every live simulator has reported a window (or a
 * later one), merges it with the one window merge (measures.js mergeWindowReports: counts
 * summed, histograms merged), hands it on, and keeps only its row (summaries): the reports
 * themselves are freed, here and in the collector (dropWindows: what was read is held here
 * until merged), so a 30-minute run holds its 180 small rows and nothing more.
 */
import { followEvery } from './follow.js'
import { mergeWindowReports, windowRow } from '../merge/measures.js'

/**
 * @typedef {import('../../lib/schema/result-schema.js').WindowReport} WindowReport
 * @typedef {import('../../lib/schema/result-schema.js').WindowResult} WindowResult
 */

/**
 * Follows a run's windows until `finish()`.
 * @param {import('../collector/types.js').Collector} collector
 * @param {string} runId
 * @param {{ onWindow?: (row: WindowResult) => void }} [hooks] each merged window, in order
 */
export function followWindows (collector, runId, { onWindow = () => {} } = {}) {
  /** @type {Map<number, WindowReport[]>} reports of windows not merged yet, by index */
  const pending = new Map()
  /** @type {Map<string, number>} the latest window each simulator reported */
  const latest = new Map()
  /** @type {WindowResult[]} */
  const rows = []
  /** @type {string | null} */
  let cursor = null

  /** Reads what was stored since the last read (all of it, page by page). */
  async function read () {
    for (let page = 0; page < 1000; page++) {
      const got = await collector.readWindows(runId, cursor)
      cursor = got.cursor
      for (const { simulator, report } of got.windows) {
        if (rows.length > 0 && report.index <= rows[rows.length - 1].index) continue // a window already merged: too late
        pending.set(report.index, [...(pending.get(report.index) ?? []), report])
        latest.set(simulator, Math.max(latest.get(simulator) ?? -Infinity, report.index))
      }
      if (!got.more) return
    }
  }

  /**
   * The simulators whose windows are still to come, around a read: every one listed after it,
   * but those that had ended (a final report) or stopped answering before it. A simulator stores
   * its last windows before its final report, so one that ended before the read has them all in
   * it; one that ends during the read (with a collector over the network, time passes) may not,
   * and one that joins during it has its first window still to come. Judged on one listing
   * alone, either would have a window merged without it, and dropped as too late when read.
   * @param {import('../collector/types.js').SimulatorStatus[]} before listed before the read
   */
  async function stillComing (before) {
    const gone = new Set(before.filter((s) => !s.alive || s.final !== null).map((s) => s.id))
    return (await collector.listSimulators(runId)).filter((s) => !gone.has(s.id))
  }

  /**
   * Merges the windows every simulator in `running` is done with (none in it: every window).
   * @param {{ id: string }[]} running the simulators whose windows are still to come
   */
  async function merge (running) {
    const done = Math.min(...running.map((s) => latest.get(s.id) ?? -Infinity))
    const merged = []
    for (const index of [...pending.keys()].sort((a, b) => a - b)) {
      if (index > done) break
      merged.push(windowRow(mergeWindowReports(/** @type {WindowReport[]} */ (pending.get(index)))))
      pending.delete(index)
    }
    if (merged.length === 0) return
    // The collector's copies of what was read go (the unmerged ones are held in pending); a blip: dropped at the next merge.
    if (cursor !== null) await collector.dropWindows(runId, cursor).catch(() => {})
    for (const row of merged) {
      rows.push(row)
      onWindow(row)
    }
  }

  const stop = followEvery(async () => {
    const before = await collector.listSimulators(runId)
    await read()
    await merge(await stillComing(before))
  })

  return {
    /**
     * Stops following, reads what is left (the simulators have ended) and merges every window.
     * @returns {Promise<WindowResult[]>} every window, in order
     */
    async finish () {
      await stop()
      await read()
      await merge([])
      return rows
    }
  }
}
