/**
 * The runner's normaliser: every option parsed by its row in the one options table
 * (lib/cli-options), and the simulators' options checked by the simulator's own normaliser,
 * all before any process starts, so `run` exits 2 naming a flag exactly as `simulate` would.
 */
import { randomBytes } from 'node:crypto'
import { invalidOption } from '../lib/errors.js'
import { parseOptions, pickPassOn } from '../lib/cli-options/index.js'
import { DEFAULT_MAX_PAYLOAD_BYTES, MAX_CLIENTS } from '../lib/values/option-values.js'
import { MAX_BROADCAST_ROOMS } from '../lib/cli-options/tables/broadcast.js'
import { parseHttpUrl, parseInteger, parseNamespaces, parseRunId, formatTransportMix } from '../lib/values/parsers.js'
import { parseThreshold } from '../results/index.js'
import { maxClientsOf, totalMsOf } from '../lib/input/phase-profile.js'
import { normalizeSimOptions } from '../simulator/index.js'
import { compilePublish, parseMessageTemplate } from '../broadcaster/index.js'

/**
 * @typedef {{ name: string, simulators: number, clients: number }} Distribution
 * @typedef {ReturnType<typeof normalizeRunOptions>} RunOptions
 */

/** Where the simulators' options are checked before the server's URL is known. */
const PLACEHOLDER_URL = 'http://127.0.0.1:1'

/**
 * `10x1000,20x500` → ten simulators of 1,000 clients, then twenty of 500.
 * @param {unknown} value
 */
export function parseDistributions (value) {
  const parts = String(value).split(',').map((p) => p.trim()).filter(Boolean)
  if (parts.length === 0) throw invalidOption('--distributions', 'must be SIMULATORSxCLIENTS,… such as 10x1000,20x500')
  return parts.map((part) => {
    const match = /^(\d+)\s*x\s*(\d+)$/i.exec(part)
    if (!match) throw invalidOption('--distributions', `has ${JSON.stringify(part)}: each must be SIMULATORSxCLIENTS such as 10x1000 (10 simulators of 1,000 clients)`)
    const simulators = parseInteger(match[1], `--distributions (simulators in ${part})`, { min: 1, max: 1000 })
    const clients = parseInteger(match[2], `--distributions (clients in ${part})`, { min: 1, max: MAX_CLIENTS })
    return { name: `${simulators}x${clients}`, simulators, clients }
  })
}

/** A run's windows without --window: 10 s. */
export const DEFAULT_WINDOW_MS = 10000

/**
 * The run's traffic source: its rounds (none: []), and without rounds its --duration and
 * --window. `run --target URL` with neither --token, --publish nor --rounds means none (`implied`: the
 * run says so on its first line).
 * @param {Record<string, any>} input raw values: was --rounds given?
 * @param {Record<string, any>} o parsed values
 * @param {string | null} target
 * @returns {{ rounds: import('../lib/values/parsers.js').Round[], implied: boolean, durationMs: number | null, windowMs: number | null }}
 */
export function trafficSource (input, o, target) {
  const given = input.rounds !== undefined && input.rounds !== null
  const phases = /** @type {import('../lib/input/phase-profile.js').Phase[] | null} */ (o.phases ?? null)
  if (phases && given && o.rounds.length > 0) {
    throw invalidOption('--phases', 'is for a run without rounds: broadcast --rounds need a fixed swarm; drop --rounds (or give --rounds none)')
  }
  if (phases && o.durationMs !== null && o.durationMs !== undefined) throw invalidOption('--phases', 'cannot go with --duration (the run lasts the phases\' total): drop --duration')
  const implied = !given && (phases !== null || (target !== null && !o.token && !o.publish))
  const rounds = implied ? [] : /** @type {import('../lib/values/parsers.js').Round[]} */ (o.rounds)
  const durationMs = /** @type {number | null} */ (phases ? totalMsOf(phases) : o.durationMs ?? null)
  const windowGiven = /** @type {number | null} */ (o.windowMs ?? null)
  if (rounds.length > 0) {
    if (durationMs !== null) throw invalidOption('--duration', 'holds a run without rounds (--rounds none); with --rounds the run lasts as long as its rounds')
    if (windowGiven !== null) throw invalidOption('--window', 'is for a run without rounds (--rounds none): with --rounds, each round is a row')
    return { rounds, implied, durationMs: null, windowMs: null }
  }
  if (durationMs === null) throw invalidOption('--duration', `is required without rounds${implied ? ' (--target without --token: no broadcaster)' : ''}: how long to hold the clients after the ramp, such as 5m`)
  const windowMs = windowGiven ?? Math.min(DEFAULT_WINDOW_MS, durationMs)
  if (windowMs > durationMs) throw invalidOption('--window', `${windowMs / 1000}s is longer than ${phases ? '--phases\' total' : '--duration'} ${durationMs / 1000}s: not one window would end`)
  return { rounds, implied, durationMs, windowMs }
}

