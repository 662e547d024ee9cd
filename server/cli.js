/**
 * `ioswarm serve`: the reference server, one process or a cluster, until Ctrl-C / SIGTERM.
 */
import { stopOnSignals } from '../lib/cli-run.js'
import { CODES, IoswarmError } from '../lib/errors.js'
import { declareOptions } from '../lib/cli-options/index.js'
import { COMMAND_LINES } from '../lib/cli-options/commands.js'
import { startCluster } from './cluster/cluster.js'
import { localRecipients } from './broadcast/broadcast.js'
import { startServer } from './index.js'
import { startWebSocketServer } from './websocket/ws-server.js'
import { normalizeServeOptions } from './server-options.js'
import { connectServerReporter } from './reporting.js'
import { loadMetrics } from '../results/index.js'
import { redactUrl } from '../lib/redis.js'

/** What `--help` says first: the command line, then what it does. */
const USAGE = [
  '$0 serve [options]',
  'A socket.io 4 server (WebSocket and long-polling) that relays each broadcast to every client of its namespaces, or to a room (`broadcast --rooms R` / `--to ROOM`). Trigger broadcasts with `ioswarm broadcast`, or POST /broadcast with "Authorization: Bearer <token>". Clients may emit `join` / `leave` with { room } (acked { ok: true, room }) and the --relay-event with { room?, … } (relayed to the room, acked { ok: true, recipients }). GET /stats returns connections by transport and namespace, refused connections, joins, relays, CPU, RSS and event-loop delay (with --cluster: the total and each worker).'
].join('\n\n')

/** @type {import('yargs').CommandModule<{}, any>} */
export const serveCommand = {
  ...COMMAND_LINES.serve,
  builder: (y) => declareOptions(y
    .usage(USAGE), 'serve')
    .example('$0 serve --cluster 2 --adapter redis --redis redis://localhost:6379', 'two workers sharing broadcasts through Redis')
    .example('IOSWARM_AUTH_TOKEN=s3cret $0 serve --namespace /chat --relay-event chat', 'a chat: clients need the token, join rooms and relay chat lines')
    .example('$0 serve --protocol websocket --port 8080',
      'a plain WebSocket server (no Socket.IO): each broadcast reaches every client as one JSON text frame'),
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
    printListening(server, options, Boolean(argv.json))
    await stopped
    stop.dispose()
    await server.close()
    if (reportErrors > 0) process.stderr.write(`ioswarm serve: ${reportErrors} samples could not be reported\n`)
    if (fatal) throw fatal
  }
}

/**
 * One process; reports its samples when --run is given.
 * @param {import('./server-options.js').ServeOptions} options
 * @param {(error: Error) => void} onError
 */
async function startSingle (options, onError) {
  const reporter = options.runId && options.redisUrl
    ? await connectServerReporter({ redisUrl: options.redisUrl, runId: options.runId, serverId: options.serverId, onError })
    : undefined
  const metricsModule = options.metricsPort === null && options.otlp === null ? null : await loadMetrics()
  const metrics = metricsModule?.createServerMetrics({ server: options.serverId }) ?? null
  const metricsServer = metrics && metricsModule
    ? await metricsModule.startMetricsOutputs({
      registry: () => metrics.registry,
      port: options.metricsPort,
      host: options.metricsHost,
      otlp: options.otlp,
      otlpIntervalMs: options.otlpIntervalMs,
      command: 'serve',
      onOtlpError: (error) => process.stderr.write(`ioswarm serve: warning: --otlp: pushing to ${redactUrl(String(options.otlp))} failed: ${error.message}\n`)
    }).catch(async (error) => { await reporter?.close(); throw error })
    : null
  if (metricsServer?.url) process.stderr.write(`ioswarm serve: metrics ${metricsServer.url}\n`)
  const start = options.protocol === 'websocket' ? startWebSocketServer : startServer
  const server = await start(options, {
    onSample: reporter || metrics
      ? (sample) => {
          reporter?.report(sample)
          metrics?.observeSample(sample)
        }
      : undefined,
    // Called once per broadcast message (never per client): the emits it makes.
    recipients: (targets) => {
      const local = localRecipients(targets)
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
 * What serves: the cluster's workers or one process.
 * @param {{ pid: number }[]} workers
 */
function processes (workers) {
  return workers.length > 0 ? `${workers.length} workers (pids ${workers.map((w) => w.pid).join(', ')})` : 'one process'
}

/**
 * @param {{ url: string, port: number, token: string, tokenGenerated: boolean, workers: () => { index: number, pid: number }[] }} server
 * @param {import('./server-options.js').ServeOptions} options
 * @param {boolean} json
 */
function printListening (server, options, json) {
  const tokenNote = server.tokenGenerated
    ? `\n  broadcast token (generated; pass --token or IOSWARM_TOKEN to choose it): ${server.token}`
    : '\n  broadcast token: as given'
  const workers = server.workers()
  const shape = options.protocol === 'websocket'
    ? 'plain WebSocket (ws), one process, any path, JSON text frames'
    : `${processes(workers)}, adapter ${options.adapter}, parser ${options.parser}`
  const app = options.protocol === 'websocket'
    ? (options.authToken === null ? '' : '\n  clients need the --auth-token (?token= or Authorization: Bearer); others are closed with 1008')
    : `\n  namespaces ${options.namespaces.join(', ')}; rooms by emit join/leave; relay event ${JSON.stringify(options.relayEvent)}` +
      (options.authToken === null ? '' : '; clients need the --auth-token')
  const reporting = options.runId ? `\n  reporting samples to run ${options.runId} as ${options.serverId}${workers.length ? '-w<k>' : ''}` : ''
  const trigger = `\n  trigger: ioswarm broadcast --url ${server.url} --token <token>\n`
  process.stderr.write(`ioswarm serve: listening on ${server.url} (port ${server.port}): ${shape}${app}${tokenNote}${reporting}${trigger}`)
  if (json) process.stdout.write(`${JSON.stringify({ url: server.url, port: server.port, pid: process.pid, workers })}\n`)
}
