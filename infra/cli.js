/**
 * `ioswarm fleet up|exec|status|down`: pm2 on every host of a hosts file, driven over plain
 * ssh (no agent of our own), like the 2012 rig's `bees up` / `bees exec` / `bees down`.
 */
import { execFile } from 'node:child_process'
import { mkdtemp } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { EXIT, invalidOption } from '../lib/errors.js'
import { VERSION } from '../lib/version.js'
import { stopOnSignals } from '../lib/cli-run.js'
import { declareOptions, envNameOf, fleetSimulatorOptions, keyOf, parseOptions } from '../lib/cli-options/index.js'
import { COMMAND_LINES } from '../lib/cli-options/commands.js'
import { parseHttpUrl, parseInteger, parseRunId } from '../lib/values/parsers.js'
import { redactUrl } from '../lib/redis.js'
import { normalizeSimOptions } from '../simulator/index.js'
import { CLIENT_SPELLINGS, spellingOf, twoClientReadings } from '../lib/input/swarm-spellings.js'
import { describeFailure, formatResult, runPlan, succeeded } from './fleet/exec.js'
import { parseHostsList, readHostsFile } from './fleet/hosts.js'
import { formatPlan, planDown, planExec, planUp } from './fleet/plan.js'
import { formatFleetStatus, readFleetStatus } from './fleet/status.js'

const execFileP = promisify(execFile)
/** This checkout: what `fleet up` packs for the hosts by default. */
const ROOT = fileURLToPath(new URL('..', import.meta.url))

/** @type {import('yargs').CommandModule<any, any>} */
const upCommand = {
  command: 'up',
  describe: 'Install or update ioswarm (and pm2) on every host and start its simulators under pm2',
  builder: (y) => declareOptions(y, 'fleet up')
    .conflicts('hosts-file', 'hosts')
    .example('$0 fleet up -f hosts.txt --url http://10.0.0.5:3000 --redis redis://10.0.0.5:6379 --run r1 --simulators 2 --total-clients 4000 --dry-run',
      'show the ssh and pm2 commands for every host'),
  handler: async (args) => {
    const argv = { ...args, ...parseOptions('fleet up', args) }
    const hosts = await resolveHosts(argv)
    const env = upEnv(args, hosts.length)
    const shownEnv = { ...env, IOSWARM_REDIS: redactUrl(env.IOSWARM_REDIS), ...(env.IOSWARM_TOKEN ? { IOSWARM_TOKEN: '***' } : {}) }
    const source = await packageSource(argv)
    const apps = /** @type {('sim' | 'server')[]} */ (String(argv.apps).split(','))
    const steps = planUp(hosts, { ...sshOptions(argv), ...source, files: upFiles(args), apps, env, shownEnv })
    await execute(steps, argv, `${hosts.length} hosts`)
  }
}

/** @type {import('yargs').CommandModule<any, any>} */
const execCommand = {
  command: 'exec',
  describe: 'Run a command on every host in parallel (ssh) and print the outputs prefixed by host',
  builder: (y) => declareOptions(y, 'fleet exec')
    .conflicts('hosts-file', 'hosts')
    .usage('$0 fleet exec [options] -- COMMAND [ARG…]\n\nEach word is quoted for the remote shell: a pipeline needs sh -c, as in\n  ioswarm fleet exec -f hosts.txt -- sh -c \'pm2 jlist | head -c 200\'')
    .parserConfiguration({ 'populate--': true }),
  handler: async (args) => {
    const argv = { ...args, ...parseOptions('fleet exec', args) }
    const command = /** @type {string[]} */ ([...argv._.slice(2), ...(args['--'] ?? [])]).map(String)
    if (command.length === 0) throw invalidOption('exec', 'needs a command after --, as in: ioswarm fleet exec -f hosts.txt -- uptime')
    const hosts = await resolveHosts(argv)
    await execute(planExec(hosts, command, sshOptions(argv)), argv, `${hosts.length} hosts`)
  }
}

/** @type {import('yargs').CommandModule<any, any>} */
const downCommand = {
  command: 'down',
  describe: 'Stop and remove ioswarm\'s pm2 apps on every host (simulators flush their final reports)',
  builder: (y) => declareOptions(y, 'fleet down').conflicts('hosts-file', 'hosts'),
  handler: async (args) => {
    const argv = { ...args, ...parseOptions('fleet down', args) }
    const hosts = await resolveHosts(argv)
    await execute(planDown(hosts, sshOptions(argv)), argv, `${hosts.length} hosts`)
  }
}

/** @type {import('yargs').CommandModule<any, any>} */
const statusCommand = {
  command: 'status',
  describe: 'Which simulators of a run are alive, finished or stale, by host (read from Redis)',
  builder: (y) => declareOptions(y, 'fleet status'),
  handler: async (argv) => {
    const status = await readFleetStatus({ redisUrl: argv.redis, runId: argv.run })
    process.stdout.write(argv.json ? `${JSON.stringify(status)}\n` : `${formatFleetStatus(status)}\n`)
  }
}

