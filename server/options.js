/**
 * `ioswarm serve` options: every value validated in one place (flag named, allowed values
 * said), for the single server and the cluster alike, before anything listens.
 */
import os from 'node:os'
import { parseMetricsPort } from '../results/metrics/http.js'
import { invalidOption } from '../lib/errors.js'
import { parseDurationMs, parseInteger } from '../lib/options.js'
import { DEFAULT_EVENT, DEFAULT_PATH } from '../lib/protocol.js'
import { ADAPTER_NAMES } from './adapters.js'
import { DEFAULT_BROADCAST_RATE, parseBroadcastRate } from './broadcast-limit.js'
import { PARSER_NAMES } from './index.js'

/** Most worker processes `--cluster` accepts. */
export const MAX_WORKERS = 64
const ID_PATTERN = /^[A-Za-z0-9._-]{1,100}$/
const SIZE_UNITS = { b: 1, kb: 1024, mb: 1024 ** 2 }

/**
 * @typedef {object} ServeOptions
 * @property {number} port
 * @property {string | undefined} host
 * @property {string | undefined} token
 * @property {string} path
 * @property {string} event
 * @property {number} pingIntervalMs
 * @property {number} pingTimeoutMs
 * @property {boolean} perMessageDeflate
 * @property {number} maxHttpBufferSize bytes
 * @property {string} broadcastRate broadcasts per second accepted, as given (100/s, 600/m, 0)
 * @property {string} parser json or msgpack
 * @property {number} cluster worker processes; 0 = one process, no cluster
 * @property {string} adapter memory, cluster, redis or redis-streams
 * @property {string | null} redisUrl for the Redis adapters and the collector
 * @property {string | null} runId report samples to the collector under this run
 * @property {string} serverId this server's id in the collector; workers add -w<k>
 * @property {number | null} metricsPort serve Prometheus metrics on this port (null = none)
 * @property {string} metricsHost the address the metrics server binds
 */

/**
 * @param {Record<string, unknown>} input raw values (strings from the CLI or typed values)
 * @returns {ServeOptions}
 */
export function normalizeServeOptions (input) {
  const cluster = parseInteger(input.cluster ?? 0, '--cluster', { min: 0, max: MAX_WORKERS })
  const adapter = String(input.adapter ?? (cluster > 1 ? 'cluster' : 'memory'))
  if (!ADAPTER_NAMES.includes(adapter)) throw invalidOption('--adapter', `must be one of ${ADAPTER_NAMES.join(', ')}, got ${JSON.stringify(adapter)}`)
  if (adapter === 'cluster' && cluster === 0) throw invalidOption('--adapter', 'cluster relays through the node:cluster primary: use it with --cluster K')
  if (adapter === 'memory' && cluster > 1) throw invalidOption('--adapter', `memory would keep each broadcast on one of the ${cluster} workers: use cluster, redis or redis-streams`)
  const redisUrl = input.redis ? String(input.redis) : null
  if (adapter.startsWith('redis') && !redisUrl) throw invalidOption('--redis', `is required with --adapter ${adapter}: the Redis the server processes share`)
  const runId = input.run ? String(input.run) : null
  if (runId && !redisUrl) throw invalidOption('--run', 'needs --redis URL: samples are reported to the collector in Redis')
  const parser = String(input.parser ?? 'json')
  if (!PARSER_NAMES.includes(parser)) throw invalidOption('--parser', `must be one of ${PARSER_NAMES.join(', ')}, got ${JSON.stringify(parser)}`)
  const broadcastRate = String(input.broadcastRate ?? DEFAULT_BROADCAST_RATE)
  parseBroadcastRate(broadcastRate) // a bad rate is a usage error before anything starts
  const metricsPort = parseMetricsPort(input.metricsPort)
  if (metricsPort !== null && cluster > 0) throw invalidOption('--metrics-port', 'serves one process\'s metrics: use it without --cluster (the cluster\'s totals are in GET /stats and reach `ioswarm run --metrics-port` through its server probe)')
  const serverId = input.id ? String(input.id) : defaultServerId()
  if (!ID_PATTERN.test(serverId)) throw invalidOption('--id', `must be 1 to 100 characters of A-Z a-z 0-9 . _ -, got ${JSON.stringify(serverId)}`)
  return {
    port: parseInteger(input.port ?? 3000, '--port', { min: 0, max: 65535 }),
    host: input.host ? String(input.host) : undefined,
    token: input.token ? String(input.token) : undefined,
    path: String(input.path ?? DEFAULT_PATH),
    event: String(input.event ?? DEFAULT_EVENT),
    pingIntervalMs: parseDurationMs(input.pingInterval ?? '25s', '--ping-interval'),
    pingTimeoutMs: parseDurationMs(input.pingTimeout ?? '20s', '--ping-timeout'),
    perMessageDeflate: Boolean(input.perMessageDeflate ?? false),
    maxHttpBufferSize: parseBytes(input.maxHttpBufferSize ?? '1mb', '--max-http-buffer-size'),
    broadcastRate,
    parser,
    cluster,
    adapter,
    redisUrl,
    runId,
    serverId,
    metricsPort,
    metricsHost: String(input.metricsHost ?? '127.0.0.1')
  }
}

/** `server-<hostname>`, with the characters a collector id may not hold replaced. */
export function defaultServerId () {
  return `server-${os.hostname().replace(/[^A-Za-z0-9._-]/g, '-').slice(0, 80) || 'host'}`
}

/**
 * A size in bytes: 1000000, 512kb, 1mb (units of 1024).
 * @param {unknown} value
 * @param {string} flag
 */
export function parseBytes (value, flag) {
  const match = /^(\d+)\s*(b|kb|mb)?$/i.exec(String(value).trim())
  const bytes = match ? Number(match[1]) * SIZE_UNITS[/** @type {'b'} */ ((match[2] ?? 'b').toLowerCase())] : NaN
  if (!Number.isSafeInteger(bytes) || bytes < 1 || bytes > 1024 ** 3) {
    throw invalidOption(flag, `must be a size from 1 byte to 1024mb, such as 1000000, 512kb or 1mb, got ${JSON.stringify(value)}`)
  }
  return bytes
}
