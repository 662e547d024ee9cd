/**
 * `ioswarm simulate` (and `node client.js`): parse, run the swarm, print.
 */
import { EXIT, IoswarmError, CODES } from '../lib/errors.js'
import { progressWriter, stopOnSignals } from '../lib/cli-run.js'
import { formatCounts } from '../lib/format.js'
import { DEFAULT_EVENT } from '../lib/protocol.js'
import { linkCollector, simulatorId } from './collector-link.js'
import { ENGINE_NAMES } from './engines/index.js'
import { PARSER_NAMES } from './engines/sio.js'
import { formatProgress, formatSimSummary } from './format.js'
import { runSwarm } from './swarm.js'
import { runWorkers } from './workers.js'
import { RECORDER_LIMITS } from './recorder.js'
import { WS_CLIENT_NAMES } from './options.js'
import { startSimulatorMetrics } from './metrics.js'

/** @type {import('yargs').CommandModule<{}, any>} */
export const simulateCommand = {
  command: 'simulate',
  describe: 'Open N socket.io clients that listen for broadcasts and measure each message\'s delivery',
  builder: (y) => y
    .usage('$0 simulate -c N [options]\n\nOpens N clients, spread over the server\'s heartbeat interval, and records for every broadcast message each client\'s delay relative to the first receipt in this process, absolute latency from the message\'s sentAt, and missing deliveries. Runs until --duration or Ctrl-C, then prints a summary (stderr) and, with --json, the result (stdout).')
    .option('clients', { alias: 'c', type: 'string', default: '100', describe: 'Number of clients', requiresArg: true })
    .option('url', { alias: 'u', type: 'string', array: true, default: ['http://localhost:3000'], describe: 'Server URL (a path is taken as the namespace, as socket.io-client does); give it several times, or as an address range such as http://127.0.0.1-127.0.0.8:3000, to spread clients round-robin over destinations (ephemeral ports are per destination)' })
    .option('transport', { alias: 't', type: 'string', default: 'websocket', describe: 'websocket, polling (never upgrades), upgrade (poll, then upgrade, like browsers), or a mix by weight: websocket:70,polling:30' })
    .option('engine', { type: 'string', default: 'sio', choices: ENGINE_NAMES, describe: 'Client implementation: sio = the real socket.io-client (fidelity), lean = Engine.IO/Socket.IO spoken directly over ws and keep-alive HTTP (scale: less memory and CPU per client)' })
    .option('ws-client', { type: 'string', choices: WS_CLIENT_NAMES, describe: 'WebSocket client of --engine lean. ws (default) = the ws library, the well-trodden path. builtin = ioswarm\'s own RFC 6455 client over net (ws:// only, no TLS or compression): leaner and cheaper per frame, about 11 vs 17-20 µs CPU per delivered frame and 6-7 vs 20-21 KiB per client at 2,000 clients in bench/README.md' })
    .option('path', { type: 'string', default: '/socket.io/', describe: 'Engine.IO path on the server' })
    .option('parser', { type: 'string', default: 'json', choices: PARSER_NAMES, describe: 'Socket.IO packet encoding; must match the server\'s (msgpack = socket.io-msgpack-parser)' })
    .option('namespace', { type: 'string', describe: 'Namespace to join (default: the URL\'s path, else /)' })
    .option('event', { type: 'string', array: true, default: [DEFAULT_EVENT], describe: 'Broadcast event(s) to measure; * = every event' })
    .option('ramp', { type: 'string', describe: 'Spread connects over this window: 0 = all at once, 10s, 500ms (default: the server\'s pingInterval, read from its handshake)' })
    .option('duration', { type: 'string', describe: 'Stop after this long: 60, 90s, 5m (a bare number is seconds; default: until Ctrl-C / SIGTERM)' })
    .option('keep-alive', { type: 'boolean', default: true, describe: 'HTTP keep-alive for polling requests (--no-keep-alive: a new TCP connection per request, as socket.io-client does without an agent)' })
    .option('reconnect', { type: 'boolean', default: true, describe: 'Reconnect with socket.io-client\'s backoff after a disconnect' })
    .option('max-payload', { type: 'string', default: '1MB', describe: 'Largest WebSocket message or polling response one client accepts: 1000000, 512KB, 10MB, 1MiB (up to 256MiB). A bigger one closes the client (it reconnects after the usual backoff), counted as "payload over --max-payload". Default: socket.io\'s own maxHttpBufferSize (1e6); socket.io-client\'s 100 MiB would let 10,000 clients hold 1 TB. Raise it when your messages (several, in one polling response) are bigger' })
    .option('message-timeout', { type: 'string', default: '10s', describe: 'Close a message this long after its first receipt (or when every expected client has it); later copies count as late' })
    .option('max-open-messages', { type: 'number', default: RECORDER_LIMITS.maxOpen, describe: 'Most messages recorded at once (each holds ≈ 150 KB of histograms while open); copies of further new messages are counted as untracked, so a flooding server cannot exhaust memory' })
    .option('keep-messages', { type: 'number', default: RECORDER_LIMITS.keepClosed, describe: 'Closed messages kept whole in this simulator\'s result; older ones are folded into per-round rollups (counts summed, histograms merged) so memory stays flat on long runs. A collector (--redis, ioswarm run) gets every message whole regardless' })
    .option('id', { type: 'string', describe: 'Simulator id in results (default: <hostname>-<pid>)' })
    .option('redis', { type: 'string', describe: 'Report to the collector in this Redis (redis://[user:password@]host:port, rediss:// for TLS); needs --run' })
    .option('run', { type: 'string', describe: 'Run id to join (the same for every simulator of one test)' })
    .option('ipc', { type: 'boolean', hidden: true, describe: 'Report to the parent `ioswarm run` over IPC' })
    .option('metrics-port', { type: 'string', describe: 'Serve this simulator\'s live Prometheus metrics on this port at /metrics (0 = a free port, printed); for pm2 fleets scraped per host' })
    .option('metrics-host', { type: 'string', default: '127.0.0.1', describe: 'Address the --metrics-port server binds (0.0.0.0 for a Prometheus on another host)' })
    .option('workers', { type: 'number', default: 1, describe: 'Spread the clients over this many simulator processes (file descriptors are limited per process; one process uses one core); results are merged' })
    .option('json', { type: 'boolean', default: false, describe: 'Print the result as one JSON object on stdout' })
    .option('quiet', { alias: 'q', type: 'boolean', default: false, describe: 'No progress or summary on stderr' })
    .example('$0 simulate -c 500 --transport polling --url http://localhost:3000', '500 long-polling clients')
    .example('$0 simulate -c 1000 -t websocket:70,polling:30 --ramp 10s --duration 2m --json > result.json', 'a 70/30 mix, result as JSON'),
  handler: async (argv) => {
    if (argv.workers !== 1) return runWorkersCommand(argv)
    const progress = progressWriter({ quiet: argv.quiet })
    const stop = stopOnSignals('ioswarm simulate')
    const id = simulatorId(argv.id)
    const controlStop = new AbortController()
    const metrics = await startSimulatorMetrics(/** @type {any} */ (argv), id)
    const link = argv.redis || argv.ipc ? await linkCollector(/** @type {any} */ (argv), id, controlStop) : null
    if (metrics && !argv.quiet) process.stderr.write(`ioswarm simulate ${id}: metrics ${metrics.url}\n`)
    let result
    try {
      result = await runSwarm({ ...argv, id }, {
        ...link?.hooks,
        onMessage: (report) => { link?.hooks.onMessage(report); metrics?.metrics.observeMessage(id, report) },
        onSample: (sample) => { link?.hooks.onSample(sample); metrics?.metrics.observeSample(id, sample) },
        signal: AbortSignal.any([stop.signal, controlStop.signal]),
        onStart: ({ id, handshake, preflight }) => {
          writeWarnings(preflight.warnings)
          if (argv.quiet) return
          const ramp = handshake.handshakeError ? `handshake failed (${handshake.handshakeError}); ` : ''
          process.stderr.write(`ioswarm simulate ${id}: ${argv.clients} clients → ${argv.url}; ${ramp}ramp ${handshake.rampMs} ms (${handshake.rampSource})\n`)
        },
        onProgress: (p) => progress.update(formatProgress(p))
      })
    } finally {
      progress.done()
      stop.dispose()
      await metrics?.close()
    }
    if (link) {
      const sent = await link.finish(result)
      if (sent.undelivered > 0) process.stderr.write(`ioswarm simulate: ${sent.undelivered} reports could not be delivered to the collector (last error: ${sent.lastError})\n`)
    }
    finish(argv, result)
  }
}

