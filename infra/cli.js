/**
 * `ioswarm fleet up|exec|status|down`: pm2 on every host of a hosts file, driven over plain
 * ssh (no agent of our own), like the 2012 rig's `bees up` / `bees exec` / `bees down`.
 */
import { EXIT, invalidOption } from '../lib/errors.js'
import { stopOnSignals } from '../lib/cli-run.js'
import { parseDurationMs, parseHttpUrl, parseInteger, parseTransportMix } from '../lib/options.js'
import { VERSION } from '../lib/version.js'
import { redactUrl } from '../results/collector/index.js'
import { parseEngine, parseRunId } from '../runner/options.js'
import { describeFailure, formatResult, runPlan, succeeded } from './fleet/exec.js'
import { parseHostsList, readHostsFile } from './fleet/hosts.js'
import { formatPlan, planDown, planExec, planUp } from './fleet/plan.js'
import { formatFleetStatus, readFleetStatus } from './fleet/status.js'

/** @param {import('yargs').Argv} y */
const hostOptions = (y) => y
  .option('hosts-file', { alias: 'f', type: 'string', describe: 'File of hosts: one [user@]host[:port] per line, # comments' })
  .option('hosts', { type: 'string', describe: 'Hosts, comma-separated: a,deploy@b,c:2222' })
  .option('ssh', { type: 'string', default: 'ssh', describe: 'ssh program to run (its config, keys and agent apply)' })
  .option('ssh-option', { alias: 'o', type: 'string', array: true, describe: 'Extra ssh -o option, repeatable: -o StrictHostKeyChecking=accept-new' })
  .option('connect-timeout', { type: 'string', default: '10s', describe: 'ssh ConnectTimeout per host' })
  .option('parallel', { type: 'string', default: '32', describe: 'Hosts worked on at once' })
  .option('dry-run', { type: 'boolean', default: false, describe: 'Print what would run where (one line per host and command) and run nothing' })
  .conflicts('hosts-file', 'hosts')

/** @type {import('yargs').CommandModule<any, any>} */
const upCommand = {
  command: 'up',
  describe: 'Install or update ioswarm (and pm2) on every host and start its simulators under pm2',
  builder: (y) => hostOptions(y)
    .option('url', { alias: 'u', type: 'string', demandOption: true, describe: 'Server under test, as the hosts reach it' })
    .option('redis', { type: 'string', demandOption: true, describe: 'Redis URL the simulators report to, as the hosts reach it' })
    .option('run', { type: 'string', demandOption: true, describe: 'Run id the simulators join (the runner waits for it: ioswarm run --run ID --expect-simulators N)' })
    .option('simulators', { type: 'string', default: '1', describe: 'Simulator processes per host' })
    .option('clients', { alias: 'c', type: 'string', default: '100', describe: 'Clients per simulator' })
    .option('transport', { alias: 't', type: 'string', default: 'websocket', describe: 'Transport or mix, as for simulate' })
    .option('engine', { type: 'string', default: 'sio', describe: 'Client engine, as for simulate' })
    .option('apps', { type: 'string', default: 'sim', choices: ['sim', 'server', 'sim,server'], describe: 'pm2 apps to start: simulators, the reference server, or both' })
    .option('token', { type: 'string', describe: 'Broadcast token of the reference server app (--apps server; or IOSWARM_TOKEN)' })
    .option('ioswarm-version', { type: 'string', default: VERSION, describe: 'ioswarm version to npm install on the hosts' })
    .option('from', { type: 'string', describe: 'Install from this npm spec instead: a git URL or a tarball URL / path on the hosts' })
    .example('$0 fleet up -f hosts.txt --url http://10.0.0.5:3000 --redis redis://10.0.0.5:6379 --run r1 --simulators 2 -c 500 --dry-run', 'show the ssh and pm2 commands for every host'),
  handler: async (argv) => {
    const hosts = await resolveHosts(argv)
    const env = upEnv(argv)
    const shownEnv = { ...env, IOSWARM_REDIS: redactUrl(env.IOSWARM_REDIS), ...(env.IOSWARM_TOKEN ? { IOSWARM_TOKEN: '***' } : {}) }
    const steps = planUp(hosts, { ...sshOptions(argv), install: argv.from ?? `ioswarm@${argv.ioswarmVersion}`, apps: argv.apps.split(','), env, shownEnv })
    await execute(steps, argv, `${hosts.length} hosts`)
  }
}

