/**
 * Options of `ioswarm run` (a whole test) that are not simulator options, and those it
 * shares with other commands (token; the collector, live metrics and output, whose rows
 * shared.js holds for `simulate` too). Its simulators' options are the simulator's own
 * (passOn in simulate.js).
 */
import { invalidOption } from '../../errors.js'
import { parseDurationMs, parseInteger, parseRounds } from '../../values/parsers.js'
import { MAX_CLIENTS } from '../../values/option-values.js'
import { defineOptions } from '../define.js'
import { COLLECTOR_OPTIONS, DASHBOARD_OPTIONS, METRICS_OPTIONS, OTLP_OPTIONS, OUTPUT_OPTIONS } from './shared.js'

/** The 2012 election-night test: 10 messages 5 s apart, then 10 at 2 s, then 10 at 1 s. */
export const DEFAULT_ROUNDS = '10x5000,10x2000,10x1000'

/**
 * @param {unknown} v
 * @param {string} flag
 */
const optionalClients = (v, flag) => (v === undefined || v === null ? null : parseInteger(v, flag, { min: 1, max: MAX_CLIENTS }))

/**
 * @param {unknown} v
 * @param {string} flag
 */
function optionalPositiveMs (v, flag) {
  if (v === undefined || v === null) return null
  const ms = parseDurationMs(v, flag)
  if (ms <= 0) throw invalidOption(flag, `must be more than 0, got ${JSON.stringify(v)}`)
  return ms
}