/**
 * Prints the result and sets the exit code.
 * @param {any} argv
 * @param {import('../lib/schema.js').SimResult} result
 */
function finish (argv, result) {
  if (!argv.quiet) process.stderr.write(`${formatSimSummary(result)}\n`)
  if (argv.json) process.stdout.write(`${JSON.stringify(result)}\n`)
  if (result.clients.everConnected === 0) {
    throw new IoswarmError(CODES.NO_CLIENT_CONNECTED, `no client ever connected to ${result.options.url} (connect errors: ${formatCounts(result.clients.errors)})`)
  }
  process.exitCode = EXIT.OK
}

/** @param {string[]} warnings */
function writeWarnings (warnings) {
  for (const w of warnings) process.stderr.write(`ioswarm simulate: warning: ${w}\n`)
}

/**
 * `--workers K`: K child simulators; each reports to the collector on its own under --redis.
 * @param {any} argv
 */
async function runWorkersCommand (argv) {
  if (argv.ipc) throw new IoswarmError(CODES.INVALID_OPTION, '--workers cannot be used under `ioswarm run` (IPC); give the runner more --simulators instead', { flag: '--workers' })
  if (argv.metricsPort !== undefined) throw new IoswarmError(CODES.INVALID_OPTION, '--metrics-port cannot be used with --workers yet: run one simulate per process (pm2 instances), each with its own --metrics-port', { flag: '--metrics-port' })
  const stop = stopOnSignals('ioswarm simulate')
  const id = simulatorId(argv.id)
  try {
    const result = await runWorkers({ ...argv, id }, {
      signal: stop.signal,
      onPreflight: (p) => writeWarnings(p.warnings),
      onWorkerStderr: (k, text) => process.stderr.write(text.replace(/^(?=.)/gm, `[w${k}] `))
    })
    if (!argv.quiet) process.stderr.write(`ioswarm simulate ${id}: ${result.workers?.note}\n`)
    finish(argv, result)
  } finally {
    stop.dispose()
  }
}
