/**
 * The capacity search's normaliser: its own rows (lib/cli-options/tables/capacity.js) parsed by the
 * table, the SLOs in the --assert grammar, and everything it shares with `run` (target and
 * token, broadcasts, simulator options) checked by run's normaliser, all before any process
 * starts, so bad input exits 2 naming the flag.
 */
import { invalidOption } from '../../lib/errors.js'
import { keyOf, optionsOf, parseOptions } from '../../lib/cli-options/index.js'
import { formatRounds } from '../../lib/values/parsers.js'
import { METRICS, parseThresholdOf } from '../../results/index.js'
import { MAX_EMITS_PER_SECOND } from '../../lib/values/option-values.js'
import { normalizeSimOptions, pickEmitters } from '../../simulator/index.js'
import { normalizeRunOptions } from '../run-options.js'

/** Windows of a step without rounds, unless --window: 5 s (at most half the step's hold). */
const DEFAULT_STEP_WINDOW_MS = 5000

/**
 * SLO metrics: what a step's broadcasts say about the server. The simulators' health is
 * judged by the search itself; storms are not part of a step.
 */
const SLO_METRICS = Object.keys(METRICS).filter((m) => /^(abs\.)?(p\d+|max|mean|avg)$/.test(m) || ['missing', 'connected', 'failed'].includes(m))

/**
 * Without rounds, a step's windows also hold the emits' acks, the replies timed by --reply-event
 * (emitAndWait) and a scenario's own figures (ctx.timing, ctx.count): these SLOs judge them, delays
 * on the worst window, counts summed over the step's windows (results/thresholds/thresholds.js measures both).
 */
const WINDOW_SLO_METRICS = Object.keys(METRICS).filter((m) => /^(ack|reply)\.(p\d+|max|timeouts)$/.test(m))
/** A scenario's own figures: custom.NAME.STAT (its name any, checked by the --assert grammar). */
const CUSTOM_SLO = 'custom.NAME.p50|p90|p99|max|mean|count'

/** A step without rounds is judged on at least this many windows of its hold. */
const MIN_WINDOWS = 2

/**
 * @typedef {ReturnType<typeof normalizeCapacityOptions>} CapacityOptions
 * @typedef {import('../../results/index.js').Threshold & { implicit?: boolean }} Slo
 */

/**
 * --slo values → thresholds; without a connected SLO, every client of a step must connect.
 * @param {unknown} value
 * @param {boolean} [windowed] a search without rounds: ack, reply and custom SLOs are allowed (its windows hold them)
 * @returns {Slo[]}
 */
export function parseSlos (value, windowed = false) {
  const given = [value ?? []].flat().map((v) => String(v))
  if (given.length === 0) throw invalidOption('--slo', 'is required: the service level each step must meet, such as --slo \'p99<500ms\' --slo missing=0')
  const slos = given.map((expr) => {
    /** @type {Slo} */
    const slo = parseThresholdOf(expr, '--slo')
    const ofWindows = WINDOW_SLO_METRICS.includes(slo.metric) || slo.metric.startsWith('custom.')
    if (!SLO_METRICS.includes(slo.metric) && !(windowed && ofWindows)) {
      const why = ofWindows
        ? 'judges the clients\' own traffic (emits\' acks, replies, a scenario\'s figures), which only a step without rounds measures (--rounds none, or --target without --token)'
        : `is not a service level of the server (${METRICS[slo.metric]?.describe}); the search judges its simulators itself`
      const allowed = windowed ? [...SLO_METRICS, ...WINDOW_SLO_METRICS, CUSTOM_SLO] : SLO_METRICS
      throw invalidOption('--slo', `${JSON.stringify(expr)}: ${slo.metric} ${why}. SLO metrics: ${allowed.join(', ')}`)
    }
    return slo
  })
  if (!slos.some((s) => s.metric === 'connected')) slos.push(/** @type {Slo} */ ({ ...parseThresholdOf('connected>=100%', '--slo'), implicit: true }))
  return slos
}

