/**
 * What `ioswarm fleet` runs where, as data: each step is one ssh command per host, built
 * from plain argv arrays and quoted once per shell it crosses. Running a plan and printing
 * it (--dry-run) use the same commands, so the dry run is exactly what would run.
 */
import path from 'node:path'
import { displayQuote, shellJoin } from './quote.js'
import { sshDestination } from './hosts.js'

/** pm2 app names and namespace, as declared in infra/ecosystem.config.cjs. */
const PM2_APPS = Object.freeze({ sim: 'ioswarm-sim', server: 'ioswarm-server' })
const PM2_NAMESPACE = 'ioswarm'
/** pm2 installed on a host that has none (the major version the ecosystem file is tested with). */
const PM2_SPEC = 'pm2@7'
/** The ecosystem file inside the installed package. */
const ECOSYSTEM_PATH = 'infra/ecosystem.config.cjs'

/**
 * @typedef {import('./hosts.js').FleetHost} FleetHost
 * @typedef {{ host: FleetHost, argv: string[], shown?: string[], stdinFile?: string }} HostCommand argv runs (with stdinFile as its stdin); shown (when secrets were masked) is printed
 * @typedef {{ name: string, commands: HostCommand[] }} Step
 * @typedef {{ ssh?: string, connectTimeoutS?: number, sshOptions?: string[] }} SshOptions
 */

/**
 * The ssh argv that runs `remoteCommand` (one shell command string) on a host.
 * BatchMode: never prompt (a prompt would hang one host of a parallel run);
 * ServerAlive*: a host that vanishes mid-command fails after ~30 s instead of hanging.
 * @param {FleetHost} host
 * @param {string} remoteCommand
 * @param {SshOptions} [options]
 */
export function sshArgv (host, remoteCommand, { ssh = 'ssh', connectTimeoutS = 10, sshOptions = [] } = {}) {
  return [
    ssh, '-o', 'BatchMode=yes', '-o', `ConnectTimeout=${connectTimeoutS}`,
    '-o', 'ServerAliveInterval=10', '-o', 'ServerAliveCountMax=3',
    ...sshOptions,
    ...(host.port === null ? [] : ['-p', String(host.port)]),
    // `--` ends ssh's options: nothing after it is read as one.
    '--', sshDestination(host), remoteCommand
  ]
}

/**
 * The remote command that installs (or updates) ioswarm, and pm2 when the host has none.
 * @param {string} spec npm spec: ioswarm@0.1.0, a git URL or a tarball URL / path on the host
 */
export function installCommand (spec) {
  const npmInstall = ['npm', 'install', '--global', '--no-audit', '--no-fund']
  return `${shellJoin([...npmInstall, spec])} && { command -v pm2 >/dev/null 2>&1 || ${shellJoin([...npmInstall, PM2_SPEC])}; }`
}

/**
 * The remote command that (re)starts ioswarm's pm2 apps with the given environment.
 * A running app of the same name is deleted first (its simulators flush their final
 * reports on pm2's SIGINT), so a new run never inherits the last run's settings.
 * @param {('sim' | 'server')[]} apps
 * @param {Record<string, string>} env IOSWARM_* read by the ecosystem file
 */
export function startCommand (apps, env) {
  const names = apps.map((app) => PM2_APPS[app])
  const assignments = Object.entries(env).map(([key, value]) => `${key}=${value}`)
  return [
    'cd "$(npm root --global)/ioswarm"',
    `{ ${shellJoin(['pm2', 'delete', ...names])} >/dev/null 2>&1 || true; }`,
    shellJoin(['env', ...assignments, 'pm2', 'start', ECOSYSTEM_PATH, '--only', names.join(',')])
  ].join(' && ')
}

/** The remote command that stops and removes every ioswarm pm2 app (simulators flush first). */
export function downCommand () {
  return shellJoin(['pm2', 'delete', PM2_NAMESPACE])
}

/**
 * A simulator id prefix per host, unique in the fleet: host[-port], made id-safe.
 * @param {FleetHost[]} hosts
 * @returns {string[]}
 */