/** The run flags --phases replaces: the profile sets the clients, their ramps and the run's length. */
const PHASES_REPLACE = /** @type {const} */ ([['clients', '--clients'], ['ramp', '--ramp'], ['distributions', '--distributions'], ['expectSimulators', '--expect-simulators']])

/**
 * A run with --phases: its one distribution, --simulators splitting the profile's largest
 * target (simulator/processes/partition.js splits each step the same way); null without --phases.
 * @param {Record<string, any>} input raw values: which flags were given
 * @param {Record<string, any>} o parsed values
 * @returns {Distribution | null}
 */
function phasedRun (input, o) {
  if (!o.phases) return null
  for (const [key, flag] of PHASES_REPLACE) {
    if (input[key] !== undefined && input[key] !== null) {
      throw invalidOption('--phases', `cannot go with ${flag}: the profile's steps set the clients (split over --simulators) and how they come and go; drop ${flag}`)
    }
  }
  if (o.simulators === 0) throw invalidOption('--simulators', 'is 0: with --phases the profile is split over this machine\'s simulators')
  const most = maxClientsOf(o.phases)
  const clients = Math.ceil(most / o.simulators)
  return { name: `${o.simulators}x${clients}`, simulators: o.simulators, clients }
}

/** Where a run's simulators find the reference server's --auth-token (their --auth reads it). */
export const AUTH_TOKEN_VARIABLE = 'IOSWARM_AUTH_TOKEN'

/**
 * What a run's simulators find in their environment: the reference server's --auth-token.
 * @param {{ authToken: string | null }} options
 * @returns {Record<string, string>}
 */
export function simulatorEnv (options) {
  return options.authToken === null ? {} : { [AUTH_TOKEN_VARIABLE]: options.authToken }
}

/**
 * @param {Record<string, any>} input raw values, flag names in camelCase
 */