/** @type {import('yargs').CommandModule<{}, any>} */
export const fleetCommand = {
  ...COMMAND_LINES.fleet,
  builder: (y) => y
    .usage('$0 fleet <up|exec|status|down> [options]\n\nHosts come from a hosts file (-f) or --hosts. Every host needs Node >= 20.19, npm, and ssh access without a prompt (keys or an agent); see infra/README.md.')
    .command(upCommand).command(execCommand).command(statusCommand).command(downCommand)
    .demandCommand(1, 'Name a fleet command: up, exec, status, down.'),
  handler: () => {}
}

/** @param {Record<string, any>} argv */
async function resolveHosts (argv) {
  if (argv.hostsFile !== undefined) return readHostsFile(String(argv.hostsFile))
  if (argv.hosts !== undefined) return parseHostsList(String(argv.hosts))
  throw invalidOption('--hosts-file', 'or --hosts is required: which hosts to work on')
}

/** @param {Record<string, any>} argv */
function sshOptions (argv) {
  const connectTimeoutMs = argv.sshConnectTimeout
  if (connectTimeoutMs < 1000) throw invalidOption('--ssh-connect-timeout', `must be at least 1s, got ${connectTimeoutMs} ms`)
  const extra = /** @type {string[]} */ (argv.sshOption ?? []).map(String)
  const bad = extra.find((o) => !/^[A-Za-z]+=/.test(o))
  if (bad !== undefined) throw invalidOption('--ssh-option', `must be Name=value, as in StrictHostKeyChecking=accept-new, got ${JSON.stringify(bad)}`)
  return { ssh: String(argv.ssh), connectTimeoutS: Math.ceil(connectTimeoutMs / 1000), sshOptions: extra.flatMap((o) => ['-o', o]) }
}

/**
 * The ecosystem file's environment: every simulate option given to `fleet up`, as the
 * IOSWARM_<OPTION> variable the hosts' simulators read (derived from the one options table),
 * checked here by the simulator's own normaliser rather than on each host. --clients and
 * --max-clients are the whole fleet's, as on every command: each simulator gets its share.
 * @param {Record<string, any>} argv raw arguments
 * @param {number} [hostCount] the hosts the simulators start on
 * @returns {Record<string, string>}
 */
export function upEnv (argv, hostCount = 1) {
  const redis = String(argv.redis)
  if (!/^rediss?:\/\/./.test(redis)) throw invalidOption('--redis', `must be a redis:// or rediss:// URL, got ${JSON.stringify(redactUrl(redis))}`)
  // The same id is given to `ioswarm run --run`: the runner's rules.
  parseRunId(argv.run)
  const fleet = parseOptions('fleet up', argv)
  /** @type {Record<string, unknown>} */
  const given = {}
  for (const o of fleetSimulatorOptions()) {
    const value = argv[keyOf(o.name)]
    if (value === undefined) continue
    const values = [value].flat()
    if (values.length > 1 && !o.array) {
      const envName = `IOSWARM_${o.name.toUpperCase().replace(/-/g, '_')}`
      throw invalidOption(`--${o.name}`, `is given ${values.length} times; fleet up hands each host's simulators one value per option (${envName})`)
    }
    given[keyOf(o.name)] = o.array ? values : values[0]
  }
  Object.assign(given, simulatorShare(argv, fleet, hostCount))
  // Not checkLocal: --source-address names addresses of the hosts, not of this machine.
  normalizeSimOptions({ ...given, checkLocal: false })
  // The simulators' own files go to each host (planUp copies them): their variables name the copy there.
  for (const { name, remote } of upFiles(argv)) given[name] = remote
  /** @type {Record<string, string>} */
  const env = {
    IOSWARM_URL: parseHttpUrl([argv.url].flat()[0], '--url'),
    IOSWARM_REDIS: redis,
    IOSWARM_RUN: String(argv.run),
    IOSWARM_SIMULATORS: String(parseSimulatorsPerHost(fleet.simulators))
  }
  for (const o of fleetSimulatorOptions()) {
    const name = envNameOf(o)
    // Several values of an option (--header, --namespace) travel as one variable, a value per line.
    if (given[keyOf(o.name)] !== undefined && !(name in env)) env[name] = [given[keyOf(o.name)]].flat().map(String).join('\n')
  }
  if (argv.token) env.IOSWARM_TOKEN = String(argv.token)
  return env
}

/**
 * Each fleet simulator's clients and room (--max-clients), from the whole fleet's: the parts of
 * one swarm (simulate --part K/N) are equal, so a whole swarm must split evenly over them.
 * A bare --clients with more than one simulator in the fleet is refused with both readings.
 * @param {Record<string, any>} argv raw arguments
 * @param {Record<string, any>} fleet parsed values
 * @param {number} hostCount
 * @returns {{ clients?: number, maxClients?: number }}
 */
