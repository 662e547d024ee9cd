/**
 * runCapacity: how many clients a server holds at a service level. Starts the reference
 * server (or uses --target) and --simulators simulator processes with room for --max
 * clients, then runs the search (search.js) step by step on the running swarm (step.js):
 * growing, then narrowing, until the answer is within --precision, or a step the
 * simulators limited makes it inconclusive. Returns a JSON-serialisable CapacityResult.
 */
import { randomBytes } from 'node:crypto'
import os from 'node:os'
import { hostFacts } from '../../lib/host.js'
import { SteeringRefusal, steeredHooks } from '../../lib/steering.js'
import { readLimits } from '../../lib/limits.js'
import { SCHEMA_VERSION } from '../../lib/schema/result-schema.js'
import { VERSION } from '../../lib/version.js'
import { CAPACITY_AFFECTS, createCollector, followLines, followWindows, readRefused, redactUrl } from '../../results/index.js'
import { forkSimulator, normalizeSimOptions, partitionSwarm } from '../../simulator/index.js'
import { attachReaders, sampleServer } from '../distribution.js'
import { lookAtServer } from '../look.js'
import { newRunId, referenceServerOf, simulatorEnv } from '../run-options.js'
import { startServerProcess } from '../processes.js'
import { formatAnswer, formatStepLine, levelOf } from './format.js'
import { simulatorAdvice } from './judge.js'
import { checkStepLimits } from './limits.js'
import { normalizeCapacityOptions, publicCapacityOptions } from './capacity-options.js'
import { maxSteps, nextStep, searchBounds } from './search.js'
import { runStep } from './step.js'

/**
 * @typedef {import('../../lib/schema/capacity-schema.js').CapacityResult} CapacityResult
 * @typedef {import('../../lib/schema/capacity-schema.js').CapacityStep} CapacityStep
 * @typedef {object} CapacityHooks
 * @property {AbortSignal} [signal] stops the search; the steps so far are returned (outcome 'stopped')
 * @property {(line: string) => void} [log] each step's line, warnings, phase changes
 * @property {(line: string) => void} [status] the live status line
 * @property {import('../../lib/limits.js').Limits} [limits] the machine's limits (default: read from /proc before each step)
 * @property {number} [maxMessageReports] the collector's bound on message reports (default: LIMITS.messageReports, fixed for a
 *   command; a test sets it low to reach it)
 * @property {import('../../results/dashboard/index.js').LiveStreamLike} [stream] --dashboard: the live stream the search's seconds go to
 * @property {import('../../lib/steering.js').Steering} [steering] steers the search (createSteering({ command: 'capacity' })): its stop
 *   stops it as the signal does; stop-after-step ends it once the current step is judged; its actions are the result's `actions`
 */

/**
 * @param {Record<string, unknown>} input the options of `ioswarm capacity`, flag names in camelCase
 * @param {CapacityHooks} [hooks]
 * @returns {Promise<CapacityResult>}
 */
