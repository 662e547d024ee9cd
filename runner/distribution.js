/**
 * One distribution of a test (e.g. 2 simulators × 500 clients): start the simulators,
 * wait for their clients (the ramp over the heartbeat interval), broadcast the rounds,
 * wait for every report, stop the simulators, and merge what they measured.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import { runBroadcast } from '../broadcaster/index.js'
import { formatWindowLine } from '../lib/text/window-text.js'
import { formatLayout } from '../lib/text/format.js'
import { phaseMarks } from '../lib/input/phase-profile.js'
import {
  attachIpcReader, buildDistribution, createIpcErrorBook, followLines, followWindows, formatPublishLine, formatRoundLine, readRefused, waitForRound
} from '../results/index.js'
import {
  forkSimulator, labelPhases, mergePhases, normalizeSimOptions, partitionSwarm, rampCutWarning, holdLines
} from '../simulator/index.js'
import { staleLine, watchStale } from './stale.js'
import { broadcastOf, simulatorEnv } from './run-options.js'
import { steerDistribution } from './live/steer.js'

/**
 * @typedef {import('./run-options.js').RunOptions} RunOptions
 * @typedef {import('./run-options.js').Distribution} Distribution
 * @typedef {import('../results/collector/types.js').Collector} Collector
 * @typedef {object} RunHooks
 * @property {AbortSignal} [signal]
 * @property {(line: string) => void} [log] phase changes and round results
 * @property {(line: string) => void} [status] the live status line
 * @property {(metricsUrl: string) => Promise<void>} [metricsLinger] with --metrics-port: awaited after the run, before the metrics server closes
 * @property {import('../lib/limits.js').Limits} [limits] the machine's limits for the preflight (default: read from /proc)
 * @property {import('../results/dashboard/index.js').LiveStreamLike} [stream] --dashboard: the live stream each distribution's seconds and windows go to
 * @property {import('../lib/steering.js').Steering} [steering] steers the run while it runs (lib/steering.js: createSteering({ command: 'run' })):
 *   its stop action stops it as the signal does; its actions are the result's `actions`
 */

/**
 * @param {object} ctx
 * @param {RunOptions} ctx.options
 * @param {Collector} ctx.collector
 * @param {string} ctx.runId this distribution's run id in the collector
 * @param {string} ctx.url the app server
 * @param {string} ctx.token
 * @param {number} ctx.rampMs
 * @param {import('../simulator/inspection/inspect.js').ServerInfo} [ctx.server] the runner's one look (runner/look.js), handed to each simulator
 * @param {{ offsetMs: number, uncertaintyMs: number }} ctx.senderClock
 * @param {ReturnType<Awaited<ReturnType<typeof import('../results/index.js').loadMetrics>>['createLiveMetrics']> | null} [ctx.live] live metrics (--metrics-port)
 * @param {Distribution} distribution
 * @param {RunHooks} hooks
 * @returns {Promise<import('../lib/schema/result-schema.js').DistributionResult>}
 */
