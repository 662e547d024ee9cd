/**
 * runTest: one whole test. Starts the reference server (or uses --target), runs each
 * distribution of simulators in turn against it, and returns a RunResult (result.json).
 * The collector is Redis with --redis, else in memory in this process, with local
 * simulators reporting over IPC.
 */
import { randomBytes } from 'node:crypto'
import { estimateClockOffset } from '../lib/clock-offset.js'
import { hostFacts } from '../lib/host.js'
import { formatRounds } from '../lib/options.js'
import { SCHEMA_VERSION } from '../lib/schema.js'
import { VERSION } from '../lib/version.js'
import { createCollector, createLiveMetrics, evaluateThresholds, redactUrl, serveMetrics } from '../results/index.js'
import { diagnoseConnect, normalizeSimOptions, probeHandshake } from '../simulator/index.js'
import { readLimits } from '../lib/limits.js'
import { runDistribution } from './distribution.js'
import { newRunId, normalizeRunOptions } from './options.js'
import { checkRunPreflight } from './preflight.js'
import { startServerProcess } from './processes.js'
import { scheduleServerRestarts } from './restart.js'

/**
 * @param {Record<string, unknown>} input see runner/options.js
 * @param {import('./distribution.js').RunHooks} [hooks]
 * @returns {Promise<import('../lib/schema.js').RunResult>}
 */
export async function runTest (input, hooks = {}) {
  const options = normalizeRunOptions(input)
  const log = hooks.log ?? (() => {})
  const runId = options.runId ?? newRunId()
  // Before any process starts: the local simulators and the reference server together.
  for (const warning of checkRunPreflight(options, hooks.limits ?? readLimits())) log(`warning: ${warning}`)
  const startedAt = Date.now()
  const stored = await createCollector({ redisUrl: options.redis })
  // --metrics-port: the collector is metered (its writes feed the live metrics) and served.
  const live = options.metricsPort === null ? null : createLiveMetrics({ collector: stored, run: runId })
  const collector = live?.collector ?? stored
  const metricsServer = live ? await serveMetrics({ port: /** @type {number} */ (options.metricsPort), host: options.metricsHost, registry: live.registry }).catch(async (error) => { await stored.close(); throw error }) : null
  if (metricsServer) log(`metrics: ${metricsServer.url}`)
  const token = options.token ?? randomBytes(18).toString('base64url')
  const started = options.target ? null : { current: await startServerProcess({ token, pingIntervalMs: options.pingIntervalMs }) }
  const server = started?.current ?? null
  const restarts = started && options.restartServerAtMs.length > 0
    ? scheduleServerRestarts({
      atMs: options.restartServerAtMs,
      startedMono: performance.now(),
      signal: options.restartSignal,
      server: started,
      start: () => startServerProcess({ token, pingIntervalMs: options.pingIntervalMs, port: Number(new URL(started.current.url).port) }),
      log
    })
    : null
  try {
    const url = options.target ?? /** @type {{ url: string }} */ (server).url
    log(`run ${runId}: ${server ? `reference server ${url} (pid ${server.pid})` : `target ${url}`}, collector ${collector.kind === 'redis' ? redactUrl(/** @type {string} */ (options.redis)) : 'in memory'}`)
    // One look at the server before any simulator: its heartbeat (the ramp), its protocol, and
    // a parser mismatch or a refused namespace, named (each simulator sees the same).
    const sim = normalizeSimOptions({ ...options.simulatorInput, url })
    const handshake = await probeHandshake({ url: sim.url, path: sim.path, query: sim.query }).catch(() => null)
    const rampMs = options.rampMs ?? handshake?.pingIntervalMs ?? 25000
    const { problem } = await diagnoseConnect({ url: sim.url, path: sim.path, query: sim.query, namespace: sim.namespace, parser: sim.parser, eio: sim.eio ?? handshake?.eio ?? 4 })
    if (problem) log(`warning: ${problem}`)
    // sentAt is stamped by the server; a server we started shares this host's clock.
    const senderClock = collector.kind === 'redis' && server
      ? await estimateClockOffset(() => collector.time(), { reference: 'redis' })
      : { offsetMs: 0, uncertaintyMs: 0 }
    const distributions = []
    for (const distribution of options.distributions) {
      if (hooks.signal?.aborted) break
      const distRunId = options.distributions.length > 1 ? `${runId}-${distribution.name}` : runId
      distributions.push(await runDistribution({ options, collector, runId: distRunId, url, token, rampMs, senderClock, live }, distribution, hooks))
    }
    /** @type {import('../lib/schema.js').RunResult} */
    const result = {
      schemaVersion: SCHEMA_VERSION,
      kind: 'run',
      run: { id: runId, name: options.name ?? runId, startedAt, endedAt: Date.now(), collector: collector.kind },
      tool: { name: 'ioswarm', version: VERSION },
      host: hostFacts(),
      options: publicOptions(options),
      target: { url, reference: server !== null, ...(restarts ? { restarts: restarts.restarts } : {}) },
      distributions
    }
    if (options.thresholds.length > 0) result.thresholds = evaluateThresholds(result, options.thresholds)
    // Still serving: the last scrape can see the final values (--metrics-linger, or a test).
    if (metricsServer && hooks.metricsLinger) await hooks.metricsLinger(metricsServer.url)
    return result
  } finally {
    await metricsServer?.close()
    await restarts?.stop()
    await started?.current.stop()
    await collector.close()
  }
}

/**
 * The options as recorded in result.json: no token, no Redis password.
 * @param {import('./options.js').RunOptions} options
 */
function publicOptions (options) {
  return {
    target: options.target,
    distributions: options.distributions.map((d) => d.name).join(','),
    expectSimulators: options.expectSimulators,
    rounds: formatRounds(options.rounds),
    transport: options.transport,
    engine: options.engine,
    parser: options.parser,
    wsClient: options.wsClient,
    rampMs: options.rampMs,
    pingIntervalMs: options.target ? null : options.pingIntervalMs,
    sizeBytes: options.sizeBytes,
    maxPayloadBytes: options.maxPayloadBytes,
    event: options.event,
    via: options.via,
    redis: options.redis ? redactUrl(options.redis) : null,
    messageTimeoutMs: options.messageTimeoutMs,
    restartServerAtMs: options.restartServerAtMs.length > 0 ? options.restartServerAtMs : null,
    restartSignal: options.restartServerAtMs.length > 0 ? options.restartSignal : null,
    assert: options.thresholds.map((t) => t.expression)
  }
}