export async function runCapacity (input, hooks = {}) {
  const options = normalizeCapacityOptions(input)
  hooks = steeredHooks(hooks)
  const steering = hooks.steering ?? null
  const log = hooks.log ?? (() => {})
  const limits = () => hooks.limits ?? readLimits()
  // The first step must fit before anything starts (exit 2 naming the limit).
  for (const warning of checkStepLimits({ options, clients: options.startClients, current: 0, limits: limits() }).warnings) log(`warning: ${warning}`)
  const id = newRunId().replace(/^run-/, 'capacity-')
  const startedAt = Date.now()
  const collector = await createCollector(hooks.maxMessageReports === undefined ? {} : { maxMessageReports: hooks.maxMessageReports })
  const reports = trackReports(collector, options.rounds.length > 0)
  const token = options.token ?? randomBytes(18).toString('base64url')
  const server = options.target
    ? null
    : await startServerProcess(referenceServerOf(options, token)).catch(async (error) => {
      await collector.close()
      throw error
    })
  /** @type {import('../../simulator/processes/spawn.js').SimulatorChild[]} */
  let children = []
  /** @type {ReturnType<typeof attachReaders> | null} */
  let readers = null
  /** @type {{ stop(): void } | null} */
  let sampling = null
  /** @type {ReturnType<typeof followWindows> | null} */
  let following = null
  /** @type {ReturnType<typeof followLines> | null} */
  let lines = null
  /** @type {{ stop(): Promise<void> } | undefined} */
  let watching
  const url = options.target ?? /** @type {{ url: string }} */ (server).url
  /** @type {Awaited<ReturnType<typeof search>>} */
  let searched = { steps: [], outcome: 'stopped' }
  /** @type {import('../../lib/schema/result-schema.js').ReportsRefused | null} */
  let refused = null
  try {
    // The ramp of each step: --ramp, else the server's pingInterval (one look, as in a run).
    const inspected = await lookAtServer(options, url, log, hooks.signal)
    const rampMs = inspected.rampMs
    await collector.registerRun(id, { name: options.name ?? id, startedAt, options: { url } })
    watching = hooks.stream?.follow(collector, id)
    children = startSimulators(options, { id, url, server: inspected })
    // A write that fails over IPC is said (which simulator, which write, why), not ignored.
    readers = attachReaders(reports.writer, children, log)
    sampling = sampleServer({ url, collector, runId: id })
    const range = options.vary === 'emit-rate'
      ? `${options.clients} clients (${options.emitters} emitting), from ${options.startLevel} to at most ${options.maxLevel} messages a second`
      : `from ${options.startClients} to at most ${options.maxClients} clients`
    const judging = options.rounds.length === 0
      ? `; no rounds: each step holds ${/** @type {number} */ (options.stepDurationMs) / 1000} s, ` +
        `judged on its worst ${/** @type {number} */ (options.windowMs) / 1000} s window`
      : ''
    const against = server ? `reference server ${url} (pid ${server.pid})` : `target ${redactUrl(url).replace(/\/$/, '')}`
    const ramp = `ramp ${Math.round(rampMs / 100) / 10} s per step`
    log(`capacity ${id}: ${against}, ${options.simulators} simulators, ${options.transport} (${options.engine}), ${range}, ${ramp}${judging}`)
    const status = hooks.status ?? (() => {})
    /** @type {import('../../lib/schema/result-schema.js').WindowResult[]} */
    const windows = []
    // Without rounds: the run's one window follower, merging each window over the simulators.
    const onWindow = (/** @type {import('../../lib/schema/result-schema.js').WindowResult} */ w) => {
      windows.push(w)
      hooks.stream?.push({ type: 'window', at: Date.now(), window: w })
    }
    following = options.rounds.length === 0 ? followWindows(collector, id, { onWindow }) : null
    // ... and its lines rolled up and freed as they come (steps are judged on the windows): the collector holds none of them.
    lines = options.rounds.length === 0 ? followLines(collector, id) : null
    const { signal, stream } = hooks
    const ctx = { options, collector, runId: id, url, token, rampMs, children, reportedBy: reports.reportedBy, limits, signal, status, windows, stream }
    searched = await search(ctx, log, steering)
  } finally {
    sampling?.stop()
    await watching?.stop()
    await following?.finish().catch(() => {})
    await lines?.finish().catch(() => {})
    await Promise.all(children.map((c) => c.stop()))
    await readers?.idle()
    // Once every write has settled: the reports refused past the bound, counted (the steps' rounds miss them).
    refused = await readRefused(collector, id, CAPACITY_AFFECTS).catch(() => null)
    await server?.stop()
    await collector.close()
  }
  const ipcErrors = readers?.errors() ?? null
  const actions = steering?.timeline() ?? []
  return {
    ...capacityResult({ options, id, startedAt, url, reference: server !== null, ...searched }),
    ...(actions.length > 0 ? { actions } : {}),
    ...(refused ? { reportsRefused: refused } : {}),
    ...(ipcErrors ? { ipcErrors } : {})
  }
}

/**
 * The steps, one after another, until the search has its answer, or is told to end after its current step.
 * @param {import('./step.js').StepContext} ctx
 * @param {(line: string) => void} log
 * @param {import('../../lib/steering.js').Steering | null} steering
 * @returns {Promise<{ steps: CapacityStep[], outcome: import('../../lib/schema/capacity-schema.js').CapacityOutcome }>}
 */
async function search (ctx, log, steering) {
  let lastStep = false
  const release = steering?.handle('stop-after-step', () => {
    if (lastStep) throw new SteeringRefusal('the search already ends after its current step')
    lastStep = true
    return 'the search ends once its current step is judged'
  })
  try {
    return await searchSteps(ctx, log, () => lastStep)
  } finally {
    release?.()
  }
}

/**
 * @param {import('./step.js').StepContext} ctx
 * @param {(line: string) => void} log
 * @param {() => boolean} lastStep true once the search was told to end after its current step
 * @returns {Promise<{ steps: CapacityStep[], outcome: import('../../lib/schema/capacity-schema.js').CapacityOutcome }>}
 */
async function searchSteps (ctx, log, lastStep) {
  const plan = { start: ctx.options.startLevel, max: ctx.options.maxLevel, growth: ctx.options.growth, precision: ctx.options.precision }
  /** @type {CapacityStep[]} */
  const steps = []
  let current = 0
  for (let k = 0; k < maxSteps(plan); k++) {
    const move = nextStep(steps.map(judgedOf), plan)
    if ('done' in move) return { steps, outcome: move.done }
    if (ctx.signal?.aborted) break
    const step = await runStep(ctx, { step: steps.length + 1, level: move.next, phase: move.phase, current })
    if (ctx.signal?.aborted) break // a step cut short is not judged
    steps.push(step)
    current = step.connected || current
    for (const warning of step.limits.warnings) log(`step ${step.step}: warning: ${warning}`)
    log(formatStepLine(step))
    const judged = step.limitedBy === 'limit' ? null : step.verdict === 'pass'
    // Each step a mark of the live stream: shaded by its verdict on the dashboard's charts.
    const label = `step ${step.step}: ${step.clients} clients: ${judged === null ? 'inconclusive' : step.verdict}`
    ctx.stream?.push({ type: 'mark', kind: 'step', at: step.startedAt, endAt: step.endedAt, label, ok: judged })
    // Told to end after this step: what was judged so far is the result (the search's answer, if this step gave it).
    if (lastStep()) {
      const move = nextStep(steps.map(judgedOf), plan)
      return { steps, outcome: 'done' in move ? move.done : 'stopped' }
    }
  }
  return { steps, outcome: 'stopped' }
}

