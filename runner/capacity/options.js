/**
 * The capacity search's normaliser: its own rows (lib/cli-options/capacity.js) parsed by the
 * table, the SLOs in the --assert grammar, and everything it shares with `run` (target and
 * token, broadcasts, simulator options) checked by run's normaliser, all before any process
 * starts, so bad input exits 2 naming the flag.
 */
import { invalidOption } from '../../lib/errors.js'
import { keyOf, optionsOf, parseOptions } from '../../lib/cli-options/index.js'
import { formatRounds } from '../../lib/options.js'
import { METRICS, parseThresholdOf } from '../../results/index.js'
import { normalizeRunOptions } from '../options.js'

/**
 * SLO metrics: what a step's broadcasts say about the server. The simulators' health is
 * judged by the search itself; storms are not part of a step.
 */
const SLO_METRICS = Object.keys(METRICS).filter((m) => /^(abs\.)?(p\d+|max|mean|avg)$/.test(m) || ['missing', 'connected', 'failed'].includes(m))

/**
 * @typedef {ReturnType<typeof normalizeCapacityOptions>} CapacityOptions
 * @typedef {import('../../results/index.js').Threshold & { implicit?: boolean }} Slo
 */

/**
 * --slo values → thresholds; without a connected SLO, every client of a step must connect.
 * @param {unknown} value
 * @returns {Slo[]}
 */
export function parseSlos (value) {
  const given = [value ?? []].flat().map((v) => String(v))
  if (given.length === 0) throw invalidOption('--slo', 'is required: the service level each step must meet, such as --slo \'p99<500ms\' --slo missing=0')
  const slos = given.map((expr) => {
    /** @type {Slo} */
    const slo = parseThresholdOf(expr, '--slo')
    if (!SLO_METRICS.includes(slo.metric)) {
      throw invalidOption('--slo', `${JSON.stringify(expr)}: ${slo.metric} is not a service level of the server (${METRICS[slo.metric].describe}); the search judges its simulators itself. SLO metrics: ${SLO_METRICS.join(', ')}`)
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
  const slo = parseSlos(o.slo)
  if (o.start > o.max) throw invalidOption('--start', `${o.start} is more than --max ${o.max}`)
  if (o.simulators < 1) throw invalidOption('--simulators', 'must be at least 1: the search grows the clients of its own simulators')
  if (o.start < o.simulators) throw invalidOption('--start', `${o.start} is fewer than --simulators ${o.simulators}: every simulator needs a client`)
  if ((input.sessionLifetime ?? input['session-lifetime']) !== undefined) throw invalidOption('--session-lifetime', 'is not for capacity: churn closes and opens clients while a step is measured; measure capacity without it')
  // What capacity shares with run, checked by run's normaliser (its rounds are ours, formatted).
  const run = normalizeRunOptions({ ...own, clients: o.start, rounds: formatRounds(o.rounds) })
  return {
    slo,
    startClients: /** @type {number} */ (o.start),
    maxClients: /** @type {number} */ (o.max),
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
    name: run.name,
    out: run.out,
    messageTimeoutMs: run.messageTimeoutMs,
    connectTimeoutMs: run.connectTimeoutMs
  }
}

/**
 * The options as recorded in result.json: no token.
 * @param {CapacityOptions} options
 */
export function publicCapacityOptions (options) {
  return {
    slo: options.slo.filter((s) => !s.implicit).map((s) => s.expression),
    start: options.startClients,
    max: options.maxClients,
    precision: `${Math.round(options.precision * 1000) / 10}%`,
    growth: options.growth,
    simulators: options.simulators,
    rounds: formatRounds(options.rounds),
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
