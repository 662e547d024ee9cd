/**
 * pm2 apps for one host of an ioswarm fleet (.cjs: pm2 require()s its config, and this
 * package is "type": "module").
 *
 *   IOSWARM_URL=http://10.0.0.5:3000 IOSWARM_REDIS=redis://10.0.0.5:6379 IOSWARM_RUN=r1 \
 *   IOSWARM_SIMULATORS=2 IOSWARM_CLIENTS=500 pm2 start infra/ecosystem.config.cjs --only ioswarm-sim
 *
 * starts this host's share of a run: IOSWARM_SIMULATORS simulator processes, each an
 * `ioswarm simulate` given every other IOSWARM_<OPTION> variable (IOSWARM_CLIENTS clients,
 * IOSWARM_TRANSPORT, IOSWARM_ENGINE, … any simulate option), which register in Redis and join run IOSWARM_RUN, where the
 * runner (`ioswarm run --redis … --run r1 --simulators 0 --expect-simulators N`) finds them.
 * `pm2 stop` / `pm2 delete` sends SIGINT, on which every simulator flushes its final report.
 * Variables are read when pm2 loads this file; infra/README.md lists them all.
 */
'use strict'
const os = require('node:os')
const path = require('node:path')

const env = process.env

/**
 * A whole number from the environment, or a clear error (pm2 prints it and starts nothing).
 * @param {string} name
 * @param {number} fallback
 * @param {number} max
 */
function count (name, fallback, max) {
  const text = env[name] ?? String(fallback)
  const n = /^\d+$/.test(text) ? Number(text) : NaN
  if (!(n >= 1 && n <= max)) throw new Error(`${name} must be a whole number from 1 to ${max}, got ${JSON.stringify(text)}`)
  return n
}

/** Settings of this file, not options of `ioswarm simulate`. */
// The metrics port is a base: each instance gets its own (bin/pm2-entry.js).
const OWN = new Set([
  'IOSWARM_SIMULATORS', 'IOSWARM_ID_PREFIX', 'IOSWARM_PORT', 'IOSWARM_HOST', 'IOSWARM_TOKEN', 'IOSWARM_METRICS_PORT', 'IOSWARM_METRICS_HOST'
])

/**
 * Every other IOSWARM_* variable, for the simulators: `ioswarm simulate` reads its options
 * from IOSWARM_<OPTION> (lib/cli-options is the one table of them; bin/pm2-entry.js keeps only
 * the variables of the command it runs), so a new simulator option needs nothing here.
 */
function simulateEnv () {
  return Object.fromEntries(Object.entries(env).filter(([name, value]) => name.startsWith('IOSWARM_') && !OWN.has(name) && value !== undefined && value !== ''))
}

const entry = path.join(__dirname, '..', 'bin', 'pm2-entry.js')

const simulator = {
  name: 'ioswarm-sim',
  namespace: 'ioswarm',
  script: entry,
  // Fork mode: each simulator is its own process with its own clients and its own id
  // (bin/pm2-entry.js adds --id <prefix>-<NODE_APP_INSTANCE>); nothing is shared between them.
  exec_mode: 'fork',
  instances: count('IOSWARM_SIMULATORS', 1, 256),
  args: ['simulate', '--quiet'],
  // Options as the simulator's own variables: out of `ps` (the Redis URL may hold a password).
  env: {
    ...simulateEnv(),
    IOSWARM_ID_PREFIX: env.IOSWARM_ID_PREFIX || os.hostname(),
    // Instance i serves its metrics on base + i (bin/pm2-entry.js): one port per process.
    ...(env.IOSWARM_METRICS_PORT
      ? { IOSWARM_METRICS_PORT_BASE: String(count('IOSWARM_METRICS_PORT', 9464, 65535)), IOSWARM_METRICS_HOST_BIND: env.IOSWARM_METRICS_HOST || '0.0.0.0' }
      : {})
  },
  // pm2 stop sends SIGINT, then SIGKILL after kill_timeout: the simulator needs that long to
  // close its clients, wait out open messages and write its final report (retried while
  // Redis is unreachable). 30 s covers a message timeout of 10 s and a Redis hiccup.
  kill_timeout: 30000,
  // A simulator that ended (its --duration, or the runner's stop) must stay ended: a restart
  // would join the run again as the same id. A crash is reported by pm2, not hidden.
  autorestart: false,
  merge_logs: true,
  time: true
}

const server = {
  name: 'ioswarm-server',
  namespace: 'ioswarm',
  script: entry,
  // Fork mode, one process, not pm2's cluster mode: long-polling clients need every request
  // of a session to reach the same process (sticky sessions), and pm2's cluster mode shares
  // one port round-robin with no affinity, so polling handshakes would fail and the run would
  // measure those failures. The reference server's own `--cluster` (Node cluster with
  // @socket.io/sticky) is the way to use several cores.
  exec_mode: 'fork',
  instances: 1,
  args: [
    'serve', '--port', String(count('IOSWARM_PORT', 3000, 65535)), ...(env.IOSWARM_HOST ? ['--host', env.IOSWARM_HOST] : []),
    // The server's metrics one port below the simulators' first (IOSWARM_METRICS_PORT - 1).
    ...(env.IOSWARM_METRICS_PORT
      ? ['--metrics-port', String(count('IOSWARM_METRICS_PORT', 9464, 65535) - 1), '--metrics-host', env.IOSWARM_METRICS_HOST || '0.0.0.0']
      : [])
  ],
  env: env.IOSWARM_TOKEN ? { IOSWARM_TOKEN: env.IOSWARM_TOKEN } : {},
  kill_timeout: 10000,
  autorestart: true,
  merge_logs: true,
  time: true
}

module.exports = { apps: [simulator, server] }
