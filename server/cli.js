/**
 * `ioswarm serve`: the reference server, one process or a cluster, until Ctrl-C / SIGTERM.
 */
import { stopOnSignals } from '../lib/cli-run.js'
import { CODES, IoswarmError } from '../lib/errors.js'
import { DEFAULT_EVENT } from '../lib/protocol.js'
import { ADAPTER_NAMES } from './adapters.js'
import { startCluster } from './cluster.js'
import { createServerMetrics, serveMetrics } from '../results/metrics/index.js'
import { PARSER_NAMES, startServer } from './index.js'
import { normalizeServeOptions } from './options.js'
import { connectServerReporter } from './reporting.js'

/** @type {import('yargs').CommandModule<{}, any>} */
export const serveCommand = {
  command: 'serve',
  describe: 'Run the reference socket.io server under test (relays broadcasts to all clients)',
  builder: (y) => y
    .usage('$0 serve [options]\n\nA socket.io 4 server (WebSocket and long-polling) that relays each broadcast to every client with io.emit. Trigger broadcasts with `ioswarm broadcast`, or POST /broadcast with "Authorization: Bearer <token>". GET /stats returns connections by transport, CPU, RSS and event-loop delay (with --cluster: the total and each worker).')
    .option('port', { alias: 'p', type: 'string', default: '3000', describe: 'Port to listen on (0 = a free port, printed)' })
    .option('host', { type: 'string', describe: 'Address to bind (default: all interfaces)' })
    .option('token', { type: 'string', describe: 'Broadcast token (or IOSWARM_TOKEN); generated and printed once when missing' })
    .option('path', { type: 'string', default: '/socket.io/', describe: 'Engine.IO path' })
    .option('event', { type: 'string', default: DEFAULT_EVENT, describe: 'Event name broadcasts are emitted on' })
    .option('cluster', { type: 'string', default: '0', describe: 'Worker processes on the one port, with sticky sessions for polling (0 = a single process)' })
    .option('adapter', { type: 'string', choices: ADAPTER_NAMES, describe: 'How a broadcast reaches every worker\'s clients (default: cluster with --cluster 2+, else memory); redis ones need --redis' })
    .option('redis', { type: 'string', describe: 'Redis URL (or IOSWARM_REDIS): for the redis adapters, and with --run for reporting samples' })
    .option('run', { type: 'string', describe: 'Run id (or IOSWARM_RUN): report a sample a second per process to the collector in --redis' })
    .option('id', { type: 'string', describe: 'Server id in the collector (default: server-<hostname>; workers add -w<k>, the primary -primary)' })
    .option('parser', { type: 'string', default: 'json', choices: PARSER_NAMES, describe: 'Socket.IO packet encoding (msgpack = socket.io-msgpack-parser; clients need the same)' })
    .option('per-message-deflate', { type: 'boolean', default: false, describe: 'Compress WebSocket frames (permessage-deflate)' })
    .option('ping-interval', { type: 'string', default: '25s', describe: 'Engine.IO pingInterval (simulators ramp over it)' })
    .option('ping-timeout', { type: 'string', default: '20s', describe: 'Engine.IO pingTimeout' })
    .option('broadcast-rate', { type: 'string', default: '100/s', describe: 'Broadcasts accepted per second (POST /broadcast and admin emits together; per worker): 100/s, 600/m, 0 = no limit. Over it: HTTP 429 with Retry-After' })
    .option('max-http-buffer-size', { type: 'string', default: '1mb', describe: 'Largest message a client may send: 1000000, 512kb, 1mb' })
    .option('metrics-port', { type: 'string', describe: 'Serve this server\'s live Prometheus metrics (connected by transport, broadcasts and emits, CPU, memory, event-loop delay) on this port at /metrics (0 = a free port, printed; not with --cluster)' })
    .option('metrics-host', { type: 'string', default: '127.0.0.1', describe: 'Address the --metrics-port server binds (0.0.0.0 for a Prometheus on another host)' })
    .option('json', { type: 'boolean', default: false, describe: 'Print {"url", "port", "pid", "workers"} as one JSON line on stdout once listening' })
    .example('$0 serve --cluster 2 --adapter redis --redis redis://localhost:6379', 'two workers sharing broadcasts through Redis'),
  handler: async (argv) => {
    const options = normalizeServeOptions(argv)
    const stop = stopOnSignals('ioswarm serve')
    let reportErrors = 0
    const onError = (/** @type {Error} */ error) => {
      if (reportErrors++ === 0) process.stderr.write(`ioswarm serve: cannot report a sample to the collector (further failures counted): ${error.message}\n`)
    }
    /** @type {Error | undefined} */
    let fatal
    /** @type {() => void} */
    let allWorkersGone = () => {}
    const stopped = new Promise((resolve) => {
      stop.signal.addEventListener('abort', resolve, { once: true })
      allWorkersGone = () => resolve(undefined)
    })
    const server = options.cluster > 0
      ? await startCluster(options, {
        onError,
        onWorkerExit: ({ index, pid, code, signal, left }) => {
          process.stderr.write(`ioswarm serve: worker ${index} (pid ${pid}) exited (${signal ?? `code ${code}`}); ${left} left\n`)
          if (left === 0) {
            fatal = new IoswarmError(CODES.SERVER, 'every cluster worker has exited')
            allWorkersGone()
          }
        }
      })
      : await startSingle(options, onError)
    printListening(server, options, argv.json)
    await stopped
    stop.dispose()
    await server.close()
    if (reportErrors > 0) process.stderr.write(`ioswarm serve: ${reportErrors} samples could not be reported\n`)
    if (fatal) throw fatal
  }
}

