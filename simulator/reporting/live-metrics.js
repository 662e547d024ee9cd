/**
 * `ioswarm simulate --metrics-port` / `--otlp`: this simulator's live metrics. One process: fed by the
 * same hooks that report to a collector (a closed message, a one-second sample), never per
 * receipt. With --workers: the parent follows what its workers store in a collector (an
 * in-memory one fed over IPC, or the run's Redis with --redis), as `ioswarm run` does.
 */
import { formatTransportMix } from '../../lib/values/parsers.js'
import { attachIpcReader, createCollector, followWindows, loadMetrics } from '../../results/index.js'

/**
 * Starts serving on `port` and/or pushing to `otlp`.
 * @param {import('../sim-options.js').SimOptions & { id: string }} options
 * @param {{ port: number | null, host: string, otlp: string | null, otlpIntervalMs: number, run: string | null, workers?: boolean, onOtlpError?: (error: Error) => void }} out workers: the series are the workers' (their ids), not this process's
 */
export async function startSimulatorMetrics (options, { port, host, otlp, otlpIntervalMs, run, workers = false, onOtlpError }) {
  const { createRunMetrics, startMetricsOutputs } = await loadMetrics()
  const metrics = createRunMetrics({ run: run ?? options.id })
  if (!workers) metrics.observeSimulator({ id: options.id, clients: options.clients, transport: formatTransportMix(options.transport) })
  const outputs = await startMetricsOutputs({ registry: () => metrics.registry, port, host, otlp, otlpIntervalMs, command: 'simulate', onOtlpError })
  return { metrics, url: outputs.url, close: outputs.close }
}

/**
 * The parent's view of its workers: where they report, and a follower of what they stored.
 * Without a link the parent holds an in-memory collector and the workers write to it over
 * IPC (run id: the simulator's id); with a Redis link they write there as they would anyway
 * and the parent reads their records back (only theirs: the run may hold other simulators).
 * Without a link, `onWindow` gets the workers' windows merged as they close (with one, the run's
 * Redis holds other simulators' windows too, and their follower is the run's).
 * @param {{ metrics: import('../../results/metrics/feed.js').MetricsSink, link: import('./collector-link.js').CollectorLinkOptions | null, id: string,
 *   workerIds: string[], onWindow?: (row: import('../../lib/schema/result-schema.js').WindowResult) => void }} options
 */
export async function followWorkers ({ metrics, link, id, workerIds, onWindow }) {
  const collector = await createCollector({ redisUrl: link?.redisUrl ?? null })
  const runId = link?.runId ?? id
  const own = new Set(workerIds)
  const { followCollector } = await loadMetrics()
  const follow = followCollector({ collector, runId, metrics, rounds: false, simulators: (simId) => own.has(simId) })
  const windows = onWindow && !link ? followWindows(collector, runId, { onWindow }) : null
  /** @type {ReturnType<typeof attachIpcReader>[]} */
  const readers = []
  return {
    /** @type {import('./collector-link.js').CollectorLinkOptions} what each worker gets */
    link: link ?? { runId, ipc: true },
    /** @param {import('node:child_process').ChildProcess} child a worker, right after its fork */
    attach (child) {
      if (!link) readers.push(attachIpcReader(child, collector))
    },
    /** After the workers exited: every write they sent, one last refresh, then close. */
    async stop () {
      await Promise.all(readers.map((r) => r.idle()))
      await follow.stop()
      await windows?.finish()
      if (!link) await collector.deleteRun(runId)
      await collector.close()
    }
  }
}

/**
 * Several sinks fed as one (--metrics-port and --dashboard read the same reports and samples).
 * @param {(import('../../results/metrics/feed.js').MetricsSink | null | undefined)[]} sinks
 * @returns {import('../../results/metrics/feed.js').MetricsSink | null} null when there is none
 */
export function joinSinks (sinks) {
  const all = sinks.filter((s) => s !== null && s !== undefined)
  if (all.length <= 1) return all[0] ?? null
  return {
    observeMessage: (id, report) => { for (const s of all) s.observeMessage(id, report) },
    observeSample: (id, sample) => { for (const s of all) s.observeSample(id, sample) },
    observeServerSample: (sample) => { for (const s of all) s.observeServerSample(sample) },
    observeSimulators: (list) => { for (const s of all) s.observeSimulators(list) },
    observeFinals: (finals) => { for (const s of all) s.observeFinals(finals) },
    observeRounds: (rounds) => { for (const s of all) s.observeRounds(rounds) }
  }
}