/** @type {import('yargs').CommandModule<any, any>} */
const execCommand = {
  command: 'exec',
  describe: 'Run a command on every host in parallel (ssh) and print the outputs prefixed by host',
  builder: (y) => hostOptions(y)
    .usage('$0 fleet exec [options] -- COMMAND [ARG…]\n\nEach word is quoted for the remote shell: a pipeline needs sh -c, as in\n  ioswarm fleet exec -f hosts.txt -- sh -c \'pm2 jlist | head -c 200\'')
    .parserConfiguration({ 'populate--': true }),
  handler: async (argv) => {
    const command = /** @type {string[]} */ ([...argv._.slice(2), ...(argv['--'] ?? [])]).map(String)
    if (command.length === 0) throw invalidOption('exec', 'needs a command after --, as in: ioswarm fleet exec -f hosts.txt -- uptime')
    const hosts = await resolveHosts(argv)
    await execute(planExec(hosts, command, sshOptions(argv)), argv, `${hosts.length} hosts`)
  }
}

/** @type {import('yargs').CommandModule<any, any>} */
const downCommand = {
  command: 'down',
  describe: 'Stop and remove ioswarm\'s pm2 apps on every host (simulators flush their final reports)',
  builder: hostOptions,
  handler: async (argv) => {
    const hosts = await resolveHosts(argv)
    await execute(planDown(hosts, sshOptions(argv)), argv, `${hosts.length} hosts`)
  }
}

/** @type {import('yargs').CommandModule<any, any>} */
const statusCommand = {
  command: 'status',
  describe: 'Which simulators of a run are alive, finished or stale, by host (read from Redis)',
  builder: (y) => y
    .option('redis', { type: 'string', demandOption: true, describe: 'Redis URL of the run' })
    .option('run', { type: 'string', demandOption: true, describe: 'Run id' })
    .option('json', { type: 'boolean', default: false, describe: 'Print the status as JSON on stdout' }),
  handler: async (argv) => {
    const status = await readFleetStatus({ redisUrl: argv.redis, runId: argv.run })
    process.stdout.write(argv.json ? `${JSON.stringify(status)}\n` : `${formatFleetStatus(status)}\n`)
  }
}

/** @type {import('yargs').CommandModule<{}, any>} */
export const fleetCommand = {
  command: 'fleet',
  describe: 'Simulators on many hosts: pm2 on each, driven over ssh (up, exec, status, down)',
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
  const connectTimeoutMs = parseDurationMs(argv.connectTimeout, '--connect-timeout')
  if (connectTimeoutMs < 1000) throw invalidOption('--connect-timeout', `must be at least 1s, got ${JSON.stringify(argv.connectTimeout)}`)
  const extra = /** @type {string[]} */ (argv.sshOption ?? []).map(String)
  const bad = extra.find((o) => !/^[A-Za-z]+=/.test(o))
  if (bad !== undefined) throw invalidOption('--ssh-option', `must be Name=value, as in StrictHostKeyChecking=accept-new, got ${JSON.stringify(bad)}`)
  return { ssh: String(argv.ssh), connectTimeoutS: Math.ceil(connectTimeoutMs / 1000), sshOptions: extra.flatMap((o) => ['-o', o]) }
}

/**
 * The ecosystem file's environment, every value checked here rather than on each host.
 * @param {Record<string, any>} argv
 */
function upEnv (argv) {
  parseTransportMix(argv.transport)
  const redis = String(argv.redis)
  if (!/^rediss?:\/\/./.test(redis)) throw invalidOption('--redis', `must be a redis:// or rediss:// URL, got ${JSON.stringify(redactUrl(redis))}`)
  // The same id is given to `ioswarm run --run`: the runner's rules.
  const run = parseRunId(argv.run)
  return {
    IOSWARM_URL: parseHttpUrl(argv.url, '--url'),
    IOSWARM_REDIS: redis,
    IOSWARM_RUN: run,
    IOSWARM_SIMULATORS: String(parseInteger(argv.simulators, '--simulators', { min: 1, max: 256 })),
    IOSWARM_CLIENTS: String(parseInteger(argv.clients, '--clients', { min: 1, max: 1_000_000 })),
    IOSWARM_TRANSPORT: String(argv.transport),
    IOSWARM_ENGINE: parseEngine(argv.engine),
    ...(argv.token ? { IOSWARM_TOKEN: String(argv.token) } : {})
  }
}

/**
 * Prints the plan (--dry-run) or runs it, printing each host's output as it finishes.
 * @param {import('./fleet/plan.js').Step[]} steps
 * @param {Record<string, any>} argv
 * @param {string} what
 */
async function execute (steps, argv, what) {
  const parallel = parseInteger(argv.parallel, '--parallel', { min: 1, max: 1000 })
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
    process.stderr.write(`ioswarm fleet ${last}: ${ok} of ${what} ok${failed.length ? `; failed: ${failed.map((r) => `${r.host} (${r.step}: ${describeFailure(r)})`).join(', ')}` : ''}\n`)
    if (failed.length) process.exitCode = EXIT.RUNTIME
  } finally {
    stop.dispose()
  }
}
