/**
 * Feeds RunMetrics by following a run in a collector (memory or Redis, the same code):
 * once a second, what was stored since the last read (message reports, simulator samples,
 * server samples: the collector's readSince cursor, so each report is fed exactly once,
 * whoever wrote it: a local simulator over IPC or a simulator on another host through
 * Redis), then the simulator list, the rounds and the final reports. Nothing here runs per
 * receipt: a closed report is one feed, a simulator's second is one feed.
 */

/**
 * @typedef {import('../collector/types.js').Collector} Collector
 * @typedef {import('../collector/types.js').ReadCursor} ReadCursor
 * @typedef {import('./run-metrics.js').RunMetrics} RunMetrics
 * @typedef {Pick<RunMetrics, 'observeMessage' | 'observeSample' | 'observeServerSample' | 'observeSimulators' | 'observeFinals' | 'observeRounds'>} MetricsSink
 *   what a follower feeds: the run's metrics, the live dashboard's second, or both
 */

/** Entries of each record read per page, and pages per refresh (the rest waits a tick). */
const PAGE_SIZE = 1000
const MAX_PAGES = 50

/**
 * @typedef {object} FollowOptions
 * @property {Collector} collector
 * @property {string} runId
 * @property {MetricsSink} metrics
 * @property {boolean} [rounds] read the rounds for the last completed round's gauges (default true)
 * @property {import('../collector/types.js').PlannedRound[]} [planned]
 * @property {(simId: string) => boolean} [simulators] only these simulators, and no server samples (one simulator's view of a shared run); default: everything
 * @property {number} [everyMs]
 * @property {() => void} [onRefresh] after each refresh (the live dashboard closes its second there)
 */

/**
 * Follows `runId` into `metrics` until stopped.
 * @param {FollowOptions} options
 */
export function followCollector ({ collector, runId, metrics, rounds = true, planned, simulators, everyMs = 1000, onRefresh }) {
  const wanted = simulators ?? (() => true)
  /** @type {ReadCursor | null} */
  let cursor = null
  /** @type {Promise<void> | null} */
  let running = null
  /** Reads what is new; true when any message report was. */
  const readNew = async () => {
    let messages = 0
    for (let page = 0; page < MAX_PAGES; page++) {
      const got = await collector.readSince(runId, cursor, PAGE_SIZE)
      for (const e of got.messages) if (wanted(e.simulator)) metrics.observeMessage(e.simulator, e.report)
      for (const s of got.samples) if (wanted(s.simulator)) metrics.observeSample(s.simulator, s)
      if (!simulators) for (const s of got.serverSamples) metrics.observeServerSample(s)
      messages += got.messages.length
      cursor = got.cursor
      if (!got.more) break
    }
    return messages > 0
  }
  const refresh = async () => {
    try {
      const fresh = await readNew()
      const [list, finals] = await Promise.all([collector.listSimulators(runId), collector.getFinals(runId)])
      metrics.observeSimulators(list.filter((s) => wanted(s.id)))
      metrics.observeFinals(finals.filter((f) => wanted(f.simulator)))
      // The rounds re-read every report: only when new ones came in.
      if (rounds && fresh) metrics.observeRounds(await collector.getRounds(runId, planned))
    } catch {
      // A collector hiccup skips one refresh (the cursor stays); the run reports collector errors.
    }
    onRefresh?.()
  }
  /** One refresh at a time: a slow collector skips ticks instead of piling them up. */
  const poll = () => (running ??= refresh().finally(() => { running = null }))
  const timer = setInterval(poll, everyMs)
  timer.unref()
  return {
    poll,
    /** Stops following after one last refresh. */
    async stop () {
      clearInterval(timer)
      await running
      await poll()
    }
  }
}