/**
 * @param {Record<string, any>} input raw values, flag names in camelCase (CLI argv or a library caller)
 */
export function normalizeCapacityOptions (input) {
  // Only this command's options: another command's (run --distributions, say) is not taken.
  const known = new Set(optionsOf('capacity').map((o) => keyOf(o.name)))
  const own = Object.fromEntries(Object.entries(input).filter(([k]) => known.has(keyOf(k))))
  const o = parseOptions('capacity', own)
  const byRate = o.vary === 'emit-rate'
  if (o.start > o.max) throw invalidOption('--start', `${o.start} is more than --max ${o.max}`)
  if (o.simulators < 1) throw invalidOption('--simulators', 'must be at least 1: the search grows the clients of its own simulators')
  if ((input.sessionLifetime ?? input['session-lifetime']) !== undefined) {
    throw invalidOption('--session-lifetime',
      'is not for capacity: churn closes and opens clients while a step is measured; measure capacity without it')
  }
  const clientsGiven = own.clients !== undefined && own.clients !== null
  if (byRate && !clientsGiven) {
    throw invalidOption('--clients', 'is required with --vary emit-rate: the clients held at every step while their emit rate is searched')
  }
  if (!byRate && clientsGiven) throw invalidOption('--clients', 'is for --vary emit-rate; with --vary clients the search sets the clients (--start, --max)')
  if (byRate && own.emitRate !== undefined) {
    throw invalidOption('--emit-rate', 'is what --vary emit-rate searches: each step sets it (--start … --max messages a second over the swarm)')
  }
  if (byRate && !own.emit) throw invalidOption('--emit', 'is required with --vary emit-rate: what the clients emit, at the rate the search varies')
  const clients = byRate ? /** @type {number} */ (o.clients) : /** @type {number} */ (o.start)
  if (clients < o.simulators) {
    throw invalidOption(byRate ? '--clients' : '--start', `${clients} is fewer than --simulators ${o.simulators}: every simulator needs a client`)
  }
  // What capacity shares with run, checked by run's normaliser (its rounds are ours, formatted;
  // without rounds, a step's hold is the run's --duration, its windows --window).
  const noRounds = o.rounds.length === 0 || (own.rounds === undefined && own.target && !own.token && !own.publish)
  const defaultWindowMs = Math.min(DEFAULT_STEP_WINDOW_MS, Math.floor(o.stepDurationMs / MIN_WINDOWS))
  const windowMs = noRounds ? /** @type {number | null} */ (o.windowMs ?? null) ?? defaultWindowMs : null
  if (byRate && !noRounds) {
    throw invalidOption('--vary', 'emit-rate is judged on windows of the app\'s own traffic: give --rounds none (or --target without --token)')
  }
  if (windowMs !== null && o.stepDurationMs < MIN_WINDOWS * windowMs) {
    throw invalidOption('--step-duration', `${o.stepDurationMs / 1000}s is shorter than ${MIN_WINDOWS} windows of --window ${windowMs / 1000}s: ` +
      'a step is judged on the windows wholly inside its hold')
  }
  // The run's normaliser reads its simulators' clients and a step's hold in its own spellings.
  const { clients: _wholeSwarm, ...shared } = own
  const run = normalizeRunOptions({
    ...shared,
    clientsPerSimulator: clients,
    ...(noRounds ? { rounds: 'none', hold: `${o.stepDurationMs}ms`, window: `${windowMs}ms` } : { rounds: formatRounds(o.rounds) }),
    ...(byRate ? { emitRate: emitRateOf(o.start, clients, own.emitters) } : {})
  })
  const slo = parseSlos(o.slo, noRounds)
  const emitters = byRate ? emitterCount(clients, run.simulatorInput) : 0
  if (byRate && o.max > emitters * MAX_EMITS_PER_SECOND) {
    throw invalidOption('--max', `${o.max} messages a second is more than ${emitters} emitters can send ` +
      `(at most ${MAX_EMITS_PER_SECOND} a second each): lower --max or add --emitters`)
  }
  return {
    slo,
    vary: /** @type {'clients' | 'emit-rate'} */ (o.vary),
    clients,
    emitters,
    stepDurationMs: noRounds ? /** @type {number} */ (o.stepDurationMs) : null,
    windowMs,
    startClients: byRate ? clients : /** @type {number} */ (o.start),
    maxClients: byRate ? clients : /** @type {number} */ (o.max),
    startLevel: /** @type {number} */ (o.start),
    maxLevel: /** @type {number} */ (o.max),
    precision: /** @type {number} */ (o.precision),
    growth: /** @type {number} */ (o.growth),
    simulators: /** @type {number} */ (o.simulators),
    rounds: run.rounds,
    target: run.target,
    token: run.token,
    simulatorInput: run.simulatorInput,
    authToken: run.authToken,
    rooms: run.rooms,
    namespaces: run.namespaces,
    protocol: run.protocol,
    transport: run.transport,
    engine: run.engine,
    rampMs: run.rampMs,
    pingIntervalMs: run.pingIntervalMs,
    sizeBytes: run.sizeBytes,
    event: run.event,
    via: run.via,
    publish: run.publish,
    publishHeader: run.publishHeader,
    publishSign: run.publishSign,
    message: run.message,
    name: run.name,
    out: run.out,
    messageTimeoutMs: run.messageTimeoutMs,
    connectTimeoutMs: run.connectTimeoutMs
  }
}

