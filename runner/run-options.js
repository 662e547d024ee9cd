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
import { CLIENT_SPELLINGS, LENGTH_SPELLINGS, spellingOf, twoClientReadings } from '../lib/input/swarm-spellings.js'
import { normalizeSimOptions } from '../simulator/index.js'
import { compilePublish, parseMessageTemplate } from '../broadcaster/index.js'

/**
 * One layout of a run: its simulators, the most clients one of them runs, and the whole swarm
 * they split (simulator/processes/partition.js).
 * @typedef {{ name: string, simulators: number, clients: number, total: number }} Distribution
 * @typedef {ReturnType<typeof normalizeRunOptions>} RunOptions
 */

/** Where the simulators' options are checked before the server's URL is known. */
const PLACEHOLDER_URL = 'http://127.0.0.1:1'

/**
 * `10x1000,20x500` → ten simulators of 1,000 clients, then twenty of 500.
 * @param {unknown} value
 */
function parseDistributions (value) {
  const parts = String(value).split(',').map((p) => p.trim()).filter(Boolean)
  if (parts.length === 0) throw invalidOption('--distributions', 'must be SIMULATORSxCLIENTS,… such as 10x1000,20x500')
  return parts.map((part) => {
    const match = /^(\d+)\s*x\s*(\d+)$/i.exec(part)
    if (!match) {
      throw invalidOption('--distributions', `has ${JSON.stringify(part)}: each must be SIMULATORSxCLIENTS such as 10x1000 (10 simulators of 1,000 clients)`)
    }
    const simulators = parseInteger(match[1], `--distributions (simulators in ${part})`, { min: 1, max: 1000 })
    const clients = parseInteger(match[2], `--distributions (clients in ${part})`, { min: 1, max: MAX_CLIENTS })
    return { name: `${simulators}x${clients}`, simulators, clients, total: simulators * clients }
  })
}

/**
 * --distributions, which gives each distribution's simulators and clients: a clients flag
 * beside it would be ignored, so it is refused rather than silently dropped.
 * @param {Record<string, any>} input raw values
 * @param {string} spec --distributions
 * @returns {Distribution[]}
 */
function distributionsLayout (input, spec) {
  const flag = spellingOf(input, CLIENT_SPELLINGS, 'how many clients run')
  if (flag !== null) throw invalidOption(flag, `cannot go with --distributions ${spec}, which gives each distribution's simulators and clients; give one`)
  return parseDistributions(spec)
}

/**
 * The one layout of a run without --distributions or --phases: --simulators and its clients.
 * --clients is the whole swarm, as on every command; a bare one with more than one simulator
 * is refused for now with both readings (it meant clients per simulator before); without
 * any, each simulator runs the default clients (the layout run always had).
 * @param {Record<string, any>} input raw values
 * @param {Record<string, any>} o parsed values
 * @returns {Distribution}
 */
function clientLayout (input, o) {
  const flag = spellingOf(input, CLIENT_SPELLINGS, 'how many clients run')
  const simulators = /** @type {number} */ (o.simulators)
  const perSimulator = (/** @type {number} */ clients) => ({ name: `${simulators}x${clients}`, simulators, clients, total: simulators * clients })
  if (flag === null) return perSimulator(o.clients)
  if (flag === '--clients-per-simulator') return perSimulator(o.clientsPerSimulator)
  const total = /** @type {number} */ (flag === '--clients' ? o.clients : o.totalClients)
  // No local simulator (--expect-simulators): both readings are the same nothing here.
  if (simulators <= 1) return simulators === 0 ? perSimulator(total) : { name: `1x${total}`, simulators, clients: total, total }
  if (flag === '--clients') throw twoClientReadings(total, simulators)
  if (total < simulators) throw invalidOption(flag, `${total} is fewer than --simulators ${simulators}: every simulator needs at least one client`)
  const low = Math.floor(total / simulators)
  const high = Math.ceil(total / simulators)
  return { name: low === high ? `${simulators}x${low}` : `${simulators}x${low}-${high}`, simulators, clients: high, total }
}

/**
 * A bare --duration on a run with a ramp: both readings, with numbers, and how to ask for each.
 * @param {unknown} raw the --duration given
 * @param {number} durationMs
 * @param {Record<string, any>} o parsed values
 * @param {string | null} target
 */
function twoDurationReadings (raw, durationMs, o, target) {
  const given = String(raw)
  const rampMs = /** @type {number | null} */ (o.rampMs ?? (target ? null : o.pingInterval))
  const s = (/** @type {number} */ ms) => `${Math.round(ms / 100) / 10} s`
  const ramp = o.rampMs !== null && o.rampMs !== undefined
    ? `--ramp ${s(o.rampMs)}`
    : target ? 'the ramp (the server\'s pingInterval by default)' : `the ramp (${s(rampMs ?? 0)}: the reference server's pingInterval by default)`
  const old = rampMs === null ? '' : `, ${s(rampMs + durationMs)} in all`
  const now = rampMs === null ? '' : rampMs < durationMs ? `, held ${s(durationMs - rampMs)} after the ramp` : ', ending before the ramp does'
  return invalidOption('--duration', `${given} with ${ramp} has two readings: ` +
    `hold the clients ${given} after the ramp${old} (the old reading: --hold ${given}), ` +
    `or ${given} in all, the ramp included${now} (the new one: --total-duration ${given}). --duration now means the whole run, as in simulate; ` +
    'until the next minor version run refuses a bare --duration unless --ramp 0: give one of the two spellings')
}