export function normalizeRunOptions (input) {
  const o = parseOptions('run', input)
  const phases = phasedRun(input, o)
  const distributions = o.distributions
    ? parseDistributions(o.distributions)
    : [phases ?? { name: `${o.simulators}x${o.clients}`, simulators: o.simulators, clients: o.clients }]
  if (o.expectSimulators > 0 && !o.redis) throw invalidOption('--expect-simulators', 'needs --redis: simulators on other hosts join the run through Redis')
  if (o.expectSimulators > 0 && distributions.length > 1) throw invalidOption('--expect-simulators', 'works with one distribution only (simulators elsewhere join one run id)')
  if (distributions.some((d) => d.simulators === 0) && o.expectSimulators === 0) throw invalidOption('--simulators', 'is 0 and no --expect-simulators: nobody would listen')
  const target = o.target ? parseHttpUrl(o.target, '--target') : null
  const traffic = trafficSource(input, o, target)
  if (target && !o.token && !o.publish && traffic.rounds.length > 0) {
    throw invalidOption('--token', 'is required with --target and --rounds: the broadcast token of that server (or --publish \'POST URL\': your own API; or --rounds none: no broadcaster)')
  }
  // Checked now, before any process starts; the broadcaster compiles them again from the same text.
  if (o.publish) compilePublish({ publish: o.publish, headers: o.publishHeader, sign: o.publishSign })
  else if (o.publishHeader?.length || o.publishSign) throw invalidOption(o.publishSign ? '--publish-sign' : '--publish-header', 'goes with --publish: the headers and signature of its requests')
  if (o.message) parseMessageTemplate(String(o.message))
  if (o.authToken !== null && target) throw invalidOption('--auth-token', 'is for the reference server that run starts; with --target, your server checks its own tokens (give the simulators theirs with --auth, --query or --header)')
  if (o.restartServerAt.length > 0 && target) throw invalidOption('--restart-server-at', 'restarts the reference server that run starts; with --target, restart your own server yourself (the simulators measure the storm either way)')
  if (o.via === 'socket' && input.protocol === 'websocket' && !o.publish) throw invalidOption('--via', 'socket emits on the socket.io reference server\'s admin namespace: with --protocol websocket, broadcasts go by http (POST /broadcast)')
  if (o.via === 'redis-emitter') throw invalidOption('--via', 'redis-emitter is for `ioswarm broadcast` into a server on the Redis adapter; a run broadcasts with http or socket')
  // What every local simulator gets: the simulate options given to run, checked now by the
  // simulator's own normaliser (the URL and ramp are known once the server is up).
  /** @type {Record<string, unknown>} */
  const simulatorInput = { ...pickPassOn(input), maxPayload: simulatorPayloadLimit(input.maxPayload, o.size), ...(traffic.windowMs === null ? {} : { window: `${traffic.windowMs}ms` }) }
  // The reference server wants a token and the clients were given no identity: they bring it,
  // read from their environment (AUTH_TOKEN_VARIABLE), never from a command line or a result file.
  if (o.authToken !== null && ['auth', 'query', 'header', 'scenario'].every((k) => simulatorInput[/** @type {keyof typeof simulatorInput} */ (k)] === undefined)) {
    // Plain WebSocket has no handshake auth payload: the token goes in a header.
    Object.assign(simulatorInput, input.protocol === 'websocket' ? { header: [`Authorization: Bearer {{env.${AUTH_TOKEN_VARIABLE}}}`] } : { auth: `{"token":"{{env.${AUTH_TOKEN_VARIABLE}}}"}` })
  }
  const simulator = normalizeSimOptions({ ...simulatorInput, url: target ?? PLACEHOLDER_URL, ramp: o.rampMs === null ? undefined : `${o.rampMs}ms` })
  // --max-clients is the whole swarm's room (the steering's clients count the whole too), split as the clients are.
  const most = Math.max(...distributions.map((d) => d.simulators * d.clients))
  if (simulator.maxClients !== undefined && simulator.maxClients < most) {
    throw invalidOption('--max-clients', `is the room of the whole swarm: at least --simulators × --clients (${most}), got ${simulator.maxClients}`)
  }
  const [event] = simulator.events
  if (event === '*' && traffic.rounds.length > 0) throw invalidOption('--event', 'must name the event the run broadcasts on (* measures every event, but nothing can be broadcast on it)')
  return {
    target,
    token: o.token ? String(o.token) : null,
    authToken: /** @type {string | null} */ (o.authToken),
    ...appTargets(simulatorInput),
    distributions,
    expectSimulators: o.expectSimulators,
    rounds: traffic.rounds,
    roundsImplied: traffic.implied,
    phases: /** @type {import('../lib/input/phase-profile.js').Phase[] | null} */ (o.phases ?? null),
    durationMs: traffic.durationMs,
    windowMs: traffic.windowMs,
    simulatorInput,
    protocol: simulator.protocol,
    transport: formatTransportMix(simulator.transport),
    engine: simulator.engine,
    parser: simulator.parser,
    wsClient: simulator.wsClient,
    rampMs: /** @type {number | null} */ (o.rampMs),
    pingIntervalMs: /** @type {number} */ (o.pingInterval),
    sizeBytes: /** @type {number} */ (o.size),
    maxPayloadBytes: simulator.maxPayloadBytes,
    event,
    via: /** @type {'http' | 'socket'} */ (o.via),
    publish: /** @type {string | null} */ (o.publish ?? null),
    publishHeader: /** @type {string[]} */ (o.publishHeader ?? []),
    publishSign: /** @type {string | null} */ (o.publishSign ?? null),
    message: /** @type {string | null} */ (o.message ?? null),
    redis: o.redis ? String(o.redis) : null,
    runId: o.run === undefined ? null : parseRunId(o.run),
    name: o.name ? String(o.name) : null,
    out: o.out ? String(o.out) : null,
    messageTimeoutMs: simulator.messageTimeoutMs,
    connectTimeoutMs: /** @type {number} */ (o.connectTimeout),
    restartServerAtMs: /** @type {number[]} */ (o.restartServerAt),
    metricsPort: /** @type {number | null} */ (o.metricsPort),
    metricsHost: String(o.metricsHost),
    metricsLingerMs: /** @type {number} */ (o.metricsLinger),
    otlp: /** @type {string | null} */ (o.otlp),
    otlpIntervalMs: /** @type {number} */ (o.otlpInterval),
    restartSignal: /** @type {'SIGTERM' | 'SIGKILL'} */ (`SIG${o.restartSignal}`),
    thresholds: [o.assert ?? []].flat().map((expr) => parseThreshold(String(expr)))
  }
}