export async function runDistribution (ctx, distribution, hooks) {
  const { options, collector, runId } = ctx
  const log = hooks.log ?? (() => {})
  const startedAt = Date.now()
  await collector.registerRun(runId, {
    name: options.name ?? runId,
    startedAt,
    options: {
      distribution: distribution.name,
      url: ctx.url,
      senderClockOffsetMs: ctx.senderClock.offsetMs,
      senderClockUncertaintyMs: ctx.senderClock.uncertaintyMs
    }
  })
  const metering = ctx.live?.begin(runId, distribution.name, options.rounds)
  const watching = hooks.stream?.follow(collector, runId, { distribution: distribution.name })
  const parts = partitionOf(ctx, distribution)
  // --duration: the whole run, the ramp included, from the first simulator's start (as simulate's from its swarm's).
  const lengthMs = options.phases ? null : options.durationMs
  const children = startSimulators(ctx, distribution, parts, (line) => log(`${distribution.name}: ${line}`))
  // The run's clients and emit-rate actions reach these simulators while they run.
  const unsteer = steerDistribution(ctx, children, parts, hooks.steering)
  const readers = attachReaders(collector, children, (line) => log(`${distribution.name}: ${line}`))
  const sampling = sampleServer(ctx)
  const watcher = watchStale({ collector, runId, name: distribution.name, log })
  // Without rounds: each window merged over the simulators and printed as it closes.
  const onWindow = (/** @type {import('../lib/schema/result-schema.js').WindowResult} */ row) => {
    log(`${distribution.name}: ${formatWindowLine(row)}`)
    hooks.stream?.push({ type: 'window', at: Date.now(), distribution: distribution.name, text: formatWindowLine(row), window: row })
  }
  const windows = options.rounds.length === 0 ? followWindows(collector, runId, { onWindow }) : null
  // ... and its lines rolled up per namespace, room and event as their reports come, never kept one by one.
  const lines = windows !== null ? followLines(collector, runId) : null
  /** @type {import('../lib/schema/result-schema.js').PublishSummary | null} */
  let publish = null
  try {
    const joining = options.expectSimulators ? ` + ${options.expectSimulators} joining through Redis` : ''
    log(`${distribution.name}: ${formatLayout(distribution.simulators, distribution.total, 'simulator')}${joining}` +
      (options.phases ? ' at most, following --phases' : `, ramp ${Math.round(ctx.rampMs / 100) / 10} s`))
    const cut = lengthMs === null ? null : rampCutWarning({ clients: distribution.clients, rampMs: ctx.rampMs, durationMs: options.durationMs })
    if (cut) log(`${distribution.name}: warning: ${cut}`)
    // --phases: the simulators follow the profile and end after its last step by themselves.
    if (options.phases) await followProfile(ctx, distribution, children, hooks)
    else {
      const startedMono = await waitForClients(ctx, distribution, children, hooks, lengthMs)
      if (windows !== null) await holdWithoutRounds(ctx, distribution, hooks, lengthMs === null ? null : startedMono + lengthMs)
      else publish = await broadcastRounds(ctx, distribution, hooks)
    }
  } catch (error) {
    await metering?.stop()
    await watching?.stop()
    await windows?.finish().catch(() => {})
    await lines?.finish().catch(() => {})
    throw error
  } finally {
    unsteer()
    sampling.stop()
    await watcher.stop()
    await stopSimulators(ctx, children, watcher.stale, (line) => log(`${distribution.name}: ${line}`))
    await readers.idle()
  }
  await waitForFinals(collector, runId, 15000)
  await metering?.stop()
  await watching?.stop()
  const finishedWindows = await windows?.finish()
  const rolled = await lines?.finish()
  // One read of the message reports for messages, rounds and deliveries (one XRANGE scan with Redis); without rounds, the lines rolled up.
  const [{ messages, rounds, deliveries }, samples, finals, simulatorList, refused] = await Promise.all([
    rolled ? { messages: [], rounds: [], deliveries: rolled.deliveries } : collector.getMessageResults(runId, { planned: options.rounds }),
    collector.getSamples(runId), collector.getFinals(runId), collector.listSimulators(runId), readRefused(collector, runId)
  ])
  for (const s of simulatorList.filter((s) => s.stale && !watcher.stale.has(s.id))) log(`${distribution.name}: ${staleLine(s, Date.now())}`)
  // --phases: the steps as the simulators ran them, summed, and each window's phase.
  const phases = options.phases ? mergePhases(finals) : null
  const windowRows = labelPhases(finishedWindows, phases?.phases)
  const result = buildDistribution({
    name: distribution.name,
    simulators: distribution.simulators + options.expectSimulators,
    clientsPerSimulator: distribution.clients,
    startedAt,
    endedAt: Date.now(),
    messages,
    rounds,
    samples,
    finals,
    simulatorList,
    deliveries
  })
  const ipcErrors = readers.errors()
  return {
    ...result,
    ...(phases ?? {}),
    ...(windowRows ? { windows: windowRows } : {}),
    ...(rolled ? { lines: rolled.lines } : {}),
    ...(refused ? { reportsRefused: refused } : {}),
    ...(ipcErrors ? { ipcErrors } : {}),
    ...(publish ? { publish } : {})
  }
}

