/**
 * `ioswarm simulate` (and `node client.js`): parse, run the swarm, print.
 */
import { EXIT, IoswarmError, CODES, invalidOption } from '../lib/errors.js'
import { printJsonResult, progressWriter, stopOnSignals } from '../lib/cli-run.js'
import { declareOptions, parseOptions } from '../lib/cli-options/index.js'
import { COMMAND_LINES } from '../lib/cli-options/commands.js'
import { formatCounts, formatLayout } from '../lib/text/format.js'
import { formatPhases } from '../lib/input/phase-profile.js'
import { formatWindowLine } from '../lib/text/window-text.js'
import { redactUrl } from '../lib/redis.js'
import { simulatorId } from './reporting/collector-link.js'
import { INSECURE_WARNING, formatProgress, formatSimSummary } from './reporting/summary-text.js'
import { runLinkedSwarm } from './processes/linked.js'
import { normalizeSimOptions } from './sim-options.js'
import { runWorkers } from './processes/workers.js'
import { withDashboardRoom } from './processes/steering.js'
import { joinSinks, startSimulatorMetrics } from './reporting/live-metrics.js'
import { openSimulateDashboard } from './reporting/dashboard.js'
import { finalReportOf } from '../results/index.js'
import { createSteering, formatActionLine } from '../lib/steering.js'

/** What `--help` says first: the command line, then what it does. */
const USAGE = [
  '$0 simulate -c N [options]',
  'Opens N clients, spread over the server\'s heartbeat interval, and records for every broadcast message each client\'s delay relative to the first receipt in this process, absolute latency from the message\'s sentAt, and missing deliveries. Runs until --duration or Ctrl-C, then prints a summary (stderr) and, with --json, the result (stdout).'
].join('\n\n')

/** @type {import('yargs').CommandModule<{}, any>} */
export const simulateCommand = {
  ...COMMAND_LINES.simulate,
  builder: (y) => declareOptions(y
    .usage(USAGE), 'simulate')
    .example('$0 simulate -c 500 --transport polling --url http://localhost:3000', '500 long-polling clients')
    .example('$0 simulate -c 1000 -t websocket:70,polling:30 --ramp 10s --duration 2m --json > result.json', 'a 70/30 mix, result as JSON')
    .example('$0 simulate -c 20000 --workers 4 --url http://app:3000 --metrics-port 9464 --metrics-host 0.0.0.0',
      'four worker processes, their metrics on one port')
    .example('$0 simulate --protocol websocket --url ws://localhost:8080/live -c 1000 --send-on-open \'{"op":"subscribe","user":"u{{i}}"}\' --match type=score',
      'a plain WebSocket server (no Socket.IO): subscribe once open, measure the score messages'),
  handler: async (argv) => {
    const {
      workers, json, quiet, redis, run, metricsPort, metricsHost, otlp, otlpInterval, dashboard: dashboardPort, dashboardHost
    } = parseOptions('simulate', argv)
    const given = { ...normalizeSimOptions(argv), id: simulatorId(argv.id) }
    // --dashboard: room for the page to grow the swarm, unless --max-clients set one.
    const options = dashboardPort === null || dashboardPort === undefined ? given : withDashboardRoom(given, workers)
    if (options.maxClients !== given.maxClients) {
      process.stderr.write(`ioswarm simulate ${options.id}: dashboard: room for ${options.maxClients} clients: the page may grow the swarm up to that\n`)
    }
    if (redis && !run) throw invalidOption('--run', 'is required with --redis: the run id every simulator of a test shares')
    const link = redis ? { redisUrl: String(redis), runId: String(run) } : null
    // --metrics-port, --otlp: one process serves its own; with --workers the parent all of its workers'.
    const metrics = metricsPort === null && !otlp
      ? null
      : await startSimulatorMetrics(options, {
        port: /** @type {number | null} */ (metricsPort),
        host: String(metricsHost),
        otlp: otlp ? String(otlp) : null,
        otlpIntervalMs: Number(otlpInterval),
        run: run ? String(run) : null,
        workers: workers > 1,
        onOtlpError: (error) => process.stderr.write(`ioswarm simulate: warning: --otlp: pushing to ${redactUrl(String(otlp))} failed: ${error.message}\n`)
      })
    if (metrics?.url && !quiet) process.stderr.write(`ioswarm simulate ${options.id}: metrics ${metrics.url}\n`)
    // Ctrl-C and the dashboard's actions steer the swarm through one object; each action is said as it is decided.
    const steering = createSteering({ command: 'simulate' })
    const stop = stopOnSignals('ioswarm simulate', steering)
    const unlisten = steering.onEvent((event) => { process.stderr.write(`${formatActionLine(event)}\n`) })
    const dashboard = await openSimulateDashboard({ port: dashboardPort, host: String(dashboardHost), id: options.id, steering },
      (line) => process.stderr.write(`${line}\n`))
    /** @type {Said} */
    const said = {
      sink: joinSinks([metrics?.metrics, dashboard?.sink]),
      log: dashboard ? (line) => dashboard.log(line) : () => {},
      phases: dashboard ? (phases) => dashboard.phases(phases) : () => {},
      window: dashboard ? (w) => dashboard.window(w) : () => {}
    }
    let result
    try {
      result = workers > 1
        ? await runWorkersCommand(options, workers, link, quiet, steering, said)
        : await runOne(options, link, quiet, steering, said)
    } finally {
      unlisten()
      stop.dispose()
      await dashboard?.close()
      await metrics?.close()
    }
    if (!quiet) process.stderr.write(`${formatSimSummary(result)}\n`)
    if (json) await printJsonResult('ioswarm simulate', result)
    if (result.clients.everConnected === 0) {
      const errors = formatCounts(result.clients.errors)
      throw new IoswarmError(CODES.NO_CLIENT_CONNECTED, `no client ever connected to ${result.options.url} (connect errors: ${errors})`)
    }
    process.exitCode = EXIT.OK
  }
}