export function idPrefixes (hosts) {
  // An id may hold A-Z a-z 0-9 . _ - (results/README.md); `::1` becomes `1`, never `-1`.
  const prefixes = hosts.map((h) => `${h.host}${h.port === null ? '' : `-${h.port}`}`)
    .map((name) => name.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[-.]+/, '').slice(0, 100) || 'host')
  return prefixes.map((p, i) => (prefixes.indexOf(p) === i && prefixes.lastIndexOf(p) === i ? p : `${p}-${i + 1}`))
}

/**
 * The plan of `fleet up`: install on every host, then start its apps.
 * @param {FleetHost[]} hosts
 * @param {{ install: string, tarball?: string, files?: { local: string, remote: string }[], apps: ('sim' | 'server')[], env: Record<string, string>, shownEnv?: Record<string, string> } & SshOptions} options
 *   tarball: a local package file, copied to each host first (over the same ssh) and installed from there;
 *   files: the simulators' own files (--feeder, --scenario), copied to each host where env says they are;
 *   shownEnv: env as printed by --dry-run (passwords masked); default env
 * @returns {Step[]}
 */
export function planUp (hosts, options) {
  const prefixes = idPrefixes(hosts)
  // The fleet's simulators are the parts of one swarm (simulate --part K/N, simulator/processes/partition.js):
  // host i's are parts i × simulators on, so client indices ({{i}}, feeder rows) and --emitters are the whole's.
  const perHost = Number(options.env.IOSWARM_SIMULATORS ?? 1)
  const parts = { IOSWARM_PARTS: String(hosts.length * perHost) }
  const start = (/** @type {Record<string, string>} */ env, /** @type {number} */ i) =>
    sshArgv(hosts[i], startCommand(options.apps, { IOSWARM_PART_BASE: String(i * perHost), ...parts, ...env, IOSWARM_ID_PREFIX: prefixes[i] }), options)
  /** @param {string} remote */
  const copyTo = (remote) => shellJoin(['sh', '-c', `mkdir -p ${shellJoin([path.posix.dirname(remote)])} && cat > ${shellJoin([remote])}`])
  const copy = options.tarball === undefined
    ? []
    : [{
        name: 'copy',
        commands: hosts.map((host) => ({ host, argv: sshArgv(host, shellJoin(['sh', '-c', `cat > ${options.install}`]), options), stdinFile: options.tarball }))
      }]
  const files = (options.files ?? []).map((file) => ({
    name: 'files',
    commands: hosts.map((host) => ({ host, argv: sshArgv(host, copyTo(file.remote), options), stdinFile: file.local }))
  }))
  return [
    ...copy,
    ...files,
    { name: 'install', commands: hosts.map((host) => ({ host, argv: sshArgv(host, installCommand(options.install), options) })) },
    {
      name: 'start',
      commands: hosts.map((host, i) => ({
        host,
        argv: start(options.env, i),
        ...(options.shownEnv ? { shown: start(options.shownEnv, i) } : {})
      }))
    }
  ]
}

/**
 * The plan of `fleet exec -- CMD…`: the argv runs on every host, each word quoted for the remote shell.
 * @param {FleetHost[]} hosts
 * @param {string[]} command
 * @param {SshOptions} [options]
 * @returns {Step[]}
 */
export function planExec (hosts, command, options = {}) {
  const remote = shellJoin(command)
  return [{ name: 'exec', commands: hosts.map((host) => ({ host, argv: sshArgv(host, remote, options) })) }]
}

/**
 * The plan of `fleet down`.
 * @param {FleetHost[]} hosts
 * @param {SshOptions} [options]
 * @returns {Step[]}
 */
export function planDown (hosts, options = {}) {
  return [{ name: 'down', commands: hosts.map((host) => ({ host, argv: sshArgv(host, downCommand(), options) })) }]
}

/**
 * The --dry-run text: one line per host and command, `label: <command>`, the command quoted
 * for a local shell (passwords and tokens masked where the plan says so).
 * @param {Step[]} steps
 */
export function formatPlan (steps) {
  return steps.flatMap((step) => step.commands.map(({ host, argv, shown, stdinFile }) =>
    `${host.label}: ${shellJoin(shown ?? argv, displayQuote)}${stdinFile ? ` < ${displayQuote(stdinFile)}` : ''}`)).join('\n')
}
