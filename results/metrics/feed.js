/**
 * Feeds RunMetrics from a collector: a tee on its write methods (what local simulators send
 * over IPC, and the runner's server samples) and a poll of what it reads back (the simulator
 * list, including simulators joined through Redis, the rounds and the final reports).
 */

/**
 * @typedef {import('../collector/types.js').Collector} Collector
 * @typedef {import('./run-metrics.js').RunMetrics} RunMetrics
 */

/**
 * A collector whose writes for `runId` also feed `metrics()` (a function: the runner
 * changes metrics per distribution). Reads and other runs pass through.
 * @param {Collector} collector
 * @param {() => { runId: string, metrics: RunMetrics } | null} current
 * @returns {Collector}
 */
export function meterCollector (collector, current) {
  const mine = (/** @type {string} */ runId) => {
    const c = current()
    return c && c.runId === runId ? c.metrics : null
  }
  return {
    ...collector,
    async registerSimulator (runId, info) {
      await collector.registerSimulator(runId, info)
      mine(runId)?.observeSimulator(info)
    },
    async reportMessage (runId, simId, report) {
      await collector.reportMessage(runId, simId, report)
      mine(runId)?.observeMessage(simId, report)
    },
    async reportSample (runId, simId, sample) {
      await collector.reportSample(runId, simId, sample)
      mine(runId)?.observeSample(simId, sample)
    },
    async reportServerSample (runId, serverId, sample) {
      await collector.reportServerSample(runId, serverId, sample)
      mine(runId)?.observeServerSample(sample)
    }
  }
}

/**
 * Polls the collector's simulator list, rounds and finals for `runId` into `metrics`.
 * @param {{ collector: Collector, runId: string, metrics: RunMetrics, planned?: import('../collector/types.js').PlannedRound[], everyMs?: number }} options
 */
export function pollCollector ({ collector, runId, metrics, planned, everyMs = 1000 }) {
  /** @type {Promise<void> | null} */
  let running = null
  const refresh = async () => {
    try {
      const [list, rounds, finals] = await Promise.all([collector.listSimulators(runId), collector.getRounds(runId, planned), collector.getFinals(runId)])
      metrics.observeSimulators(list)
      metrics.observeRounds(rounds)
      metrics.observeFinals(finals)
    } catch {
      // A collector hiccup skips one refresh; the run itself reports collector errors.
    }
  }
  /** One refresh at a time: a slow collector skips ticks instead of piling them up. */
  const poll = () => (running ??= refresh().finally(() => { running = null }))
  const timer = setInterval(poll, everyMs)
  timer.unref()
  return {
    poll,
    /** Stops polling after one last refresh. */
    async stop () {
      clearInterval(timer)
      await running
      await poll()
    }
  }
}
