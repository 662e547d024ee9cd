/**
 * Links a simulator CLI to a collector: Redis (`--redis URL --run ID`) or the runner that
 * forked it (`--ipc`). Measures the clock offset to the run's reference clock, forwards
 * every report through the retrying reporter, and stops the swarm on a `stop` control
 * message. Composition for the CLI: runSwarm itself knows nothing of collectors.
 */
import os from 'node:os'
import { estimateClockOffset } from '../lib/clock-offset.js'
import { invalidOption } from '../lib/errors.js'
import { formatTransportMix, parseTransportMix } from '../lib/options.js'
import { createCollector, createIpcWriter } from '../results/index.js'
import { createSimReporter } from './reporter.js'

/** How often the clock offset is measured again during a run. */
const CLOCK_REFRESH_MS = 30000

/**
 * A simulator id that is valid in collector keys: `<host>-<pid>` by default.
 * @param {string | undefined} id
 */
export function simulatorId (id) {
  if (id !== undefined) {
    if (!/^[A-Za-z0-9._-]{1,128}$/.test(id)) throw invalidOption('--id', `must be 1 to 128 letters, digits, dots, dashes or underscores, got ${JSON.stringify(id)}`)
    return id
  }
  return `${os.hostname().replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 100)}-${process.pid}`
}

/**
 * @param {{ redis?: string, run?: string, ipc?: boolean, clients: string, transport: string, engine: string }} argv
 * @param {string} id
 * @param {AbortController} stopper aborted on a `stop` control message
 */
export async function linkCollector (argv, id, stopper) {
  if (!argv.run) throw invalidOption('--run', 'is required with --redis or --ipc: the run id every simulator of a test shares')
  const runId = argv.run
  if (argv.ipc && typeof process.send !== 'function') throw invalidOption('--ipc', 'only works when started by `ioswarm run` (no IPC channel)')
  const collector = argv.ipc ? null : await createCollector({ redisUrl: argv.redis })
  const writer = collector ?? createIpcWriter()
  const reporter = createSimReporter({
    writer,
    runId,
    info: {
      id,
      hostname: os.hostname(),
      pid: process.pid,
      clients: Number(argv.clients),
      transport: formatTransportMix(parseTransportMix(argv.transport)),
      engine: argv.engine,
      startedAt: Date.now()
    }
  })
  reporter.start()
  const unsubscribe = collector ? await collector.subscribeControl(runId, (message) => { if (/** @type {any} */ (message)?.type === 'stop') stopper.abort() }) : () => {}

  /** @type {import('../lib/schema.js').ClockInfo} */
  let clock = { offsetMs: 0, uncertaintyMs: 0, reference: 'local' }
  const measure = async () => {
    if (!collector) return
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
      clock: () => clock
    },
    /**
     * Sends the final report (bounded wait) and disconnects.
     * @param {import('../lib/schema.js').SimResult} result
     */
    async finish (result) {
      clearInterval(clockTimer)
      const sent = await reporter.finish({ clients: result.clients, health: result.health.summary, clock: result.clock, endedAt: result.endedAt }, 10000)
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