/**
 * With the in-memory collector: each local simulator's collector writes over IPC forwarded to
 * it, and a write that fails said (which simulator, which write, why) and counted, not ignored.
 * @param {Collector} collector
 * @param {Pick<import('../simulator/processes/spawn.js').SimulatorChild, 'id' | 'process'>[]} children
 * @param {(line: string) => void} say
 */
export function attachReaders (collector, children, say) {
  const book = createIpcErrorBook(say)
  const readers = collector.kind === 'memory' ? children.map((c) => attachIpcReader(c.process, collector, { onError: book.onError(c.id) })) : []
  return {
    /** Every forwarded write has settled. */
    idle: async () => { await Promise.all(readers.map((r) => r.idle())) },
    detach: () => { for (const r of readers) r.detach() },
    errors: book.record
  }
}

/**
 * With --phases: the simulators follow the profile themselves and end after its last step;
 * this waits for them to (bounded by the profile, the connect timeout and a margin), or the signal.
 * @param {Parameters<typeof runDistribution>[0]} ctx
 * @param {Distribution} distribution
 * @param {import('../simulator/processes/spawn.js').SimulatorChild[]} children
 * @param {RunHooks} hooks
 */
async function followProfile ({ options }, distribution, children, hooks) {
  const totalMs = /** @type {number} */ (options.durationMs)
  hooks.log?.(`${distribution.name}: following --phases for ${totalMs / 1000} s, in windows of ${/** @type {number} */ (options.windowMs) / 1000} s`)
  // Each step shaded on the dashboard's charts (the simulators start the profile as they start: now, to a second).
  for (const mark of phaseMarks(/** @type {import('../lib/input/phase-profile.js').Phase[]} */ (options.phases), Date.now())) hooks.stream?.push(mark)
  // Unref'd: once the simulators have ended, this bound keeps nothing waiting.
  const bound = sleep(totalMs + options.connectTimeoutMs + PHASES_MARGIN_MS, undefined, { signal: hooks.signal, ref: false }).catch(() => {})
  await Promise.race([Promise.all(children.map((c) => c.exited)), bound])
}

/** How long past the profile and --connect-timeout a phased run waits for its simulators to end by themselves. */
const PHASES_MARGIN_MS = 10000

/**
 * Broadcasts the run's rounds, waiting after each for every simulator's reports of it.
 * @param {Parameters<typeof runDistribution>[0]} ctx
 * @param {Distribution} distribution
 * @param {RunHooks} hooks
 * @returns {Promise<import('../lib/schema/result-schema.js').PublishSummary | null>} with --publish, what its requests did
 */
async function broadcastRounds ({ options, collector, runId, url, token }, distribution, hooks) {
  const log = hooks.log ?? (() => {})
  const rounds = options.rounds.map((r) => `${r.count}x${r.intervalMs}ms`).join(', ')
  log(`${distribution.name}: ${options.publish ? `publishing by ${options.publish}` : 'broadcasting'} ${rounds}`)
  const result = await runBroadcast(broadcastOf(options, { url, token }), {
    signal: hooks.signal,
    onMessage: (m) => {
      const outcome = m.error ? `FAILED: ${m.error}` : m.recipients === null ? 'sent' : `sent to ${m.recipients} clients`
      hooks.status?.(`${distribution.name}: message ${m.id} ${outcome}`)
    },
    onRoundEnd: async (round, sent) => {
      const status = await waitForRound(collector, runId, { round, sent, timeoutMs: options.messageTimeoutMs + 5000, signal: hooks.signal })
      log(`${distribution.name}: ${formatRoundLine(round, status.round, status)}`)
    }
  })
  if (result.publish) log(`${distribution.name}: ${formatPublishLine(result.publish)}`)
  return result.publish
}

/**
 * Without rounds: holds the clients until the run's end (--duration after the simulators
 * started) or for --hold after the ramp (or until the signal), while the app's own traffic and
 * the clients' emits run and the windows are printed as they close.
 * @param {Parameters<typeof runDistribution>[0]} ctx
 * @param {Distribution} distribution
 * @param {RunHooks} hooks
 * @param {number | null} endsAtMono the run's end (performance.now()), null with --hold
 */