/** A run's windows without --window: 10 s. */
const DEFAULT_WINDOW_MS = 10000

/**
 * The run's traffic source: its rounds (none: []), and without rounds its length and
 * --window. `run --target URL` with neither --token, --publish nor --rounds means none (`implied`: the
 * run says so on its first line). The length is the whole run, the ramp included (--duration,
 * --total-duration, --phases' total: durationMs), or the hold after the ramp (--hold: holdMs).
 * @param {Record<string, any>} input raw values: was --rounds given?
 * @param {Record<string, any>} o parsed values
 * @param {string | null} target
 * @returns {{ rounds: import('../lib/values/parsers.js').Round[], implied: boolean, durationMs: number | null, holdMs: number | null, windowMs: number | null }}
 */
function trafficSource (input, o, target) {
  const given = input.rounds !== undefined && input.rounds !== null
  const phases = /** @type {import('../lib/input/phase-profile.js').Phase[] | null} */ (o.phases ?? null)
  if (phases && given && o.rounds.length > 0) {
    throw invalidOption('--phases', 'is for a run without rounds: broadcast --rounds need a fixed swarm; drop --rounds (or give --rounds none)')
  }
  const length = spellingOf(input, LENGTH_SPELLINGS, 'how long the run lasts')
  if (phases && length !== null) throw invalidOption('--phases', `cannot go with ${length} (the run lasts the phases' total): drop ${length}`)
  const implied = !given && (phases !== null || (target !== null && !o.token && !o.publish))
  const rounds = implied ? [] : /** @type {import('../lib/values/parsers.js').Round[]} */ (o.rounds)
  const windowGiven = /** @type {number | null} */ (o.windowMs ?? null)
  if (rounds.length > 0) {
    if (length !== null) throw invalidOption(length, 'is for a run without rounds (--rounds none); with --rounds the run lasts as long as its rounds')
    if (windowGiven !== null) throw invalidOption('--window', 'is for a run without rounds (--rounds none): with --rounds, each round is a row')
    return { rounds, implied, durationMs: null, holdMs: null, windowMs: null }
  }
  if (length === null && !phases) {
    throw invalidOption('--duration', `is required without rounds${implied ? ' (--target without --token: no broadcaster)' : ''}: ` +
      'how long the run lasts, such as --total-duration 5m (the ramp included) or --hold 5m (after the ramp)')
  }
  if (length === '--duration' && o.rampMs !== 0) throw twoDurationReadings(input.duration, /** @type {number} */ (o.durationMs), o, target)
  const holdMs = length === '--hold' ? /** @type {number} */ (o.holdMs) : null
  const lengthOf = length === '--total-duration' ? o.totalDurationMs : length === '--duration' ? o.durationMs : null
  const durationMs = /** @type {number | null} */ (phases ? totalMsOf(phases) : lengthOf)
  const lengthMs = /** @type {number} */ (durationMs ?? holdMs)
  const windowMs = windowGiven ?? Math.min(DEFAULT_WINDOW_MS, lengthMs)
  if (windowMs > lengthMs) {
    throw invalidOption('--window', `${windowMs / 1000}s is longer than ${phases ? '--phases\' total' : length} ${lengthMs / 1000}s: not one window would end`)
  }
  return { rounds, implied, durationMs, holdMs, windowMs }
}

/** The run flags --phases replaces: the profile sets the clients, their ramps and the run's length. */
const PHASES_REPLACE = /** @type {const} */ ([
  ['clients', '--clients'], ['totalClients', '--total-clients'], ['clientsPerSimulator', '--clients-per-simulator'],
  ['ramp', '--ramp'], ['distributions', '--distributions'], ['expectSimulators', '--expect-simulators']
])

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
      const why = 'the profile\'s steps set the clients (split over --simulators) and how they come and go'
      throw invalidOption('--phases', `cannot go with ${flag}: ${why}; drop ${flag}`)
    }
  }
  if (o.simulators === 0) throw invalidOption('--simulators', 'is 0: with --phases the profile is split over this machine\'s simulators')
  const most = maxClientsOf(o.phases)
  const clients = Math.ceil(most / o.simulators)
  return { name: `${o.simulators}x${clients}`, simulators: o.simulators, clients, total: most }
}