/**
 * One process; reports its samples when --run is given.
 * @param {import('./options.js').ServeOptions} options
 * @param {(error: Error) => void} onError
 */
async function startSingle (options, onError) {
  const reporter = options.runId && options.redisUrl
    ? await connectServerReporter({ redisUrl: options.redisUrl, runId: options.runId, serverId: options.serverId, onError })
    : undefined
  const metrics = options.metricsPort === null ? null : createServerMetrics({ server: options.serverId })
  const metricsServer = metrics ? await serveMetrics({ port: /** @type {number} */ (options.metricsPort), host: options.metricsHost, registry: () => metrics.registry }).catch(async (error) => { await reporter?.close(); throw error }) : null
  if (metricsServer) process.stderr.write(`ioswarm serve: metrics ${metricsServer.url}\n`)
  const server = await startServer(options, {
    onSample: reporter || metrics
      ? (sample) => {
          reporter?.report(sample)
          metrics?.observeSample(sample)
        }
      : undefined,
    // Called once per broadcast message (never per client): the emits it makes.
    recipients: (local) => {
      metrics?.observeBroadcast(1, local)
      return local
    }
  }).catch(async (error) => {
    await metricsServer?.close()
    await reporter?.close()
    throw error
  })
  return {
    ...server,
    workers: () => [],
    async close () {
      await server.close()
      await metricsServer?.close()
      await reporter?.close()
    }
  }
}

/**
 * @param {{ url: string, port: number, token: string, tokenGenerated: boolean, workers: () => { index: number, pid: number }[] }} server
 * @param {import('./options.js').ServeOptions} options
 * @param {boolean} json
 */
function printListening (server, options, json) {
  const tokenNote = server.tokenGenerated
    ? `\n  broadcast token (generated; pass --token or IOSWARM_TOKEN to choose it): ${server.token}`
    : '\n  broadcast token: as given'
  const workers = server.workers()
  const shape = workers.length > 0 ? `${workers.length} workers (pids ${workers.map((w) => w.pid).join(', ')}), adapter ${options.adapter}` : `one process, adapter ${options.adapter}`
  const reporting = options.runId ? `\n  reporting samples to run ${options.runId} as ${options.serverId}${workers.length ? '-w<k>' : ''}` : ''
  process.stderr.write(`ioswarm serve: listening on ${server.url} (port ${server.port}): ${shape}, parser ${options.parser}${tokenNote}${reporting}\n  trigger: ioswarm broadcast --url ${server.url} --token <token>\n`)
  if (json) process.stdout.write(`${JSON.stringify({ url: server.url, port: server.port, pid: process.pid, workers })}\n`)
}
