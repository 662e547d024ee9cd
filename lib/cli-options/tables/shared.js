/**
 * Options that `simulate` shares with `run` and other commands: the collector (--redis, --run),
 * live metrics (--metrics-port, --otlp), the dashboard and output (--json, --quiet). A table of its own so that
 * a simulator reads its options without loading the other commands' tables (lib/cli-options/
 * simulator.js), so a process loads only what it uses; run.js lists them among its own, in this order.
 */
import { invalidOption } from '../../errors.js'
import { parseDurationMs, parseHttpUrl, parseInteger } from '../../values/parsers.js'
import { defineOptions } from '../define.js'

export const COLLECTOR_OPTIONS = defineOptions([
  {
    name: 'redis',
    group: 'Processes and scale',
    type: 'string',
    secret: true,
    commands: ['simulate', 'run', 'serve', 'broadcast', 'probe', 'fleet up', 'fleet status'],
    required: ['probe', 'fleet up', 'fleet status'],
    describe: {
      simulate: 'Report to this Redis (redis://, rediss://); needs --run',
      run: 'Collect results in this Redis (else in memory here)',
      serve: 'Redis URL (or IOSWARM_REDIS): for the redis adapters, and with --run for reporting samples',
      broadcast: 'Redis URL for --via redis-emitter and for --run (or IOSWARM_REDIS)',
      probe: 'Redis URL of the collector (or IOSWARM_REDIS)',
      'fleet up': 'Redis URL the simulators report to, as the hosts reach it',
      'fleet status': 'Redis URL of the run'
    },
    details: {
      simulate: 'Report to the collector in this Redis (redis://[user:password@]host:port, rediss:// for TLS); needs --run',
      run: 'Collector in Redis (or IOSWARM_REDIS); without it, results are collected in memory here'
    }
  },
  {
    name: 'run',
    group: 'Processes and scale',
    type: 'string',
    commands: ['simulate', 'run', 'serve', 'broadcast', 'probe', 'fleet up', 'fleet status'],
    required: ['probe', 'fleet up', 'fleet status'],
    describe: {
      simulate: 'Run id to join, with --redis',
      run: 'Run id (default: run-<date>-<random>); simulators elsewhere join with --run',
      serve: 'Run id (or IOSWARM_RUN): report a sample a second per process to the collector in --redis',
      broadcast: 'With --redis: after each round, wait for the simulators of this run to report it and print the round\'s results',
      probe: 'Run id the samples belong to (or IOSWARM_RUN)',
      'fleet up': 'Run id the simulators join (the runner waits for it: ioswarm run --run ID --expect-simulators N)',
      'fleet status': 'Run id'
    },
    details: { simulate: 'Run id to join (the same for every simulator of one test; with --redis)' }
  }
])

export const METRICS_OPTIONS = defineOptions([
  {
    name: 'metrics-port',
    group: 'Live metrics',
    type: 'string',
    commands: ['run', 'simulate', 'serve'],
    describe: {
      run: 'Serve the run\'s live Prometheus metrics at :PORT/metrics',
      simulate: 'Serve live Prometheus metrics on this port at /metrics (0 = a free port; --workers: all of them)',
      serve: 'Serve this server\'s live Prometheus metrics on this port at /metrics (0 = a free port; not with --cluster)'
    },
    details: {
      run: 'Serve live Prometheus metrics of the whole run (all simulators merged) on this port at /metrics (0 = a free port, logged)',
      simulate: 'Serve this simulator\'s live Prometheus metrics on this port at /metrics (0 = a free port, printed); with --workers the parent serves every worker\'s (one series per worker); for pm2 fleets scraped per host',
      serve: 'Serve this server\'s live Prometheus metrics (connected by transport, broadcasts and emits, CPU, memory, event-loop delay) on this port at /metrics (0 = a free port, printed; not with --cluster)'
    },
    parse: (v, flag) => (v === undefined || v === null || v === '' ? null : parseInteger(v, flag, { min: 0, max: 65535 }))
  },
  {
    name: 'metrics-host',
    group: 'Live metrics',
    type: 'string',
    default: '127.0.0.1',
    commands: ['run', 'simulate', 'serve'],
    describe: 'Address --metrics-port binds',
    details: 'Address the --metrics-port server binds (0.0.0.0 for a Prometheus on another host)'
  }
])

