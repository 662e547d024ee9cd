/**
 * runTest: one whole test. Starts the reference server (or uses --target), runs each
 * distribution of simulators in turn against it, and returns a RunResult (result.json).
 * The collector is Redis with --redis, else in memory in this process, with local
 * simulators reporting over IPC.
 */
import { randomBytes } from 'node:crypto'
import { estimateClockOffset } from '../lib/measure/clock-offset.js'
import { hostFacts } from '../lib/host.js'
import { formatRounds } from '../lib/values/parsers.js'
import { formatPhases } from '../lib/input/phase-profile.js'
import { formatLayout } from '../lib/text/format.js'
import { SCHEMA_VERSION } from '../lib/schema/result-schema.js'
import { VERSION } from '../lib/version.js'
import { createCollector, evaluateThresholds, loadMetrics, redactUrl } from '../results/index.js'
import { readLimits } from '../lib/limits.js'
import { steeredHooks } from '../lib/steering.js'
import { runDistribution } from './distribution.js'
import { lookAtServer } from './look.js'
import { newRunId, normalizeRunOptions, referenceServerOf } from './run-options.js'
import { checkRunPreflight } from './preflight.js'
import { startServerProcess } from './processes.js'
import { scheduleServerRestarts } from './restart.js'
import { dashboardRoom, roomLine } from './live/room.js'

export { createSteering, formatActionLine, STEERING_ACTIONS } from '../lib/steering.js'

/**
 * @param {Record<string, unknown>} input see runner/run-options.js
 * @param {import('./distribution.js').RunHooks} [hooks]
 * @returns {Promise<import('../lib/schema/result-schema.js').RunResult>}
 */
export async function runTest (input, hooks = {}) {
  let options = normalizeRunOptions(input)
  hooks = steeredHooks(hooks)
  const steering = hooks.steering ?? null
  const log = hooks.log ?? (() => {})
  const runId = options.runId ?? newRunId()
  // The first line says where the load comes from when no broadcaster runs.
  if (options.rounds.length === 0) log(trafficLine(options))
  // Before any process starts: the local simulators and the reference server together.
  const limits = hooks.limits ?? readLimits()
  for (const warning of checkRunPreflight(options, limits)) log(`warning: ${warning}`)
  // --dashboard (a stream to steer from): room for the page to grow the swarm, unless the run set its own with --max-clients.
  const room = hooks.stream ? dashboardRoom(options, limits) : null
  if (room) {
    options = { ...options, simulatorInput: { ...options.simulatorInput, maxClients: room.room } }
    log(roomLine(room))
  }
  const startedAt = Date.now()
  const collector = await createCollector({ redisUrl: options.redis })
  // --metrics-port / --otlp: each distribution's run is followed in the collector (what every
  // simulator stored, local or joined through Redis), served and/or pushed.
  const metricsModule = options.metricsPort === null && options.otlp === null ? null : await loadMetrics()
  const live = metricsModule?.createLiveMetrics({ collector, run: runId }) ?? null
  const outputs = live && metricsModule
    ? await metricsModule.startMetricsOutputs({
      registry: live.registry,
      port: options.metricsPort,
      host: options.metricsHost,
      otlp: options.otlp,
      otlpIntervalMs: options.otlpIntervalMs,
      command: 'run',
      onOtlpError: (error) => log(`warning: --otlp: pushing to ${redactUrl(String(options.otlp))} failed: ${error.message}`)
    }).catch(async (error) => { await collector.close(); throw error })
    : null
  if (outputs?.url) log(`metrics: ${outputs.url}`)
  if (options.otlp) log(`metrics: pushing to ${redactUrl(options.otlp)} every ${options.otlpIntervalMs / 1000} s (OTLP)`)
  const token = options.token ?? randomBytes(18).toString('base64url')
  const serverOptions = referenceServerOf(options, token)
  const started = options.target ? null : { current: await startServerProcess(serverOptions) }
  const server = started?.current ?? null
  const restarts = started && options.restartServerAtMs.length > 0
    ? scheduleServerRestarts({
      atMs: options.restartServerAtMs,
      startedMono: performance.now(),
      signal: options.restartSignal,
      server: started,
      start: () => startServerProcess({ ...serverOptions, port: Number(new URL(started.current.url).port) }),
      log,
      mark: (event) => hooks.stream?.push(event)
    })
    : null
  try {
    const url = options.target ?? /** @type {{ url: string }} */ (server).url
    log(`run ${runId}: ${layoutOf(options)}; ${server ? `reference server ${url} (pid ${server.pid})` : `target ${url}`}, ` +
      `collector ${collector.kind === 'redis' ? redactUrl(/** @type {string} */ (options.redis)) : 'in memory'}`)
    const inspected = await lookAtServer(options, url, log, hooks.signal)
    const rampMs = inspected.rampMs
    // sentAt is stamped by the server; a server we started shares this host's clock.
    const senderClock = collector.kind === 'redis' && server
      ? await estimateClockOffset(() => collector.time(), { reference: 'redis' })
      : { offsetMs: 0, uncertaintyMs: 0 }
    const distributions = []
    for (const distribution of options.distributions) {
      if (hooks.signal?.aborted) break
      const distRunId = options.distributions.length > 1 ? `${runId}-${distribution.name}` : runId
      const ctx = { options, collector, runId: distRunId, url, token, rampMs, server: inspected, senderClock, live }
      distributions.push(await runDistribution(ctx, distribution, hooks))
    }
    /** @type {import('../lib/schema/result-schema.js').RunResult} */
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
    const actions = steering?.timeline() ?? []
    if (actions.length > 0) result.actions = actions
    // Still serving: the last scrape can see the final values (--metrics-linger, or a test).
    if (outputs?.url && hooks.metricsLinger) await hooks.metricsLinger(outputs.url)
    return result
  } finally {
    await outputs?.close()
    await restarts?.stop()
    await started?.current.stop()
    await collector.close()
  }
}