/**
 * --emit-rate of each emitter for `rate` messages a second over the whole swarm: `RATE/EMITTERSs`.
 * @param {number} rate messages a second
 * @param {number} clients
 * @param {unknown} emitters --emitters as given
 */
function emitRateOf (rate, clients, emitters) {
  const count = emitterCount(clients, { emitters })
  return `${rate}/${Math.max(1, count)}s`
}

/**
 * How many of `clients` emit (--emitters, the one pick of simulator/processes/partition.js).
 * @param {number} clients
 * @param {Record<string, unknown>} simulatorInput --emitters as given (default 100%)
 */
function emitterCount (clients, simulatorInput) {
  const emitters = simulatorInput.emitters === undefined ? {} : { emitters: simulatorInput.emitters }
  const sim = normalizeSimOptions({ url: 'http://127.0.0.1:1', clients, ...emitters })
  return pickEmitters(clients, 0, sim.emitters).reduce((n, e) => n + e, 0)
}

/**
 * Each emitter's mean interval for `rate` messages a second over `emitters` emitters.
 * @param {number} rate
 * @param {number} emitters
 */
export function emitIntervalOf (rate, emitters) {
  return emitters * 1000 / rate
}

/**
 * The options as recorded in result.json: no token.
 * @param {CapacityOptions} options
 */
export function publicCapacityOptions (options) {
  return {
    slo: options.slo.filter((s) => !s.implicit).map((s) => s.expression),
    vary: options.vary,
    ...(options.vary === 'emit-rate' ? { clients: options.clients, emitters: options.emitters } : {}),
    start: options.startLevel,
    max: options.maxLevel,
    stepDurationMs: options.stepDurationMs,
    windowMs: options.windowMs,
    precision: `${Math.round(options.precision * 1000) / 10}%`,
    growth: options.growth,
    simulators: options.simulators,
    rounds: options.rounds.length === 0 ? 'none' : formatRounds(options.rounds),
    target: options.target,
    authToken: options.authToken === null ? null : '(redacted)',
    rooms: options.rooms,
    namespaces: options.namespaces,
    protocol: options.protocol,
    transport: options.transport,
    engine: options.engine,
    rampMs: options.rampMs,
    pingIntervalMs: options.target ? null : options.pingIntervalMs,
    sizeBytes: options.sizeBytes,
    event: options.event,
    via: options.via,
    messageTimeoutMs: options.messageTimeoutMs,
    connectTimeoutMs: options.connectTimeoutMs
  }
}