export const RUN_OPTIONS = defineOptions([
  // --clients is the whole swarm on every command; these spell a run's swarm either way without doubt.
  {
    name: 'total-clients',
    group: 'Old and new meanings',
    type: 'string',
    commands: ['run', 'fleet up'],
    describe: 'Clients in all, split over the simulators: what --clients means (never refused)',
    details: 'Clients in all, split over the simulators (the one partition of simulate --workers; a fleet\'s evenly over its hosts × --simulators): what --clients means ' +
      'on every command. Until the next minor version, run and fleet up refuse a bare --clients with more than one simulator (there it was read per simulator before); ' +
      'this spelling is never refused',
    parse: optionalClients
  },
  {
    name: 'clients-per-simulator',
    group: 'Old and new meanings',
    type: 'string',
    commands: ['run', 'fleet up'],
    describe: 'Clients of each simulator: the simulators × this in all (what --clients meant before on run and fleet up)',
    parse: optionalClients
  },
  {
    name: 'hold',
    group: 'Old and new meanings',
    to: 'holdMs',
    type: 'string',
    commands: ['run'],
    describe: 'Without rounds: hold the clients this long after the ramp, then stop (what run\'s --duration meant before)',
    parse: optionalPositiveMs
  },
  {
    name: 'total-duration',
    group: 'Old and new meanings',
    to: 'totalDurationMs',
    type: 'string',
    commands: ['run'],
    describe: 'Without rounds: the whole run, the ramp included (what --duration means; never refused)',
    details: 'Without rounds: stop this long after the simulators start, the ramp included: what --duration means on every command. ' +
      'Until the next minor version, run refuses a bare --duration unless --ramp 0 (it meant the hold after the ramp before); this spelling is never refused',
    parse: optionalPositiveMs
  },
  {
    name: 'simulators',
    group: 'Processes and scale',
    alias: 's',
    type: 'string',
    default: 2,
    commands: ['run', 'fleet up', 'capacity'],
    describe: {
      run: 'Simulator processes started on this machine',
      'fleet up': 'Simulator processes per host',
      capacity: 'Simulator processes on this machine'
    },
    details: { capacity: 'Simulator processes started on this machine; each step\'s clients are spread over them' },
    parse: (v, flag) => parseInteger(v, flag, { min: 0, max: 1000 })
  },
  {
    name: 'distributions',
    group: 'Processes and scale',
    alias: 'd',
    type: 'string',
    commands: ['run'],
    describe: 'Layouts to run in turn, SIMULATORSxCLIENTS: 10x1000,20x500',
    details: 'Several layouts run one after another, SIMULATORSxCLIENTS: 10x1000,20x500 (overrides --simulators/--clients)'
  },
  {
    name: 'rounds',
    group: 'Traffic',
    alias: 'r',
    type: 'string',
    default: DEFAULT_ROUNDS,
    commands: ['run', 'broadcast'],
    describe: {
      run: 'Broadcast rounds COUNTxINTERVAL_MS,… (default: the 2012 test), or none: the clients\' own traffic',
      broadcast: 'Rounds as COUNTxINTERVAL_MS,…: the default is the 2012 test: 10 messages 5 s apart, then 10 at 2 s, then 10 at 1 s'
    },
    details: {
      run: 'Broadcast rounds COUNTxINTERVAL_MS,… (default: the 2012 test), or none: no broadcaster; the load is the clients\' own --emit/--scenario traffic and ' +
        'whatever the app sends by itself, measured in --window windows for --duration. With --target and no --token, none is the default'
    },
    // none: [] (run only; broadcast refuses it).
    parse: (v, flag) => (String(v).trim() === 'none' ? [] : parseRounds(v, flag))
  },
  {
    name: 'ping-interval',
    group: 'Reference server',
    type: 'string',
    default: '25s',
    commands: ['run', 'serve', 'capacity'],
    describe: {
      run: 'pingInterval of the reference server this starts',
      serve: 'Engine.IO pingInterval (simulators ramp over it)',
      capacity: 'pingInterval of the reference server this starts (the default --ramp)'
    },
    parse: (v, flag) => parseDurationMs(v, flag)
  },
  {
    name: 'restart-server-at',
    group: 'Reference server',
    type: 'string',
    array: true,
    commands: ['run'],
    describe: 'Restart the reference server this long after the start (repeatable: 30s 90s): a deploy mid-test',
    details: 'Restart the reference server this long after the run starts (repeatable: 30s 90s), on the same port: a deploy in the middle of the test. The rounds go on; every simulator measures the reconnect storm',
    parse: (v, flag) => [v ?? []].flat().map((t) => parseDurationMs(t, flag))
  },
  {
    name: 'restart-signal',
    group: 'Reference server',
    type: 'string',
    default: 'TERM',
    choices: ['TERM', 'KILL'],
    commands: ['run'],
    describe: 'How --restart-server-at stops the server: TERM (as a deploy does) or KILL (a crash)',
    details: 'How --restart-server-at stops the server: TERM (it closes its connections, as a deploy does) or KILL (a crash: no goodbye, clients notice by their ping timeout or a failed poll)'
  },
  {
    name: 'target',
    group: 'Target',
    type: 'string',
    commands: ['run', 'capacity', 'record'],
    describe: {
      run: 'Test this server instead of the reference server',
      capacity: 'Test this server instead of the reference server',
      record: 'The app the recording proxy forwards to: http://host:port or https://host'
    },
    details: {
      run: 'Test this server instead of starting the reference server (needs --token)',
      capacity: 'Test this server instead of starting the reference server (needs --token)',
      record: 'The app the recording proxy (--proxy) forwards to: an http:// or https:// URL; the browser\'s paths are sent to it as they come'
    }
  },
  {
    name: 'token',
    group: 'Target',
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
    group: 'Traffic',
    type: 'string',
    default: 0,
    commands: ['run', 'broadcast', 'capacity'],
    describe: { run: 'Payload bytes per message', broadcast: 'Payload filler size in bytes', capacity: 'Payload bytes per message' },
    parse: (v, flag) => parseInteger(v, flag, { min: 0, max: 10 * 1024 * 1024 })
  },
  {
    name: 'via',
    group: 'Traffic',
    type: 'string',
    default: 'http',
    choices: ['http', 'socket', 'redis-emitter'],
    commands: ['run', 'broadcast', 'capacity'],
    describe: {
      run: 'How broadcasts are triggered: POST /broadcast (http) or an emit on the admin namespace (socket)',
      broadcast: 'POST /broadcast (http), an emit on the admin namespace, or @socket.io/redis-emitter (needs --redis)',
      capacity: 'How broadcasts are triggered: POST /broadcast (http) or an emit on the admin namespace (socket)'
    },
    details: {
      broadcast: 'POST /broadcast, an emit on the admin namespace, or @socket.io/redis-emitter straight into the Redis of any server on the Redis adapter (needs --redis, no token)'
    }
  },
  ...COLLECTOR_OPTIONS,
  {
    name: 'expect-simulators',
    group: 'Processes and scale',
    type: 'string',
    default: 0,
    commands: ['run'],
    describe: 'Simulators that join through Redis to wait for',
    details: 'Also wait for this many simulators that join the run through Redis',
    parse: (v, flag) => parseInteger(v, flag, { min: 0, max: 10000 })
  },
  {
    name: 'name',
    group: 'Output and CI',
    type: 'string',
    commands: ['run', 'capacity'],
    describe: 'A name for the run, shown in reports'
  },
  {
    name: 'out',
    group: 'Output and CI',
    alias: 'o',
    type: 'string',
    commands: ['run', 'report', 'capacity', 'record'],
    required: ['record'],
    describe: {
      run: 'Directory for result.json, CSVs and report.html (default: ioswarm-results/<run id>)',
      record: 'The scenario module to write (.mjs), or a .json --config of a plain WebSocket recording: written whole or not at all',
      report: 'HTML file to write [default: report.html, or compare.html, next to the first result]',
      capacity: 'Directory for result.json, steps.csv and report.html (default: ioswarm-results/<id>)'
    }
  },
  {
    name: 'connect-timeout',
    group: 'Clients and ramp',
    type: 'string',
    default: '60s',
    commands: ['run', 'capacity'],
    describe: 'Wait this long past the ramp for clients',
    details: 'How long past the ramp to wait for clients before broadcasting anyway',
    parse: (v, flag) => parseDurationMs(v, flag)
  },
  {
    name: 'assert',
    group: 'Output and CI',
    type: 'string',
    array: true,
    commands: ['run', 'report'],
    describe: {
      run: 'Threshold (repeatable): p99<500ms, missing=0, connected>=99%',
      report: 'a threshold such as p99<500ms, repeatable; exit 3 when one fails (metrics below)'
    },
    details: {
      run: 'Threshold, several allowed: p99<500ms, missing=0, connected>=99%, sim.loopDelayP99<50ms, misdelivered=0, ack.p99<200ms (exit 3 if one fails; metrics below)'
    }
  },
  ...METRICS_OPTIONS,
  {
    name: 'metrics-linger',
    group: 'Live metrics',
    type: 'string',
    default: '0s',
    commands: ['run'],
    describe: 'Serve --metrics-port this long after the run',
    details: 'Keep serving --metrics-port this long after the run, so a Prometheus scraping every N seconds sees the final values (give at least its scrape_interval)',
    parse: (v, flag) => parseDurationMs(v, flag)
  },
  ...DASHBOARD_OPTIONS,
  ...OTLP_OPTIONS,
  ...OUTPUT_OPTIONS
])