/**
 * The rooms and namespaces of the simulators (their --rooms R and --namespace), which the
 * run's broadcasts go to and its reference server serves: rooms R → message k to
 * room-{(k-1) mod R}; each namespace gets each message.
 * @param {Record<string, unknown>} simulatorInput the simulate options given to run
 * @returns {{ rooms: number | null, namespaces: string[] | null }} null: not given (everyone; the server's /)
 */
export function appTargets (simulatorInput) {
  const rooms = simulatorInput.rooms === undefined || simulatorInput.rooms === null ? null : parseInteger(simulatorInput.rooms, '--rooms', { min: 1, max: MAX_BROADCAST_ROOMS })
  return { rooms, namespaces: parseNamespaces(simulatorInput.namespace ?? null, '--namespace') }
}

/** Room for a message's own fields and framing around its --size payload. */
const MESSAGE_OVERHEAD_BYTES = 1024

/**
 * The simulators' --max-payload: as given (refused if one message of --size cannot fit), else
 * the simulator's default, raised to two messages of --size (a polling response may carry
 * several) when that is more.
 * @param {unknown} value the raw --max-payload, undefined when not given
 * @param {number} sizeBytes
 * @returns {string | number} the value to hand the simulators
 */
function simulatorPayloadLimit (value, sizeBytes) {
  const message = sizeBytes + MESSAGE_OVERHEAD_BYTES
  if (value === undefined || value === null) return Math.max(DEFAULT_MAX_PAYLOAD_BYTES, 2 * message)
  const limit = normalizeSimOptions({ url: PLACEHOLDER_URL, maxPayload: value }).maxPayloadBytes
  if (limit < message) throw invalidOption('--max-payload', `${limit} is smaller than one message of --size ${sizeBytes} (about ${message} bytes with its fields): every client would be closed`)
  return limit
}

/** A run id that sorts by time: run-20261121-014228-ab12. */
export function newRunId () {
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15)
  return `run-${stamp}-${randomBytes(2).toString('hex')}`
}

/**
 * The reference server a run or a capacity search starts when it has no --target.
 * @param {Pick<RunOptions, 'authToken' | 'namespaces' | 'pingIntervalMs' | 'protocol'>} options
 * @param {string} token the admin token its broadcasts use
 */
export function referenceServerOf (options, token) {
  return { token, authToken: options.authToken, namespaces: options.namespaces, pingIntervalMs: options.pingIntervalMs, protocol: options.protocol }
}

/**
 * What the broadcaster sends, the same in each distribution of a run and each capacity step.
 * @param {Pick<RunOptions, 'event' | 'sizeBytes' | 'rounds' | 'via' | 'rooms' | 'namespaces' | 'publish' | 'publishHeader' | 'publishSign' | 'message'>} options
 * @param {{ url: string, token: string }} server
 */
export function broadcastOf (options, { url, token }) {
  const { event, sizeBytes: size, rounds, via, rooms, namespaces, publish, publishHeader, publishSign, message } = options
  return { url, token, event, size, rounds, via, rooms, namespaces, publish, publishHeader, publishSign, message }
}