/**
 * One process: the swarm, its progress line, its collector link.
 * @param {import('./sim-options.js').SimOptions & { id: string }} options
 * @param {import('./reporting/collector-link.js').CollectorLinkOptions | null} link
 * @param {boolean} quiet
 * @param {import('../lib/steering.js').Steering} steering its stop is the command's signal (Ctrl-C's too)
 * @param {Said} said where the figures and lines go besides the terminal (--metrics-port, --dashboard): fed by this process's hooks, then its final report
 */
async function runOne (options, link, quiet, steering, said) {
  const metrics = said.sink
  const progress = progressWriter({ quiet })
  try {
    const { result, delivery } = await runLinkedSwarm(options, link, {
      signal: steering.signal,
      steering,
      onMessage: metrics ? (report) => metrics.observeMessage(options.id, report) : undefined,
      onSample: metrics ? (sample) => metrics.observeSample(options.id, sample) : undefined,
      onStart: ({ id, handshake, preflight }) => {
        writeWarnings(startWarnings(options, preflight, handshake))
        const ramp = handshake.handshakeError ? `handshake failed (${handshake.handshakeError}); ` : ''
        const sizing = options.phases ? `phases ${formatPhases(options.phases)}` : `ramp ${handshake.rampMs} ms (${handshake.rampSource})`
        const protocol = `${handshake.protocol} (${handshake.eioSource})`
        const line = `ioswarm simulate ${id}: ${options.clients} clients → ${options.urls.join(', ')}; ${protocol}; ${ramp}${sizing}`
        said.log(line)
        if (options.phases) said.phases(options.phases)
        if (!quiet) process.stderr.write(`${line}\n`)
      },
      onProgress: (p) => progress.update(formatProgress(p, options.protocol === 'sse')),
      onWindow: (w) => {
        said.window(w)
        if (quiet) return
        progress.done()
        process.stderr.write(`ioswarm simulate ${options.id}: ${formatWindowLine(w)}\n`)
      }
    })
    // Its final figures, as a run's metrics take them from the collector: the acks the clients'
    // close ended after the last sample, and what only a final report has (reasons, storms, exact times).
    metrics?.observeFinals([{ ...finalReportOf(result), simulator: options.id }])
    if (delivery && delivery.undelivered > 0) {
      process.stderr.write(`ioswarm simulate: ${delivery.undelivered} reports could not be delivered to the collector (last error: ${delivery.lastError})\n`)
    }
    return result
  } finally {
    progress.done()
  }
}