/**
 * The first line of a run without rounds: no broadcaster, what the load is, and why (--rounds
 * none, or --target without --token).
 * @param {import('./run-options.js').RunOptions} options
 */
function trafficLine (options) {
  const why = !options.roundsImplied ? '--rounds none' : options.phases ? '--phases' : '--target without --token'
  const held = options.phases
    ? `following --phases '${formatPhases(options.phases)}' (${/** @type {number} */ (options.durationMs) / 1000} s)`
    : options.holdMs !== null
      ? `held ${options.holdMs / 1000} s after the ramp (--hold)`
      : `${/** @type {number} */ (options.durationMs) / 1000} s in all, the ramp included`
  return `no broadcaster (${why}): the load is the clients' own --emit/--scenario traffic and whatever the app sends by itself; ` +
    `${held}, results in windows of ${/** @type {number} */ (options.windowMs) / 1000} s`
}

/**
 * The options as recorded in result.json: no token, no Redis password.
 * @param {import('./run-options.js').RunOptions} options
 */
function publicOptions (options) {
  return {
    target: options.target,
    distributions: options.distributions.map((d) => d.name).join(','),
    expectSimulators: options.expectSimulators,
    rounds: options.rounds.length === 0 ? 'none' : formatRounds(options.rounds),
    // What the run's length and clients meant, said in the result itself (--clients and --duration changed meaning).
    durationMs: options.durationMs,
    durationIs: options.holdMs !== null ? null : 'the whole run, the ramp included',
    holdMs: options.holdMs,
    clients: options.phases ? null : options.distributions.map((d) => d.total).join(','),
    clientsAre: 'the whole swarm of each distribution, over its simulators',
    phases: options.phases ? formatPhases(options.phases) : null,
    windowMs: options.windowMs,
    protocol: options.protocol,
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
    rooms: options.rooms,
    namespaces: options.namespaces,
    authToken: options.authToken === null ? null : '(redacted)',
    redis: options.redis ? redactUrl(options.redis) : null,
    messageTimeoutMs: options.messageTimeoutMs,
    restartServerAtMs: options.restartServerAtMs.length > 0 ? options.restartServerAtMs : null,
    restartSignal: options.restartServerAtMs.length > 0 ? options.restartSignal : null,
    assert: options.thresholds.map((t) => t.expression)
  }
}

/**
 * The whole swarm of a run, as its first line states it: `2 simulators × 500 = 1,000 clients`,
 * each of several --distributions in turn, the simulators joining through Redis beside.
 * @param {import('./run-options.js').RunOptions} options
 */
function layoutOf (options) {
  const layouts = options.distributions.map((d) => formatLayout(d.simulators, d.total, 'simulator'))
  const joining = options.expectSimulators ? ` + ${options.expectSimulators} simulators joining through Redis` : ''
  return `${layouts.join(', then ')}${options.phases ? ' at most (--phases)' : ''}${joining}`
}
