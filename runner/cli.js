/**
 * `ioswarm run`: one command for a whole test.
 */
import { access, mkdir } from 'node:fs/promises'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { progressWriter, stopOnSignals } from '../lib/cli-run.js'
import { EXIT, invalidOption } from '../lib/errors.js'
import { DEFAULT_EVENT } from '../lib/protocol.js'
import { DEFAULT_ROUNDS } from '../broadcaster/index.js'
import { formatRunSummary, formatThresholds, thresholdHelp } from '../results/index.js'
import { ENGINE_NAMES, WS_CLIENT_NAMES } from '../simulator/index.js'
import { runTest } from './index.js'
import { newRunId, parseMetricsLinger } from './options.js'
import { writeRunFiles } from './output.js'

/** @type {import('yargs').CommandModule<{}, any>} */
export const runCommand = {
  command: 'run',
  describe: 'Run a whole test: server (or --target), simulators, broadcast rounds, results and report',
  builder: (y) => y
    .usage('$0 run [options]\n\nStarts the reference server (or uses --target), starts --simulators processes of --clients each (or each of --distributions in turn), waits for the clients over the ramp, broadcasts --rounds, collects every simulator\'s measurements, and writes result.json, messages.csv, samples.csv, reasons.csv and report.html to --out.')
    .option('simulators', { alias: 's', type: 'string', default: '2', describe: 'Simulator processes started on this machine' })
    .option('clients', { alias: 'c', type: 'string', default: '100', describe: 'Clients per simulator' })
    .option('distributions', { alias: 'd', type: 'string', describe: 'Several layouts run one after another, SIMULATORSxCLIENTS: 10x1000,20x500 (overrides --simulators/--clients)' })
    .option('rounds', { alias: 'r', type: 'string', default: DEFAULT_ROUNDS, describe: 'Broadcast rounds COUNTxINTERVAL_MS,… (default: the 2012 test)' })
    .option('transport', { alias: 't', type: 'string', default: 'websocket', describe: 'websocket, polling, upgrade, or a mix: websocket:70,polling:30' })
    .option('engine', { type: 'string', default: 'sio', choices: ENGINE_NAMES, describe: 'Client implementation of the simulators' })
    .option('ws-client', { type: 'string', choices: WS_CLIENT_NAMES, describe: 'WebSocket client of --engine lean simulators: ws (default, the ws library) or builtin (ioswarm\'s own, ws:// only, cheaper per frame; see `ioswarm simulate --help`)' })
    .option('parser', { type: 'string', default: 'json', choices: ['json', 'msgpack'], describe: 'Socket.IO encoding of the simulators; must match the server\'s' })
    .option('ramp', { type: 'string', describe: 'Spread connects over this window (default: the server\'s pingInterval)' })
    .option('ping-interval', { type: 'string', default: '25s', describe: 'pingInterval of the reference server this starts' })
    .option('target', { type: 'string', describe: 'Test this server instead of starting the reference server (needs --token)' })
    .option('token', { type: 'string', describe: 'Broadcast token of --target (or IOSWARM_TOKEN)' })
    .option('size', { type: 'string', default: '0', describe: 'Payload bytes per message' })
    .option('max-payload', { type: 'string', describe: 'The simulators\' payload limit (simulate --max-payload): 1MB, 10MB, 1MiB (default: 1MB, or two messages of --size when that is more); simulators joining through Redis set their own' })
    .option('event', { type: 'string', default: DEFAULT_EVENT, describe: 'Broadcast event' })
    .option('via', { type: 'string', default: 'http', choices: ['http', 'socket'], describe: 'How broadcasts are triggered' })
    .option('redis', { type: 'string', describe: 'Collector in Redis (or IOSWARM_REDIS); without it, results are collected in memory here' })
    .option('run', { type: 'string', describe: 'Run id (default: run-<date>-<random>); simulators elsewhere join with --run' })
    .option('expect-simulators', { type: 'string', default: '0', describe: 'Also wait for this many simulators that join the run through Redis' })
    .option('name', { type: 'string', describe: 'A name for the run, shown in reports' })
    .option('out', { alias: 'o', type: 'string', describe: 'Directory for result.json, CSVs and report.html (default: ioswarm-results/<run id>)' })
    .option('message-timeout', { type: 'string', default: '10s', describe: 'How long a message may take to reach every client' })
    .option('connect-timeout', { type: 'string', default: '60s', describe: 'How long past the ramp to wait for clients before broadcasting anyway' })
    .option('assert', { type: 'string', array: true, describe: 'Threshold, several allowed: p99<500ms, missing=0, connected>=99%, sim.loopDelayP99<50ms (exit 3 if one fails)' })
    .option('metrics-port', { type: 'string', describe: 'Serve live Prometheus metrics of the whole run (all simulators merged) on this port at /metrics (0 = a free port, logged)' })
    .option('metrics-host', { type: 'string', default: '127.0.0.1', describe: 'Address the --metrics-port server binds (0.0.0.0 for a Prometheus on another host)' })
    .option('metrics-linger', { type: 'string', default: '0s', describe: 'Keep serving --metrics-port this long after the run, so a Prometheus scraping every N seconds sees the final values (give at least its scrape_interval)' })
    .option('json', { type: 'boolean', default: false, describe: 'Print result.json on stdout as well' })
    .option('quiet', { alias: 'q', type: 'boolean', default: false, describe: 'No progress on stderr' })
    .example('$0 run --distributions 2x500,4x250 --rounds 5x1000,5x500', 'compare two layouts of 1,000 clients')
    .example('$0 run --target https://app.example --token $T --redis redis://10.0.0.5 --simulators 0 --expect-simulators 20', 'a fleet test')
    .epilog(thresholdHelp()),
  handler: async (argv) => {
    const runId = argv.run ?? newRunId()
    const out = path.resolve(argv.out ?? path.join('ioswarm-results', runId))
    try {
      await mkdir(out, { recursive: true })
      await access(out, 2)
    } catch (error) {
      throw invalidOption('--out', `cannot be written (${/** @type {Error} */ (error).message}); nothing was started`)
    }
    const progress = progressWriter({ quiet: argv.quiet, everyMs: 5000 })
    const stop = stopOnSignals('ioswarm run')
    let result
    try {
      result = await runTest({ ...argv, run: runId }, {
        signal: stop.signal,
        log: (line) => {
          progress.done()
          if (!argv.quiet) process.stderr.write(`${line}\n`)
        },
        status: (line) => progress.update(line),
        metricsLinger: (url) => lingerMetrics(url, argv.metricsLinger, stop.signal)
      })
    } finally {
      progress.done()
      stop.dispose()
    }
    const files = await writeRunFiles(out, result)
    process.stderr.write(`\n${formatRunSummary(result)}\n`)
    if (result.thresholds) process.stderr.write(`\n${formatThresholds(result.thresholds)}\n`)
    process.stderr.write(`\nresults: ${files.result}\nreport:  ${files.report}\n`)
    if (argv.json) process.stdout.write(`${JSON.stringify(result)}\n`)
    process.exitCode = result.thresholds?.some((t) => !t.ok) ? EXIT.THRESHOLD : EXIT.OK
  }
}

/**
 * Waits --metrics-linger (or until Ctrl-C) while the metrics server still answers.
 * @param {string} url
 * @param {unknown} value
 * @param {AbortSignal} signal
 */
async function lingerMetrics (url, value, signal) {
  const ms = parseMetricsLinger(value)
  if (ms === 0) return
  process.stderr.write(`metrics: serving ${url} for ${Math.round(ms / 1000)} s more (--metrics-linger)\n`)
  await sleep(ms, undefined, { signal }).catch(() => {})
}
