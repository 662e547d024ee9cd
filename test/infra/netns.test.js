/**
 * A fleet on one machine: network namespaces as hosts (infra/netns-hosts.sh). The server in
 * iosw-h1, two simulators of 200 clients in each of iosw-h2, iosw-h3 and iosw-h4 (h4's under
 * pm2, from the ecosystem file), Redis on the bridge, the runner in the root namespace.
 * Then iosw-h3's link is cut mid-run and restored.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFile, spawn, spawnSync } from 'node:child_process'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { createRedisCollector } from '../../results/collector/index.js'
import { closedPort } from '../helpers/ports.js'
import { hasRedisServer } from '../helpers/redis.js'
import { waitFor } from '../helpers/wait.js'
import { pm2Home, ROOT } from './fixtures/pm2-home.js'

const run = promisify(execFile)
const SCRIPT = join(ROOT, 'infra', 'netns-hosts.sh')
const SERVER = 'http://10.213.0.11:3000'
const TOKEN = 'netns-token'
const CLIENTS = 200

/**
 * Why this machine cannot run the test, or null. Under CI=true (root, iproute2) a reason fails it.
 * @returns {string | null}
 */
function missing () {
  if (process.platform !== 'linux') return 'network namespaces need Linux'
  if (process.getuid?.() !== 0) return 'needs root (network namespaces, links)'
  if (spawnSync('ip', ['netns', 'list']).status !== 0) return '`ip netns` is unavailable (install iproute2)'
  return null
}

/**
 * A process the test started (by pid, inside a namespace when netns is given); killed after.
 * @param {{ pids: Set<import('node:child_process').ChildProcess> }} tracked
 * @param {string | null} netns
 * @param {string[]} args arguments of bin/ioswarm.js
 */
function startIn (tracked, netns, args) {
  const argv = [process.execPath, join(ROOT, 'bin', 'ioswarm.js'), ...args]
  // `ip netns exec` execs the command: the pid is the node process itself.
  const [file, ...rest] = netns ? ['ip', 'netns', 'exec', netns, ...argv] : argv
  const child = spawn(file, rest, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] })
  tracked.pids.add(child)
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (d) => { stdout += d })
  child.stderr.on('data', (d) => { stderr += d })
  const exited = new Promise((resolve) => child.on('close', (code) => resolve(code)))
  return { child, exited, stdout: () => stdout, stderr: () => stderr }
}

/**
 * Stops the test's processes (SIGTERM, SIGKILL after 3 s), then removes every namespace.
 * @param {{ pids: Set<import('node:child_process').ChildProcess> }} tracked
 * @param {Record<string, string>} env
 */
async function cleanUp (tracked, env) {
  const alive = [...tracked.pids].filter((c) => c.exitCode === null && c.signalCode === null)
  for (const child of alive) child.kill('SIGTERM')
  await Promise.race([
    Promise.all(alive.map((c) => new Promise((resolve) => c.once('close', resolve)))),
    new Promise((resolve) => setTimeout(resolve, 3000).unref())
  ])
  for (const child of alive) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  await run(SCRIPT, ['down'], { env })
}

/**
 * Whether this machine can run a netns test: namespaces can be made and redis-server exists.
 * Else the test is skipped loudly (failed under CI=true).
 * @param {import('node:test').TestContext} t
 */
function canRun (t) {
  const reason = missing()
  if (reason) {
    if (process.env.CI === 'true') throw new Error(`NETNS TEST FAILED under CI=true: ${reason}`)
    t.diagnostic(`NETNS TEST SKIPPED: ${reason}`)
    t.skip(reason)
    return false
  }
  return hasRedisServer(t, 'no redis-server on PATH (the netns test starts its own on the bridge)')
}