/** Where a run's simulators find the reference server's --auth-token (their --auth reads it). */
const AUTH_TOKEN_VARIABLE = 'IOSWARM_AUTH_TOKEN'

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
    ? distributionsLayout(input, o.distributions)
    : [phases ?? clientLayout(input, o)]
  if (o.expectSimulators > 0 && !o.redis) throw invalidOption('--expect-simulators', 'needs --redis: simulators on other hosts join the run through Redis')
  if (o.expectSimulators > 0 && distributions.length > 1) {
    throw invalidOption('--expect-simulators', 'works with one distribution only (simulators elsewhere join one run id)')
  }
  if (distributions.some((d) => d.simulators === 0) && o.expectSimulators === 0) {
    throw invalidOption('--simulators', 'is 0 and no --expect-simulators: nobody would listen')
  }
  const target = o.target ? parseHttpUrl(o.target, '--target') : null
  const traffic = trafficSource(input, o, target)
  if (target && !o.token && !o.publish && traffic.rounds.length > 0) {
    throw invalidOption('--token',
      'is required with --target and --rounds: the broadcast token of that server (or --publish \'POST URL\': your own API; or --rounds none: no broadcaster)')
  }
  // Checked now, before any process starts; the broadcaster compiles them again from the same text.
  if (o.publish) compilePublish({ publish: o.publish, headers: o.publishHeader, sign: o.publishSign })
  else if (o.publishHeader?.length || o.publishSign) {
    throw invalidOption(o.publishSign ? '--publish-sign' : '--publish-header', 'goes with --publish: the headers and signature of its requests')
  }
  if (o.message) parseMessageTemplate(String(o.message))
  if (o.authToken !== null && target) {
    throw invalidOption('--auth-token',
      'is for the reference server that run starts; with --target, your server checks its own tokens (give the simulators theirs with --auth, --query or --header)')
  }
  if (o.restartServerAt.length > 0 && target) {
    throw invalidOption('--restart-server-at',
      'restarts the reference server that run starts; with --target, restart your own server yourself (the simulators measure the storm either way)')
  }
  if (input.protocol === 'sse' && (!target || (!o.publish && traffic.rounds.length > 0))) {
    throw invalidOption('--protocol', 'sse has no reference server to broadcast through: give your stream with --target and how to publish to it with ' +
      '--publish \'POST URL\' (or --rounds none: only subscribers)')
  }
  if (o.via === 'socket' && input.protocol === 'websocket' && !o.publish) {
    throw invalidOption('--via',
      'socket emits on the socket.io reference server\'s admin namespace: with --protocol websocket, broadcasts go by http (POST /broadcast)')
  }
  if (o.via === 'redis-emitter') {
    throw invalidOption('--via', 'redis-emitter is for `ioswarm broadcast` into a server on the Redis adapter; a run broadcasts with http or socket')
  }
  // What every local simulator gets: the simulate options given to run, checked now by the
  // simulator's own normaliser (the URL and ramp are known once the server is up).
  const windowed = traffic.windowMs === null ? {} : { window: `${traffic.windowMs}ms` }
  /** @type {Record<string, unknown>} */
  const simulatorInput = { ...pickPassOn(input), maxPayload: simulatorPayloadLimit(input.maxPayload, o.size), ...windowed }
  // The reference server wants a token and the clients were given no identity: they bring it,
  // read from their environment (AUTH_TOKEN_VARIABLE), never from a command line or a result file.
  const noIdentity = ['auth', 'query', 'header', 'scenario'].every((k) => simulatorInput[/** @type {keyof typeof simulatorInput} */ (k)] === undefined)
  if (o.authToken !== null && noIdentity) {
    // Plain WebSocket has no handshake auth payload: the token goes in a header.
    Object.assign(simulatorInput, input.protocol === 'websocket'
      ? { header: [`Authorization: Bearer {{env.${AUTH_TOKEN_VARIABLE}}}`] }
      : { auth: `{"token":"{{env.${AUTH_TOKEN_VARIABLE}}}"}` })
  }
  // A simulator's own clients, never the whole swarm's (--clients is that): the runner's look at the server and the
  // check here see one simulator's options; each distribution's simulators get their share (runner/distribution.js).
  delete simulatorInput.clients
  if (!phases) simulatorInput.clients = Math.max(1, Math.min(...distributions.map((d) => d.clients)))
  const simulator = normalizeSimOptions({ ...simulatorInput, url: target ?? PLACEHOLDER_URL, ramp: o.rampMs === null ? undefined : `${o.rampMs}ms` })
  // --max-clients is the whole swarm's room (the steering's clients count the whole too), split as the clients are.
  const most = Math.max(...distributions.map((d) => d.total))
  if (simulator.maxClients !== undefined && simulator.maxClients < most) {
    throw invalidOption('--max-clients', `is the room of the whole swarm: at least its clients (${most}), got ${simulator.maxClients}`)
  }
  const [event] = simulator.events
  if (event === '*' && traffic.rounds.length > 0) {
    throw invalidOption('--event', 'must name the event the run broadcasts on (* measures every event, but nothing can be broadcast on it)')
  }
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
    holdMs: traffic.holdMs,
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
  const rooms = simulatorInput.rooms === undefined || simulatorInput.rooms === null
    ? null
    : parseInteger(simulatorInput.rooms, '--rooms', { min: 1, max: MAX_BROADCAST_ROOMS })
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
  if (limit < message) {
    const about = `about ${message} bytes with its fields`
    throw invalidOption('--max-payload', `${limit} is smaller than one message of --size ${sizeBytes} (${about}): every client would be closed`)
  }
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
