/**
 * Options of `ioswarm run` (a whole test) that are not simulator options, and those it
 * shares with other commands (collector, token, output). Its simulators' options are the
 * simulator's own (passOn in simulate.js).
 */
import { invalidOption } from '../errors.js'
import { parseDurationMs, parseHttpUrl, parseInteger, parseRounds } from '../options.js'
import { defineOptions } from './define.js'

/** The 2012 election-night test: 10 messages 5 s apart, then 10 at 2 s, then 10 at 1 s. */
export const DEFAULT_ROUNDS = '10x5000,10x2000,10x1000'

export const RUN_OPTIONS = defineOptions([
  {
    name: 'simulators',
    alias: 's',
    type: 'string',
    default: 2,
    commands: ['run', 'fleet up', 'capacity'],
    describe: { run: 'Simulator processes started on this machine', 'fleet up': 'Simulator processes per host', capacity: 'Simulator processes started on this machine; each step\'s clients are spread over them' },
    parse: (v, flag) => parseInteger(v, flag, { min: 0, max: 1000 })
  },
  {
    name: 'distributions',
    alias: 'd',
    type: 'string',
    commands: ['run'],
    describe: 'Several layouts run one after another, SIMULATORSxCLIENTS: 10x1000,20x500 (overrides --simulators/--clients)'
  },
  {
    name: 'rounds',
    alias: 'r',
    type: 'string',
    default: DEFAULT_ROUNDS,
    commands: ['run', 'broadcast'],
    describe: {
      run: 'Broadcast rounds COUNTxINTERVAL_MS,… (default: the 2012 test), or none: no broadcaster; the load is the clients\' own --emit/--scenario traffic and ' +
        'whatever the app sends by itself, measured in --window windows for --duration. With --target and no --token, none is the default',
      broadcast: 'Rounds as COUNTxINTERVAL_MS,…: the default is the 2012 test: 10 messages 5 s apart, then 10 at 2 s, then 10 at 1 s'
    },
    // none: [] (run only; broadcast refuses it).
    parse: (v, flag) => (String(v).trim() === 'none' ? [] : parseRounds(v, flag))
  },
  {
    name: 'ping-interval',
    type: 'string',
    default: '25s',
    commands: ['run', 'serve', 'capacity'],
    describe: { run: 'pingInterval of the reference server this starts', serve: 'Engine.IO pingInterval (simulators ramp over it)', capacity: 'pingInterval of the reference server this starts (the default --ramp)' },
    parse: (v, flag) => parseDurationMs(v, flag)
  },
  {
    name: 'restart-server-at',
    type: 'string',
    array: true,
    commands: ['run'],
    describe: 'Restart the reference server this long after the run starts (repeatable: 30s 90s), on the same port: a deploy in the middle of the test. The rounds go on; every simulator measures the reconnect storm',
    parse: (v, flag) => [v ?? []].flat().map((t) => parseDurationMs(t, flag))
  },
  {
    name: 'restart-signal',
    type: 'string',
    default: 'TERM',
    choices: ['TERM', 'KILL'],
    commands: ['run'],
    describe: 'How --restart-server-at stops the server: TERM (it closes its connections, as a deploy does) or KILL (a crash: no goodbye, clients notice by their ping timeout or a failed poll)'
  },
  {
    name: 'target',
    type: 'string',
    commands: ['run', 'capacity'],
    describe: 'Test this server instead of starting the reference server (needs --token)'
  },
  {
    name: 'token',
    type: 'string',
    secret: true,
    commands: ['run', 'serve', 'broadcast', 'fleet up', 'capacity'],
    describe: {
      run: 'Broadcast token of --target (or IOSWARM_TOKEN)',
      serve: 'Broadcast token (or IOSWARM_TOKEN); generated and printed once when missing',
      broadcast: 'Broadcast token (or IOSWARM_TOKEN)',
      'fleet up': 'Broadcast token of the reference server app (--apps server; or IOSWARM_TOKEN)',
      capacity: 'Broadcast token of --target (or IOSWARM_TOKEN)'
    }
  },
  {
    name: 'size',
    type: 'string',
    default: 0,
    commands: ['run', 'broadcast', 'capacity'],
    describe: { run: 'Payload bytes per message', broadcast: 'Payload filler size in bytes', capacity: 'Payload bytes per message' },
    parse: (v, flag) => parseInteger(v, flag, { min: 0, max: 10 * 1024 * 1024 })
  },
  {
    name: 'via',
    type: 'string',
    default: 'http',
    choices: ['http', 'socket', 'redis-emitter'],
    commands: ['run', 'broadcast', 'capacity'],
    describe: {
      run: 'How broadcasts are triggered: POST /broadcast (http) or an emit on the admin namespace (socket)',
      broadcast: 'POST /broadcast, an emit on the admin namespace, or @socket.io/redis-emitter straight into the Redis of any server on the Redis adapter (needs --redis, no token)',
      capacity: 'How broadcasts are triggered: POST /broadcast (http) or an emit on the admin namespace (socket)'
    }
  },
  {
    name: 'redis',
    type: 'string',
    secret: true,
    commands: ['simulate', 'run', 'serve', 'broadcast', 'probe', 'fleet up', 'fleet status'],
    required: ['probe', 'fleet up', 'fleet status'],
    describe: {
      simulate: 'Report to the collector in this Redis (redis://[user:password@]host:port, rediss:// for TLS); needs --run',
      run: 'Collector in Redis (or IOSWARM_REDIS); without it, results are collected in memory here',
      serve: 'Redis URL (or IOSWARM_REDIS): for the redis adapters, and with --run for reporting samples',
      broadcast: 'Redis URL for --via redis-emitter and for --run (or IOSWARM_REDIS)',
      probe: 'Redis URL of the collector (or IOSWARM_REDIS)',
      'fleet up': 'Redis URL the simulators report to, as the hosts reach it',
      'fleet status': 'Redis URL of the run'
    }
  },
  {
    name: 'run',
    type: 'string',
    commands: ['simulate', 'run', 'serve', 'broadcast', 'probe', 'fleet up', 'fleet status'],
    required: ['probe', 'fleet up', 'fleet status'],
    describe: {
      simulate: 'Run id to join (the same for every simulator of one test; with --redis)',
      run: 'Run id (default: run-<date>-<random>); simulators elsewhere join with --run',
      serve: 'Run id (or IOSWARM_RUN): report a sample a second per process to the collector in --redis',
      broadcast: 'With --redis: after each round, wait for the simulators of this run to report it and print the round\'s results',
      probe: 'Run id the samples belong to (or IOSWARM_RUN)',
      'fleet up': 'Run id the simulators join (the runner waits for it: ioswarm run --run ID --expect-simulators N)',
      'fleet status': 'Run id'
    }
  },
  {
    name: 'expect-simulators',
    type: 'string',
    default: 0,
    commands: ['run'],
    describe: 'Also wait for this many simulators that join the run through Redis',
    parse: (v, flag) => parseInteger(v, flag, { min: 0, max: 10000 })
  },
  {
    name: 'name',
    type: 'string',
    commands: ['run', 'capacity'],
    describe: 'A name for the run, shown in reports'
  },
  {
    name: 'out',
    alias: 'o',
    type: 'string',
    commands: ['run', 'report', 'capacity'],
    describe: {
      run: 'Directory for result.json, CSVs and report.html (default: ioswarm-results/<run id>)',
      report: 'HTML file to write [default: report.html, or compare.html, next to the first result]',
      capacity: 'Directory for result.json, steps.csv and report.html (default: ioswarm-results/<id>)'
    }
  },
  {
    name: 'connect-timeout',
    type: 'string',
    default: '60s',
    commands: ['run', 'capacity'],
    describe: 'How long past the ramp to wait for clients before broadcasting anyway',
    parse: (v, flag) => parseDurationMs(v, flag)
  },
  {
    name: 'assert',
    type: 'string',
    array: true,
    commands: ['run', 'report'],
    describe: {
      run: 'Threshold, several allowed: p99<500ms, missing=0, connected>=99%, sim.loopDelayP99<50ms, misdelivered=0, ack.p99<200ms (exit 3 if one fails; metrics below)',
      report: 'a threshold such as p99<500ms, repeatable; exit 3 when one fails (metrics below)'
    }
  },
  {
    name: 'metrics-port',
    type: 'string',
    commands: ['run', 'simulate', 'serve'],
    describe: {
      run: 'Serve live Prometheus metrics of the whole run (all simulators merged) on this port at /metrics (0 = a free port, logged)',
      simulate: 'Serve this simulator\'s live Prometheus metrics on this port at /metrics (0 = a free port, printed); with --workers the parent serves every worker\'s (one series per worker); for pm2 fleets scraped per host',
      serve: 'Serve this server\'s live Prometheus metrics (connected by transport, broadcasts and emits, CPU, memory, event-loop delay) on this port at /metrics (0 = a free port, printed; not with --cluster)'
    },
    parse: (v, flag) => (v === undefined || v === null || v === '' ? null : parseInteger(v, flag, { min: 0, max: 65535 }))
  },
  {
    name: 'metrics-host',
    type: 'string',
    default: '127.0.0.1',
    commands: ['run', 'simulate', 'serve'],
    describe: 'Address the --metrics-port server binds (0.0.0.0 for a Prometheus on another host)'
  },
  {
    name: 'metrics-linger',
    type: 'string',
    default: '0s',
    commands: ['run'],
    describe: 'Keep serving --metrics-port this long after the run, so a Prometheus scraping every N seconds sees the final values (give at least its scrape_interval)',
    parse: (v, flag) => parseDurationMs(v, flag)
  },
  {
    name: 'otlp',
    type: 'string',
    commands: ['run', 'simulate', 'serve'],
    describe: 'Also push the same metrics as --metrics-port over OTLP/HTTP (JSON) to this OpenTelemetry endpoint, such as http://collector:4318 (/v1/metrics is added to a URL without a path); headers such as an API key from OTEL_EXPORTER_OTLP_HEADERS',
    parse: (v, flag) => (v === undefined || v === null || v === '' ? null : parseOtlpUrl(v, flag))
  },
  {
    name: 'otlp-interval',
    type: 'string',
    default: '10s',
    commands: ['run', 'simulate', 'serve'],
    describe: 'How often --otlp pushes (and once more when the command ends)',
    parse: (v, flag) => {
      const ms = parseDurationMs(v, flag)
      if (ms < 100) throw invalidOption(flag, `must be at least 100ms, got ${JSON.stringify(v)}`)
      return ms
    }
  },
  {
    name: 'json',
    type: 'boolean',
    default: false,
    commands: ['simulate', 'run', 'serve', 'broadcast', 'report', 'fleet status', 'capacity'],
    describe: {
      simulate: 'Print the result as one JSON object on stdout',
      run: 'Print result.json on stdout as well',
      serve: 'Print {"url", "port", "pid", "workers"} as one JSON line on stdout once listening',
      broadcast: 'Print the messages sent as one JSON object on stdout',
      report: 'also print the summary and verdicts as JSON to stdout',
      'fleet status': 'Print the status as JSON on stdout',
      capacity: 'Print result.json on stdout as well'
    },
    parse: Boolean
  },
  {
    name: 'quiet',
    alias: 'q',
    type: 'boolean',
    default: false,
    commands: ['simulate', 'run', 'broadcast', 'probe', 'capacity'],
    describe: { simulate: 'No progress or summary on stderr', run: 'No progress on stderr', broadcast: 'Print nothing on stderr', probe: 'Print nothing on stderr but errors', capacity: 'No progress on stderr (the answer is still printed)' },
    parse: Boolean
  }
])

/**
 * --otlp: an http(s) URL; a URL without a path gets OTLP/HTTP's metrics path /v1/metrics.
 * @param {unknown} value
 * @param {string} flag
 */
export function parseOtlpUrl (value, flag) {
  const url = new URL(parseHttpUrl(value, flag))
  if (url.pathname === '/' || url.pathname === '') url.pathname = '/v1/metrics'
  return url.href
}