test('3 hosts × 2 simulators × 200 clients join one run; ' +
  'a cut host goes stale, the others stay whole, its spooled reports arrive', { timeout: 120000 }, async (t) => {
  if (!canRun(t)) return
  const dir = await mkdtemp(join(tmpdir(), 'ioswarm-netns-'))
  const env = { ...process.env, IOSW_NETNS_STATE: join(dir, 'state') }
  const pm2 = await pm2Home(t)
  const tracked = { pids: new Set() }
  /** @type {import('../../results/collector/types.js').Collector | null} */
  let collector = null
  t.after(async () => {
    // Before `down` stops Redis: a client of a vanished Redis would keep reconnecting.
    await collector?.close()
    await cleanUp(tracked, env)
    await rm(dir, { recursive: true, force: true })
  })

  // The script's redis-server listens on the test bridge's own address (10.213.0.1), which nothing else binds: a port
  // nobody listens on anywhere (ports.js) can be taken only by a wildcard listener started in between.
  const redisPort = await closedPort()
  const up = await run(SCRIPT, ['up', '4', '--redis-port', String(redisPort)], { env })
  assert.match(up.stdout, /^iosw-h4 10\.213\.0\.14 iosw-v4$/m)
  const redisUrl = `redis://10.213.0.1:${redisPort}`
  const runId = `netns-${Date.now()}`
  collector = await createRedisCollector({ redisUrl })

  const server = startIn(tracked, 'iosw-h1', ['serve', '--host', '10.213.0.11', '--port', '3000', '--token', TOKEN])
  await waitFor(() => server.stderr().includes('listening on'), { timeoutMs: 15000, message: () => `the server in iosw-h1 (${server.stderr()})` })
  const out = join(dir, 'out')
  const runner = startIn(tracked, null, ['run', '--target', SERVER, '--token', TOKEN, '--redis', redisUrl, '--run', runId,
    '--simulators', '0', '--expect-simulators', '6', '--rounds', '2x500,2x2000,1x500', '--ramp', '0', '--message-timeout', '4s', '--out', out])

  // The runner first: it waits for the six simulators while they start.
  const simArgs = (/** @type {string} */ id) => [
    'simulate', '-q', '-c', String(CLIENTS), '--url', SERVER, '--ramp', '0', '--redis', redisUrl, '--run', runId, '--id',
    id
  ]
  for (const host of ['h2', 'h3']) for (const i of [0, 1]) startIn(tracked, `iosw-${host}`, simArgs(`${host}-${i}`))
  await pm2.run(['start', 'infra/ecosystem.config.cjs', '--only', 'ioswarm-sim'], {
    netns: 'iosw-h4',
    env: {
      IOSWARM_URL: SERVER,
      IOSWARM_REDIS: redisUrl,
      IOSWARM_RUN: runId,
      IOSWARM_SIMULATORS: '2',
      IOSWARM_CLIENTS: String(CLIENTS),
      IOSWARM_RAMP: '0',
      IOSWARM_ID_PREFIX: 'h4'
    }
  })

  const runnerSaid = (/** @type {RegExp} */ pattern) =>
    waitFor(() => pattern.test(runner.stderr()) || runner.child.exitCode !== null, {
      timeoutMs: 60000,
      message: () => `${pattern} from the runner:\n${runner.stderr()}`
    })

  // Round 1 reached every client of every host.
  await runnerSaid(/round 1: /)
  assert.match(runner.stderr(), /round 1: 2 messages × 6 simulators, reached 2400, missing 0/)

  // Cut host 3 while round 2 is broadcast. Round 2 (4 s) ends once host 3 is stale (5 s heartbeat
  // TTL), and the link comes back then: an outage of ~5 s, before TCP's retransmission backoff
  // (0.2, 0.6, 1.4, 3, 6.2 s…) grows long, so host 3 catches up within a few seconds.
  await run('ip', ['link', 'set', 'iosw-v3', 'down'])
  const cutAt = Date.now()
  const stale = await waitFor(async () => {
    const sims = await collector.listSimulators(runId)
    return sims.filter((s) => s.id.startsWith('h3-')).every((s) => s.stale) ? sims : null
  }, { timeoutMs: 20000, message: 'the simulators of the cut host to go stale' })
  assert.ok(stale)
  assert.deepEqual(stale.map((s) => [s.id, s.alive]), [['h2-0', true], ['h2-1', true], ['h3-0', false], ['h3-1', false], ['h4-0', true], ['h4-1', true]])

  // The other hosts' round 2 is whole: every message, every one of their clients.
  await runnerSaid(/round 2: /)
  const round2 = (await collector.getMessages(runId)).filter((m) => m.round === 2)
  assert.deepEqual(round2.map((m) => [m.id, m.simulators, m.received, m.missing]), [['2.1', 4, 800, 0], ['2.2', 4, 800, 0]])
  const samplesBefore = (await collector.getSamples(runId)).timeline.filter((p) => p.simulator === 'h3-0' && p.t > cutAt + 1000).length

  await run('ip', ['link', 'set', 'iosw-v3', 'up'])
  const restoredAt = Date.now()
  // What host 3 measured while cut off reaches Redis once the link is back.
  await waitFor(async () => {
    const timeline = (await collector.getSamples(runId)).timeline
    return ['h3-0', 'h3-1'].every((id) => timeline.some((p) => p.simulator === id && p.t > cutAt + 1000 && p.t < restoredAt - 500))
  }, { timeoutMs: 30000, intervalMs: 250, message: 'the samples host 3 spooled during the cut' })
  assert.equal(samplesBefore, 0, 'nothing from host 3 arrived while it was cut off')

  const code = await runner.exited
  assert.equal(code, 0, runner.stderr())
  // In the end every round reached every client: host 3's round-2 messages arrived late,
  // once TCP retransmitted them, and its reports of them were spooled until Redis was back.
  const result = JSON.parse(await readFile(join(out, 'result.json'), 'utf8'))
  const reached = result.distributions[0].messages.map((/** @type {any} */ m) => [m.id, m.simulators, m.received, m.missing])
  assert.deepEqual(reached, [['1.1', 6, 1200, 0], ['1.2', 6, 1200, 0], ['2.1', 6, 1200, 0], ['2.2', 6, 1200, 0], ['3.1', 6, 1200, 0]],
    `what the runner said:\n${runner.stderr()}`)
  assert.deepEqual(
    result.distributions[0].simulatorList.map((/** @type {any} */ s) => [s.id, s.stale]),
    [['h2-0', false], ['h2-1', false], ['h3-0', false], ['h3-1', false], ['h4-0', false], ['h4-1', false]]
  )
})

