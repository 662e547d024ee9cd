/**
 * Links a simulator CLI to a collector: Redis (`--redis URL --run ID`) or the runner that
 * forked it (over IPC). Measures the clock offset to the run's reference clock, forwards
 * every report through the retrying reporter, and stops the swarm on a `stop` control
 * message. Composition for runLinkedSwarm: runSwarm itself knows nothing of collectors.
 */
import os from 'node:os'
import { invalidOption } from '../../lib/errors.js'
import { formatTransportMix } from '../../lib/values/parsers.js'
import { createCollector, createIpcWriter, finalReportOf } from '../../results/collector/index.js'
import { createSimReporter } from './reporter.js'

/** How often the clock offset is measured again during a run. */
const CLOCK_REFRESH_MS = 30000

/**
 * A simulator id that is valid in collector keys: `<host>-<pid>` by default.
 * @param {string | undefined} id
 */
export function simulatorId (id) {
  if (id !== undefined) {
    if (!/^[A-Za-z0-9._-]{1,128}$/.test(id)) {
      throw invalidOption('--id', `must be 1 to 128 letters, digits, dots, dashes or underscores, got ${JSON.stringify(id)}`)
    }
    return id
  }
  return `${os.hostname().replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 100)}-${process.pid}`
}

/**
 * Where a simulator reports: a collector in Redis, or the runner that forked it over IPC.
 * @typedef {object} CollectorLinkOptions
 * @property {string} runId the run every simulator of a test shares
 * @property {string | null} [redisUrl] report to the collector in this Redis
 * @property {boolean} [ipc] report to the parent process over IPC (a runner with the in-memory collector)
 */

/**
 * @param {CollectorLinkOptions} link
 * @param {import('../sim-options.js').SimOptions & { id: string }} options
 * @param {AbortController} stopper aborted on a `stop` control message
 * @param {(message: { shares?: unknown, rampMs?: unknown, emitIntervalMs?: unknown }) => void} [onResize] a `resize` control message
 *   (a run's clients or emit-rate action, sent to every simulator through Redis)
 */
export async function linkCollector (link, options, stopper, onResize) {
  const { runId } = link
  if (link.ipc && typeof process.send !== 'function') throw new Error('reporting over IPC needs a process forked with an IPC channel')
  const collector = link.ipc ? null : await createCollector({ redisUrl: link.redisUrl })
  const writer = collector ?? createIpcWriter()
  const id = options.id
  const reporter = createSimReporter({
    writer,
    runId,
    info: {
      id,
      hostname: os.hostname(),
      pid: process.pid,
      clients: options.clients,
      transport: formatTransportMix(options.transport),
      engine: options.engine,
      startedAt: Date.now()
    }
  })
  reporter.start()
  const unsubscribe = collector
    ? await collector.subscribeControl(runId, (message) => {
      if (message.type === 'stop') stopper.abort()
      else if (message.type === 'resize') onResize?.(message)
    })
    : () => {}

  /** @type {import('../../lib/schema/result-schema.js').ClockInfo} */
  let clock = { offsetMs: 0, uncertaintyMs: 0, reference: 'local' }
  const measure = async () => {
    if (!collector) return
    // Redis' clock: loaded with a collector of its own only (a child reporting over IPC has none).
    const { estimateClockOffset } = await import('../../lib/measure/clock-offset.js')
    const own = await estimateClockOffset(() => collector.time(), { reference: 'redis' })
    const sender = senderClock((await collector.listRuns()).find((r) => r.id === runId)?.options)
    clock = { offsetMs: own.offsetMs - sender.offsetMs, uncertaintyMs: own.uncertaintyMs + sender.uncertaintyMs, reference: 'redis' }
    reporter.clock(clock)
  }
  await measure().catch(() => {})
  const clockTimer = setInterval(() => { measure().catch(() => {}) }, CLOCK_REFRESH_MS)
  clockTimer.unref()

  return {
    reporter,
    hooks: {
      onMessage: reporter.message,
      onSample: reporter.sample,
      onWindow: reporter.window,
      clock: () => clock
    },
    /**
     * Sends the final report (bounded wait) and disconnects.
     * @param {import('../../lib/schema/result-schema.js').SimResult} result
     */
    async finish (result) {
      clearInterval(clockTimer)
      const sent = await reporter.finish(finalReportOf(result), 10000)
      await unsubscribe()
      await collector?.close()
      return sent
    }
  }
}

/**
 * The clock offset of whoever stamps `sentAt` (the app server), as the runner recorded it
 * in the run's options; zero when unknown (same host, or a server we cannot measure).
 * @param {Record<string, unknown> | undefined} options
 */
function senderClock (options) {
  const offsetMs = Number(options?.senderClockOffsetMs ?? 0)
  const uncertaintyMs = Number(options?.senderClockUncertaintyMs ?? 0)
  return { offsetMs: Number.isFinite(offsetMs) ? offsetMs : 0, uncertaintyMs: Number.isFinite(uncertaintyMs) ? uncertaintyMs : 0 }
}