async function holdWithoutRounds ({ options }, distribution, hooks, endsAtMono) {
  const holdMs = endsAtMono === null ? /** @type {number} */ (options.holdMs) : Math.max(0, Math.round(endsAtMono - performance.now()))
  const until = endsAtMono === null ? 'after the ramp' : `more, to ${/** @type {number} */ (options.durationMs) / 1000} s in all`
  hooks.log?.(`${distribution.name}: holding ${holdMs / 1000} s ${until} without rounds, in windows of ${/** @type {number} */ (options.windowMs) / 1000} s`)
  await sleep(holdMs, undefined, { signal: hooks.signal }).catch(() => {})
}

/**
 * Forks the distribution's local simulators; each reports to the collector (over IPC for the
 * in-memory one, else to Redis itself). Their stderr is kept for a failure's reason; the lines
 * a held ramp writes (--ramp-guard) are said as they come, so a ramp that waits says why.
 * @param {Parameters<typeof runDistribution>[0]} ctx
 * @param {Distribution} distribution
 * @param {import('../simulator/processes/partition.js').SwarmPart[]} parts the distribution's partition (partitionOf)
 * @param {(line: string) => void} log
 */
function startSimulators (ctx, distribution, parts, log) {
  const link = { runId: ctx.runId, ipc: !ctx.options.redis, redisUrl: ctx.options.redis }
  return parts.map((_, i) => {
    const onStderr = ctx.options.simulatorInput.rampGuard ? holdLines(log) : undefined
    return forkSimulator(simulatorOptions(ctx, distribution, i, parts), { link, env: simulatorEnv(ctx.options), server: ctx.server ?? null, onStderr })
  })
}

/**
 * The normalised options of local simulator i: the run's simulate options (checked when the
 * run started), with this distribution's clients, the server's URL, the run's ramp and an id.
 * @param {Pick<Parameters<typeof runDistribution>[0], 'options' | 'url' | 'rampMs'>} ctx
 * @param {Distribution} distribution
 * @param {number} i
 * @param {import('../simulator/processes/partition.js').SwarmPart[]} [parts] the distribution's partition, when the caller has it
 */
export function simulatorOptions (ctx, distribution, i, parts = partitionOf(ctx, distribution)) {
  const { index, rooms, ...own } = parts[i]
  return { ...simulateOptions(ctx, distribution), ...own, id: `${distribution.name}-sim${index + 1}` }
}

/**
 * The run's local simulators split one swarm (simulator/processes/partition.js): client indices unique
 * across them ({{i}}, feeder rows), --emitters of the whole, and a slice each of this host's source ports.
 * @param {Pick<Parameters<typeof runDistribution>[0], 'options' | 'url' | 'rampMs'>} ctx
 * @param {Distribution} distribution
 */
export function partitionOf (ctx, distribution) {
  // --simulators 0: every simulator joins from elsewhere (--expect-simulators), none is split here.
  if (distribution.simulators === 0) return []
  const whole = simulateOptions(ctx, distribution)
  // The distribution's whole swarm; --max-clients is its room, split as the clients are.
  const clients = whole.phases ? whole.clients : distribution.total
  return partitionSwarm({ ...whole, clients }, distribution.simulators)
}

/**
 * @param {Pick<Parameters<typeof runDistribution>[0], 'options' | 'url' | 'rampMs'>} ctx
 * @param {Distribution} distribution
 */
function simulateOptions (ctx, distribution) {
  // --phases sets the clients (the largest target) and their ramps itself.
  if (ctx.options.phases) return normalizeSimOptions({ ...ctx.options.simulatorInput, url: ctx.url })
  return normalizeSimOptions({ ...ctx.options.simulatorInput, url: ctx.url, clients: distribution.clients, ramp: `${ctx.rampMs}ms` })
}

/**
 * Waits until every simulator (local and expected remote ones) has registered and their
 * clients are connected, or the ramp plus the connect timeout has passed, or the run's end.
 * @param {Parameters<typeof runDistribution>[0]} ctx
 * @param {Distribution} distribution
 * @param {import('../simulator/processes/spawn.js').SimulatorChild[]} children
 * @param {RunHooks} hooks
 * @param {number | null} [lengthMs] --duration: the run's length from the first simulator's start, which bounds the wait too
 * @returns {Promise<number>} when the first simulator registered (performance.now()), the run's start
 */