test('one simulator host with 4 source addresses opens 500 clients to ONE server address:port ' +
  'whose ip_local_port_range allows 200 per address; all connected, all receive', { timeout: 90000 }, async (t) => {
  if (!canRun(t)) return
  const dir = await mkdtemp(join(tmpdir(), 'ioswarm-netns-src-'))
  const env = { ...process.env, IOSW_NETNS_STATE: join(dir, 'state') }
  const tracked = { pids: new Set() }
  t.after(async () => {
    await cleanUp(tracked, env)
    await rm(dir, { recursive: true, force: true })
  })
  // iosw-h1: the server, one address (10.213.0.11). iosw-h2: the simulator host, 10.213.0.12
  // plus three more, and 200 ephemeral ports (the sysctl is per namespace).
  // The script's redis-server listens on the test bridge's own address (10.213.0.1), which nothing else binds: a port
  // nobody listens on anywhere (ports.js) can be taken only by a wildcard listener started in between.
  const redisPort = await closedPort()
  await run(SCRIPT, ['up', '2', '--redis-port', String(redisPort)], { env })
  for (const n of [101, 102, 103]) await run('ip', ['-n', 'iosw-h2', 'addr', 'add', `10.213.0.${n}/24`, 'dev', 'iosw-p2'])
  await run('ip', ['netns', 'exec', 'iosw-h2', 'sysctl', '-q', '-w', 'net.ipv4.ip_local_port_range=40000 40199'])
  const server = startIn(tracked, 'iosw-h1', ['serve', '--host', '10.213.0.11', '--port', '3000', '--token', TOKEN])
  await waitFor(() => server.stderr().includes('listening on'), { timeoutMs: 15000, message: () => `the server in iosw-h1 (${server.stderr()})` })
  const base = ['simulate', '-c', '500', '--engine', 'lean', '--url', SERVER, '--ramp', '2s']

  // One source address: the preflight refuses 500 clients over 200 ports, and says what to add.
  const alone = startIn(tracked, 'iosw-h2', base)
  assert.equal(await alone.exited, 2, alone.stderr())
  assert.match(
    alone.stderr(),
    new RegExp(/ephemeral ports per \(source address, destination\) over 1 source address\(es\) and 1 destination\(s\) /.source +
      /\(net\.ipv4\.ip_local_port_range 40000 40199\): needs 50\d, limit 200; give the simulator more source addresses \(--source-address .*ip addr add/.source)
  )

  const redisUrl = `redis://10.213.0.1:${redisPort}`
  const runId = `netns-src-${Date.now()}`
  const runner = startIn(tracked, null, ['run', '--target', SERVER, '--token', TOKEN, '--redis', redisUrl, '--run', runId,
    '--simulators', '0', '--expect-simulators', '1', '--rounds', '2x500', '--ramp', '2s', '--message-timeout', '4s', '--out', join(dir, 'out')])
  startIn(tracked, 'iosw-h2', [...base, '--source-address', '10.213.0.12,10.213.0.101-10.213.0.103', '--redis', redisUrl, '--run', runId, '--id', 'h2'])
  await waitFor(async () => {
    const stats = /** @type {{ connected?: number } | null} */ (await fetch(`${SERVER}/stats`).then((r) => r.json(), () => null))
    return stats?.connected === 500 || runner.child.exitCode !== null
  }, { timeoutMs: 30000, intervalMs: 250, message: () => `500 clients on the server (runner: ${runner.stderr().slice(-500)})` })
  // The server sees four client addresses, at most 200 connections (its ports) from each.
  const peers = await run('ip', ['netns', 'exec', 'iosw-h1', 'ss', '-Htn', 'state', 'established', 'sport', '= :3000'])
  /** @type {Map<string, number>} */
  const byAddress = new Map()
  for (const line of peers.stdout.trim().split('\n')) {
    const peer = line.trim().split(/\s+/).at(-1)?.replace(/:\d+$/, '') ?? ''
    // 10.213.0.1: this test's own fetch (the root namespace, on the bridge).
    if (peer !== '10.213.0.1') byAddress.set(peer, (byAddress.get(peer) ?? 0) + 1)
  }
  assert.deepEqual([...byAddress.keys()].sort(), ['10.213.0.101', '10.213.0.102', '10.213.0.103', '10.213.0.12'])
  assert.ok([...byAddress.values()].every((n) => n >= 125 && n <= 200), JSON.stringify([...byAddress]))
  assert.equal(await runner.exited, 0, runner.stderr())
  assert.match(runner.stderr(), /round 1: 2 messages × 1 simulators, reached 1000, missing 0/)
})