function simulatorShare (argv, fleet, hostCount) {
  const perHost = parseSimulatorsPerHost(fleet.simulators)
  const simulators = hostCount * perHost
  const layout = `${hostCount} host${hostCount === 1 ? '' : 's'} × --simulators ${perHost}`
  const flag = spellingOf(argv, CLIENT_SPELLINGS, 'how many clients the fleet runs')
  const room = fleet.maxClients === undefined ? {} : { maxClients: Math.ceil(fleet.maxClients / simulators) }
  if (flag === null) return room
  if (flag === '--clients-per-simulator') return { ...room, clients: fleet.clientsPerSimulator }
  if (flag === '--clients' && simulators > 1) throw twoClientReadings(fleet.clients, simulators, layout)
  const total = flag === '--clients' ? fleet.clients : fleet.totalClients
  if (total % simulators !== 0) {
    throw invalidOption(flag, `${total} does not split evenly over ${layout} = ${simulators} simulators, ` +
      `which each run the same clients (simulate --part K/N): give a multiple of ${simulators}, or --clients-per-simulator`)
  }
  return { ...room, clients: total / simulators }
}

/** The simulator options that name a file of the machine running `fleet up`. */
const FILE_OPTIONS = Object.freeze(['feeder', 'scenario'])

/**
 * The files `fleet up` copies to every host (--feeder, --scenario), and where: under
 * /tmp/ioswarm-<run>/ (an absolute path: pm2 starts the simulators in the package's folder).
 * @param {Record<string, any>} argv raw arguments
 * @returns {{ name: string, local: string, remote: string }[]}
 */
function upFiles (argv) {
  return FILE_OPTIONS.filter((name) => argv[name] !== undefined && argv[name] !== null && argv[name] !== '').map((name) => {
    const local = path.resolve(String([argv[name]].flat().at(-1)))
    return { name, local, remote: `/tmp/ioswarm-${argv.run}/${name}-${path.basename(local)}` }
  })
}

/**
 * @param {number} value
 */
function parseSimulatorsPerHost (value) {
  return parseInteger(value, '--simulators', { min: 1, max: 256 })
}

/**
 * What the hosts install: --from, or --ioswarm-version from the registry, or by default this
 * checkout, packed here (`npm pack`) and copied to each host over ssh; no version of ioswarm
 * is published to the npm registry yet. A dry run does not pack: it shows where it would.
 * @param {Record<string, any>} argv
 * @returns {Promise<{ install: string, tarball?: string }>}
 */
async function packageSource (argv) {
  if (argv.from) return { install: String(argv.from) }
  if (argv.ioswarmVersion) return { install: `ioswarm@${argv.ioswarmVersion}` }
  const remote = `/tmp/ioswarm-${VERSION}.tgz`
  if (argv.dryRun) return { install: remote, tarball: path.join(os.tmpdir(), 'ioswarm-fleet-…', `ioswarm-${VERSION}.tgz`) }
  const dir = await mkdtemp(path.join(os.tmpdir(), 'ioswarm-fleet-'))
  process.stderr.write(`ioswarm fleet up: packing this checkout (${ROOT}) for the hosts…\n`)
  await execFileP('npm', ['pack', '--pack-destination', dir], { cwd: ROOT, timeout: 300000 })
  return { install: remote, tarball: path.join(dir, `ioswarm-${VERSION}.tgz`) }
}

/**
 * Prints the plan (--dry-run) or runs it, printing each host's output as it finishes.
 * @param {import('./fleet/plan.js').Step[]} steps
 * @param {Record<string, any>} argv
 * @param {string} what
 */
async function execute (steps, argv, what) {
  const parallel = argv.parallel
  if (argv.dryRun) {
    process.stdout.write(`${formatPlan(steps)}\n`)
    return
  }
  const stop = stopOnSignals('ioswarm fleet')
  try {
    const results = await runPlan(steps, {
      parallel,
      signal: stop.signal,
      onResult: (result) => {
        const { stdout, stderr } = formatResult(result)
        process.stdout.write(stdout)
        process.stderr.write(stderr)
      }
    })
    const failed = results.filter((r) => !succeeded(r))
    const last = steps[steps.length - 1].name
    const ok = results.filter((r) => r.step === last && succeeded(r)).length
    const failures = failed.map((r) => `${r.host} (${r.step}: ${describeFailure(r)})`).join(', ')
    process.stderr.write(`ioswarm fleet ${last}: ${ok} of ${what} ok${failed.length ? `; failed: ${failures}` : ''}\n`)
    if (failed.length) process.exitCode = EXIT.RUNTIME
  } finally {
    stop.dispose()
  }
}