async function waitForClients (ctx, distribution, children, hooks, lengthMs = null) {
  const wantedSimulators = distribution.simulators + ctx.options.expectSimulators
  let startedMono = performance.now()
  let started = false
  let deadline = startedMono + ctx.rampMs + ctx.options.connectTimeoutMs
  const endOfRun = lengthMs === null ? Infinity : lengthMs
  let connected = 0
  let target = 0
  while (!hooks.signal?.aborted) {
    const dead = children.filter((c) => !c.running())
    if (dead.length === children.length && children.length > 0) {
      throw new Error(`every simulator exited before its clients connected; the last one said: ${dead[0].failure() ?? `exit ${dead[0].process.exitCode}`}`)
    }
    const sims = (await ctx.collector.listSimulators(ctx.runId)).filter((s) => s.alive)
    connected = sims.reduce((sum, s) => sum + s.clients.connected, 0)
    target = sims.reduce((sum, s) => sum + s.clients.target, 0)
    hooks.status?.(`${distribution.name}: simulators ${sims.length}/${wantedSimulators}, connected ${connected}/${target}`)
    if (!started && sims.length > 0) {
      // The first simulator has started its swarm: a --duration counts from here, as simulate's from its swarm's start.
      started = true
      startedMono = performance.now()
      deadline = Math.min(deadline, startedMono + endOfRun)
    }
    if (sims.length >= wantedSimulators && connected >= target && target > 0) return startedMono
    if (performance.now() > deadline) break
    // Finely until the first simulator starts (the run's clock), then twice a second.
    await sleep(started ? 500 : 100)
  }
  const why = lengthMs !== null && performance.now() >= startedMono + lengthMs ? '--duration ended' : 'the ramp and --connect-timeout'
  hooks.log?.(`${distribution.name}: going on with ${connected}/${target} clients connected after ${why}`)
  return startedMono
}

/**
 * Polls the reference server's GET /stats once a second into the collector (also used by
 * the capacity search).
 * @param {Pick<Parameters<typeof runDistribution>[0], 'url' | 'collector' | 'runId'>} ctx
 */
export function sampleServer (ctx) {
  const stats = new URL('/stats', ctx.url)
  let failures = 0
  const timer = setInterval(async () => {
    if (failures > 3) return // not the reference server, or it is gone: stop asking
    try {
      const response = await fetch(stats, { signal: AbortSignal.timeout(900) })
      const sample = /** @type {any} */ (await response.json())
      if (!response.ok || typeof sample?.rssBytes !== 'number') throw new Error('not an ioswarm /stats')
      await ctx.collector.reportServerSample(ctx.runId, 'server', sample)
      failures = 0
    } catch {
      failures++
    }
  }, 1000)
  return { stop: () => clearInterval(timer) }
}

/**
 * Stops the simulators: a `stop` control message for those elsewhere, SIGTERM for ours,
 * except those of ours that are stale: hung, they would not handle it; SIGKILL at once.
 * @param {Parameters<typeof runDistribution>[0]} ctx
 * @param {import('../simulator/processes/spawn.js').SimulatorChild[]} children
 * @param {Set<string>} stale simulator ids
 * @param {(line: string) => void} log
 */
async function stopSimulators (ctx, children, stale, log) {
  if (ctx.collector.kind === 'redis') await ctx.collector.publishControl(ctx.runId, { type: 'stop' }).catch(() => {})
  await Promise.all(children.map(async (c) => {
    if (!stale.has(c.id) || !c.running()) return c.stop()
    c.process.kill('SIGKILL')
    await c.exited
    log(`simulator ${c.id} (pid ${c.pid}) killed (SIGKILL): stale, it would not have handled a SIGTERM`)
  }))
}

/**
 * Waits (bounded) until every registered simulator has sent its final report or is stale.
 * @param {Collector} collector
 * @param {string} runId
 * @param {number} timeoutMs
 */
async function waitForFinals (collector, runId, timeoutMs) {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    const sims = await collector.listSimulators(runId)
    if (sims.every((s) => s.final || !s.alive)) return
    await sleep(250)
  }
}