/** The live dashboard of run, capacity and simulate (and report's playback). */
export const DASHBOARD_OPTIONS = defineOptions([
  {
    name: 'dashboard',
    type: 'string',
    optionalValue: true,
    group: 'Live metrics',
    commands: ['run', 'capacity', 'simulate', 'report'],
    describe: {
      run: 'Watch and steer the run in a browser: serve a live dashboard on this port (none or 0: a free one), URL printed',
      simulate: 'Watch and steer the swarm in a browser: serve a live dashboard on this port (none or 0: a free one), URL printed',
      capacity: 'Watch and steer the search in a browser: serve a live dashboard on this port (none or 0: a free one), URL printed',
      report: 'Play an events.ndjson back into the live dashboard page on this port (none or 0: a free one), until Ctrl-C'
    },
    details: 'The page shows each second\'s merged figures (clients, delivery, emits, health, breakdowns) pushed by Server-Sent Events, and steers ' +
      'the run with the token of the printed URL (stop, clients, emit rate; a page without it cannot act). The events are also written to ' +
      'events.ndjson beside result.json (run, capacity); `ioswarm report events.ndjson --dashboard` plays them back. See docs/dashboard.md.',
    parse: (v, flag) => parseDashboardPort(v, flag)
  },
  {
    name: 'dashboard-host',
    type: 'string',
    default: '127.0.0.1',
    group: 'Live metrics',
    commands: ['run', 'capacity', 'simulate', 'report'],
    describe: 'Address the --dashboard page binds (0.0.0.0: other hosts can see it, and steer with the token; warned)'
  }
])

/**
 * --dashboard: null when not given, 0 (a free port) when given without a port.
 * @param {unknown} v
 * @param {string} flag
 */
export function parseDashboardPort (v, flag) {
  if (v === undefined || v === null || v === false) return null
  if (v === '' || v === true) return 0
  return parseInteger(v, flag, { min: 0, max: 65535 })
}

export const OTLP_OPTIONS = defineOptions([
  {
    name: 'otlp',
    group: 'Live metrics',
    type: 'string',
    commands: ['run', 'simulate', 'serve'],
    describe: 'Also push the metrics over OTLP/HTTP to this endpoint',
    details: 'Also push the same metrics as --metrics-port over OTLP/HTTP (JSON) to this OpenTelemetry endpoint, such as http://collector:4318 (/v1/metrics is added to a URL without a path); headers such as an API key from OTEL_EXPORTER_OTLP_HEADERS',
    parse: (v, flag) => (v === undefined || v === null || v === '' ? null : parseOtlpUrl(v, flag))
  },
  {
    name: 'otlp-interval',
    group: 'Live metrics',
    type: 'string',
    default: '10s',
    commands: ['run', 'simulate', 'serve'],
    describe: 'How often --otlp pushes',
    details: 'How often --otlp pushes (and once more when the command ends)',
    parse: (v, flag) => {
      const ms = parseDurationMs(v, flag)
      if (ms < 100) throw invalidOption(flag, `must be at least 100ms, got ${JSON.stringify(v)}`)
      return ms
    }
  }
])

export const OUTPUT_OPTIONS = defineOptions([
  {
    name: 'json',
    group: 'Output and CI',
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
    group: 'Output and CI',
    alias: 'q',
    type: 'boolean',
    default: false,
    commands: ['simulate', 'run', 'broadcast', 'probe', 'capacity'],
    describe: {
      simulate: 'No progress or summary on stderr',
      run: 'No progress on stderr',
      broadcast: 'Print nothing on stderr',
      probe: 'Print nothing on stderr but errors',
      capacity: 'No progress on stderr (the answer is still printed)'
    },
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
