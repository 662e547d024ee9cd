/**
 * The runner's options: defaults merged and validated in one place (flag named, allowed
 * values said) before any process starts.
 */
import { randomBytes } from 'node:crypto'
import { invalidOption } from '../lib/errors.js'
import { parseBytes, parseDurationMs, parseHttpUrl, parseInteger, parseRounds, parseTransportMix, formatTransportMix } from '../lib/options.js'
import { DEFAULT_EVENT } from '../lib/protocol.js'
import { DEFAULT_ROUNDS } from '../broadcaster/index.js'
import { parseMetricsPort, parseThreshold } from '../results/index.js'
import { ENGINE_NAMES, DEFAULT_MAX_PAYLOAD_BYTES, MIN_PAYLOAD_LIMIT_BYTES, MAX_PAYLOAD_LIMIT_BYTES, parseWsClient } from '../simulator/index.js'

/**
 * @typedef {{ name: string, simulators: number, clients: number }} Distribution
 * @typedef {ReturnType<typeof normalizeRunOptions>} RunOptions
 */

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
    const clients = parseInteger(match[2], `--distributions (clients in ${part})`, { min: 1, max: 1_000_000 })
    return { name: `${simulators}x${clients}`, simulators, clients }
  })
}

/**
 * @param {Record<string, any>} input
 */
export function normalizeRunOptions (input) {
  const expectSimulators = parseInteger(input.expectSimulators ?? 0, '--expect-simulators', { min: 0, max: 10000 })
  const simulators = parseInteger(input.simulators ?? 2, '--simulators', { min: 0, max: 1000 })
  const distributions = input.distributions
    ? parseDistributions(input.distributions)
    : [{ name: `${simulators}x${input.clients ?? 100}`, simulators, clients: parseInteger(input.clients ?? 100, '--clients', { min: 1, max: 1_000_000 }) }]
  if (expectSimulators > 0 && !input.redis) throw invalidOption('--expect-simulators', 'needs --redis: simulators on other hosts join the run through Redis')
  if (expectSimulators > 0 && distributions.length > 1) throw invalidOption('--expect-simulators', 'works with one distribution only (simulators elsewhere join one run id)')
  if (distributions.some((d) => d.simulators === 0) && expectSimulators === 0) throw invalidOption('--simulators', 'is 0 and no --expect-simulators: nobody would listen')
  const target = input.target ? parseHttpUrl(input.target, '--target') : null
  if (target && !input.token) throw invalidOption('--token', 'is required with --target: the broadcast token of that server')
  const engine = parseEngine(input.engine ?? 'sio')
  const sizeBytes = parseInteger(input.size ?? 0, '--size', { min: 0, max: 10 * 1024 * 1024 })
  const runId = input.run === undefined ? null : parseRunId(input.run)
  return {
    target,
    token: input.token ? String(input.token) : null,
    distributions,
    expectSimulators,
    rounds: parseRounds(input.rounds ?? DEFAULT_ROUNDS),
    transport: formatTransportMix(parseTransportMix(input.transport ?? 'websocket')),
    engine,
    parser: String(input.parser ?? 'json'),
    wsClient: parseWsClient(input.wsClient, engine, target ? [target] : []),
    rampMs: input.ramp === undefined || input.ramp === null ? null : parseDurationMs(input.ramp, '--ramp'),
    pingIntervalMs: parseDurationMs(input.pingInterval ?? '25s', '--ping-interval'),
    sizeBytes,
    maxPayloadBytes: simulatorPayloadLimit(input.maxPayload, sizeBytes),
    event: String(input.event ?? DEFAULT_EVENT),
    via: /** @type {'http' | 'socket'} */ (input.via ?? 'http'),
    redis: input.redis ? String(input.redis) : null,
    runId,
    name: input.name ? String(input.name) : null,
    out: input.out ? String(input.out) : null,
    messageTimeoutMs: parseDurationMs(input.messageTimeout ?? '10s', '--message-timeout'),
    connectTimeoutMs: parseDurationMs(input.connectTimeout ?? '60s', '--connect-timeout'),
    metricsPort: parseMetricsPort(input.metricsPort),
    metricsHost: String(input.metricsHost ?? '127.0.0.1'),
    metricsLingerMs: parseMetricsLinger(input.metricsLinger),
    thresholds: [input.assert ?? []].flat().map((expr) => parseThreshold(String(expr)))
  }
}

/** Room for a message's own fields and framing around its --size payload. */
const MESSAGE_OVERHEAD_BYTES = 1024

/**
 * The simulators' --max-payload: as given (refused if one message of --size cannot fit), else
 * the simulator's default, raised to two messages of --size (a polling response may carry
 * several) when that is more.
 * @param {unknown} value
 * @param {number} sizeBytes
 */
function simulatorPayloadLimit (value, sizeBytes) {
  const message = sizeBytes + MESSAGE_OVERHEAD_BYTES
  if (value === undefined || value === null) return Math.max(DEFAULT_MAX_PAYLOAD_BYTES, 2 * message)
  const limit = parseBytes(value, '--max-payload', { min: MIN_PAYLOAD_LIMIT_BYTES, max: MAX_PAYLOAD_LIMIT_BYTES })
  if (limit < message) throw invalidOption('--max-payload', `${limit} is smaller than one message of --size ${sizeBytes} (about ${message} bytes with its fields): every client would be closed`)
  return limit
}

/** A run id that sorts by time: run-20261121-014228-ab12. */
export function newRunId () {
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15)
  return `run-${stamp}-${randomBytes(2).toString('hex')}`
}

/**
 * A run id: the Redis key prefix of a run, so a short set of safe characters.
 * @param {unknown} value
 * @param {string} [flag]
 */
export function parseRunId (value, flag = '--run') {
  const runId = String(value)
  if (!/^[A-Za-z0-9._-]{1,100}$/.test(runId)) throw invalidOption(flag, `must be 1 to 100 letters, digits, dots, dashes or underscores, got ${JSON.stringify(runId)}`)
  return runId
}

/**
 * @param {unknown} value
 * @param {string} [flag]
 */
export function parseEngine (value, flag = '--engine') {
  const engine = String(value)
  if (!ENGINE_NAMES.includes(engine)) throw invalidOption(flag, `must be one of ${ENGINE_NAMES.join(', ')}, got ${JSON.stringify(engine)}`)
  return engine
}

/**
 * --metrics-linger: how long the metrics stay served after the run (default 0).
 * @param {unknown} value
 */
export function parseMetricsLinger (value) {
  return value === undefined || value === null ? 0 : parseDurationMs(value, '--metrics-linger')
}
