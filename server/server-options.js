/**
 * `ioswarm serve` options: every value validated in one place (flag named, allowed values
 * said), for the single server and the cluster alike, before anything listens.
 */
import os from 'node:os'
import { invalidOption } from '../lib/errors.js'
import { parseOptions } from '../lib/cli-options/index.js'
import { parseBytes } from '../lib/values/parsers.js'
import { parseBroadcastRate } from './broadcast/broadcast-limit.js'
import { checkServeProtocol } from './websocket/websocket-options.js'

const ID_PATTERN = /^[A-Za-z0-9._-]{1,100}$/

/**
 * The normalised server options: the serve rows of the options table, typed from them (their
 * parse), as normalizeServeOptions returns them.
 * @typedef {ReturnType<typeof normalizeServeOptions>} ServeOptions
 */

/**
 * @param {Record<string, unknown>} input raw values (strings from the CLI or typed values)
 */
export function normalizeServeOptions (input) {
  const o = parseOptions('serve', input)
  checkServeProtocol(input, o)
  const cluster = o.cluster
  const adapter = String(o.adapter ?? (cluster > 1 ? 'cluster' : 'memory'))
  if (adapter === 'cluster' && cluster === 0) throw invalidOption('--adapter', 'cluster relays through the node:cluster primary: use it with --cluster K')
  if (adapter === 'memory' && cluster > 1) {
    throw invalidOption('--adapter', `memory would keep each broadcast on one of the ${cluster} workers: use cluster, redis or redis-streams`)
  }
  const redisUrl = o.redis ? String(o.redis) : null
  if (adapter.startsWith('redis') && !redisUrl) throw invalidOption('--redis', `is required with --adapter ${adapter}: the Redis the server processes share`)
  const runId = o.run ? String(o.run) : null
  if (runId && !redisUrl) throw invalidOption('--run', 'needs --redis URL: samples are reported to the collector in Redis')
  const broadcastRate = String(o.broadcastRate)
  parseBroadcastRate(broadcastRate) // a bad rate is a usage error before anything starts
  const relayRate = String(o.relayRate)
  parseBroadcastRate(relayRate, '--relay-rate')
  for (const [flag, given] of [['--metrics-port', o.metricsPort !== null], ['--otlp', o.otlp !== null]]) {
    if (given && cluster > 0) {
      throw invalidOption(String(flag),
        'gives one process\'s metrics: use it without --cluster (the cluster\'s totals are in GET /stats and reach `ioswarm run --metrics-port` or `--otlp` through its server probe)')
    }
  }
  const serverId = o.id ? String(o.id) : defaultServerId()
  if (!ID_PATTERN.test(serverId)) throw invalidOption('--id', `must be 1 to 100 characters of A-Z a-z 0-9 . _ -, got ${JSON.stringify(serverId)}`)
  return {
    port: o.port,
    host: o.host ? String(o.host) : undefined,
    token: o.token ? String(o.token) : undefined,
    path: o.path,
    event: String(o.event),
    pingIntervalMs: o.pingInterval,
    pingTimeoutMs: o.pingTimeout,
    perMessageDeflate: o.perMessageDeflate,
    shutdown: o.shutdown,
    // KB/MB are 1000-based and KiB/MiB 1024-based, as for every size option (lib/values/parsers.js).
    maxHttpBufferSize: parseBytes(o.maxHttpBufferSize, '--max-http-buffer-size', { min: 1, max: 1024 ** 3 }),
    broadcastRate,
    parser: o.parser,
    cluster,
    adapter,
    redisUrl,
    runId,
    serverId,
    namespaces: o.namespaces ?? ['/'],
    authToken: o.authToken,
    relayEvent: o.relayEvent,
    relayRate,
    metricsPort: o.metricsPort,
    metricsHost: String(o.metricsHost),
    otlp: o.otlp,
    otlpIntervalMs: o.otlpInterval,
    protocol: o.protocol
  }
}

/** `server-<hostname>`, with the characters a collector id may not hold replaced. */
export function defaultServerId () {
  return `server-${os.hostname().replace(/[^A-Za-z0-9._-]/g, '-').slice(0, 80) || 'host'}`
}