/**
 * A step as the search sees it: its level (clients, or messages a second) and its verdict.
 * @param {CapacityStep} s
 * @returns {import('./search.js').Judged}
 */
function judgedOf (s) {
  return { clients: levelOf(s), verdict: s.verdict, limitedBy: s.limitedBy }
}

/**
 * Forks the simulators, each with its share of --start and room for its share of --max;
 * client indices ({{i}}, feeder rows) are unique across them, as in a run.
 * @param {import('./capacity-options.js').CapacityOptions} options
 * @param {{ id: string, url: string, server: import('../../simulator/inspection/inspect.js').ServerInfo }} at server: the runner's one look,
 *   handed to each simulator (it does not look again)
 */
function startSimulators (options, { id, url, server }) {
  const sim = normalizeSimOptions({ ...options.simulatorInput, url, clients: options.startClients, ramp: `${server.rampMs}ms` })
  // One swarm split as everywhere (simulator/processes/partition.js): each simulator its share of --start
  // and room for its share of --max, with the whole's emitters and a slice of this host's source ports.
  return partitionSwarm({ ...sim, maxClients: options.maxClients }, options.simulators).map(({ index, rooms, ...own }) =>
    forkSimulator({ ...sim, ...own, id: `${id}-sim${index + 1}` }, { link: { runId: id, ipc: true }, env: simulatorEnv(options), server }))
}

/**
 * The collector's writes as the simulators send them, noting which simulator reported which
 * message: a simulator none of whose clients got a message never reports it.
 * @param {import('../../results/collector/types.js').Collector} collector
 * @param {boolean} track with rounds only: without, the lines are the app's own, thousands, and no step asks (a set per line would grow with them)
 */
function trackReports (collector, track) {
  /** @type {Map<string, Set<string>>} `id|batch` → simulator ids */
  const seen = new Map()
  /** @type {import('../../results/collector/types.js').Collector} */
  const writer = !track
    ? collector
    : {
        ...collector,
        async reportMessage (runId, simId, report) {
          const key = `${report.id}|${report.batch ?? ''}`
          seen.set(key, (seen.get(key) ?? new Set()).add(simId))
          return collector.reportMessage(runId, simId, report)
        }
      }
  return {
    writer,
    /** @param {string} id @param {string} batch */
    reportedBy: (id, batch) => new Set([...(seen.get(`${id}|${batch}`) ?? []), ...(seen.get(`${id}|`) ?? [])])
  }
}

/**
 * Where to start again when the first step failed: a quarter of the start, at least one client
 * per simulator (or one message a second).
 * @param {import('./capacity-options.js').CapacityOptions} options
 */
function lowerStart (options) {
  return Math.max(options.vary === 'emit-rate' ? 1 : options.simulators, Math.floor(options.startLevel / 4))
}

/**
 * @param {{ options: import('./capacity-options.js').CapacityOptions, id: string, startedAt: number, url: string, reference: boolean, steps: CapacityStep[], outcome: import('../../lib/schema/capacity-schema.js').CapacityOutcome }} spec
 * @returns {CapacityResult}
 */
function capacityResult ({ options, id, startedAt, url, reference, steps, outcome }) {
  const bounds = searchBounds(steps.map(judgedOf))
  const endedAt = Date.now()
  const stopper = steps.find((s) => levelOf(s) === bounds.inconclusive && s.verdict === 'inconclusive')
  /** @type {Omit<CapacityResult, 'answer'>} */
  const result = {
    schemaVersion: SCHEMA_VERSION,
    kind: 'capacity',
    vary: options.vary,
    run: { id, name: options.name ?? id, startedAt, endedAt },
    tool: { name: 'ioswarm', version: VERSION },
    host: hostFacts(),
    options: publicCapacityOptions(options),
    target: { url: redactUrl(url).replace(/\/$/, ''), reference },
    swarm: { simulators: options.simulators, engine: options.engine, transport: options.transport },
    slo: options.slo.filter((s) => !s.implicit).map((s) => s.expression),
    outcome,
    capacity: outcome === 'found' || outcome === 'max' ? bounds.passed : null,
    bounds,
    advice: outcome === 'inconclusive' && stopper?.limitedBy
      ? simulatorAdvice(stopper.limitedBy, {
        simulators: options.simulators, clients: stopper.clients, cores: os.availableParallelism(), engine: options.engine
      })
      : outcome === 'failed-at-start' ? [`start lower: --start ${lowerStart(options)}`] : [],
    steps,
    durationMs: endedAt - startedAt
  }
  return { ...result, answer: formatAnswer(result) }
}