/**
 * Where a swarm's figures and lines go besides the terminal.
 * @typedef {object} Said
 * @property {import('../results/metrics/feed.js').MetricsSink | null} sink --metrics-port and --dashboard, fed as one
 * @property {(line: string) => void} log a line for the dashboard's log
 * @property {(phases: import('../lib/input/phase-profile.js').Phase[]) => void} phases --phases as the swarm starts them, shaded on the dashboard's charts
 * @property {(window: import('../lib/schema/result-schema.js').WindowReport | import('../lib/schema/result-schema.js').WindowResult) => void} window
 *   a window for the dashboard's chart
 */

/**
 * What is said before the swarm: the preflight's warnings, the first contact's diagnosis, --insecure.
 * @param {import('./sim-options.js').SimOptions} options
 * @param {import('./inspection/preflight.js').Preflight} preflight
 * @param {import('../lib/schema/result-schema.js').SimResult['server']} server
 */
function startWarnings (options, preflight, server) {
  return [...preflight.warnings, ...(server.diagnosis ? [server.diagnosis] : []), ...(options.insecure ? [INSECURE_WARNING] : [])]
}

/** @param {string[]} warnings */
function writeWarnings (warnings) {
  for (const w of warnings) process.stderr.write(`ioswarm simulate: warning: ${w}\n`)
}

/**
 * `--workers K`: K simulator children; each reports to the collector on its own under --redis.
 * @param {import('./sim-options.js').SimOptions & { id: string }} options
 * @param {number} workers
 * @param {import('./reporting/collector-link.js').CollectorLinkOptions | null} link
 * @param {boolean} quiet
 * @param {import('../lib/steering.js').Steering} steering its stop is the command's signal (Ctrl-C's too)
 * @param {Said} said --metrics-port and --dashboard: fed with every worker's records
 */
async function runWorkersCommand (options, workers, link, quiet, steering, said) {
  // The whole swarm first: --clients is every worker's together.
  const atMost = options.phases ? ' at most (--phases)' : ''
  const layout = `ioswarm simulate ${options.id}: ${formatLayout(workers, options.clients, 'worker')}${atMost}`
  said.log(layout)
  if (!quiet) process.stderr.write(`${layout}\n`)
  const result = await runWorkers(options, workers, {
    link,
    signal: steering.signal,
    steering,
    metrics: said.sink,
    onWindow: (w) => said.window(w),
    onStart: ({ preflight, server }) => {
      writeWarnings(startWarnings(options, preflight, server))
      if (options.phases) said.phases(options.phases)
    },
    onWorkerStderr: (k, text) => {
      const prefixed = text.replace(/^(?=.)/gm, `[w${k}] `)
      said.log(prefixed)
      if (!quiet) process.stderr.write(prefixed)
    }
  })
  // With --redis the workers' windows reach the page's chart at the end, merged (without, each came as it closed).
  if (link) for (const w of result.windows ?? []) said.window(w)
  if (!quiet) process.stderr.write(`ioswarm simulate ${options.id}: ${result.workers?.note}\n`)
  // The workers' windows, merged (each worker's own came with its result).
  if (!quiet) for (const w of result.windows ?? []) process.stderr.write(`ioswarm simulate ${options.id}: ${formatWindowLine(w)}\n`)
  // A worker whose result is missing is said even with --quiet: its counts are not in the merge.
  for (const w of result.workers?.list ?? []) {
    if (w.died) {
      process.stderr.write(`ioswarm simulate: worker ${w.id} (pid ${w.pid}) ended without its result (${w.died}); ` +
        `its ${w.messagesBeforeDeath ?? 0} closed messages are merged, its clients and samples are not counted\n`)
    }
  }
  return result
}
