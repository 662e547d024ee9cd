import { test } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { Redis } from 'ioredis'
import { runCli } from '../helpers/cli.js'
import { scanAllKeys } from '../helpers/redis.js'
import { startTlsRedis } from '../helpers/redis-tls.js'
import { startTestServer, waitForClients } from '../helpers/swarm.js'
import { waitFor } from '../helpers/wait.js'
import { skipOrFail } from '../helpers/skip.js'

const ADMIN_PASSWORD = 'admin-Secret-7'
// URL characters in the password: it must be encoded in the URL and redacted in both forms.
const PASSWORD = 'tls:p@ss/w#rd %9'
const SECRETS = [PASSWORD, encodeURIComponent(PASSWORD), ADMIN_PASSWORD]
/** This checkout's root, on the command line of every process a run of it starts. */
const CHECKOUT = fileURLToPath(new URL('../../', import.meta.url))

/**
 * The commands results/README.md says ioswarm needs, and nothing else; keys and channels
 * limited to ioswarm:*.
 */
const ACL_RULES = ['reset', 'on', `>${PASSWORD}`, '~ioswarm:*', '&ioswarm:*', '-@all',
  ...('ping hset hgetall hkeys zadd zrange zrem set exists xadd xrange xread evalsha eval multi exec publish ' +
    'subscribe unsubscribe unlink time hexists hlen select info').split(' ').map((c) => `+${c}`)]

/**
 * A TLS-only private Redis with an admin password and the ACL user `swarm`.
 * @param {import('node:test').TestContext} t
 */
async function tlsRedisWithAclUser (t) {
  const redis = await startTlsRedis(t, ['--requirepass', ADMIN_PASSWORD])
  if (!redis) return null
  const admin = new Redis({ host: '127.0.0.1', port: redis.port, password: ADMIN_PASSWORD, tls: { ca: redis.ca } })
  t.after(() => admin.quit())
  // ioredis also sends CLIENT SETINFO, which Redis < 7.2 does not know (nor its ACL).
  const setinfo = await admin.call('COMMAND', 'INFO', 'client|setinfo').then((info) => Array.isArray(info) && info[0] !== null, () => false)
  await admin.call('ACL', 'SETUSER', 'swarm', ...ACL_RULES, ...(setinfo ? ['+client|setinfo'] : []))
  const url = `rediss://swarm:${encodeURIComponent(PASSWORD)}@127.0.0.1:${redis.port}`
  return { ...redis, admin, url, env: { NODE_EXTRA_CA_CERTS: redis.caFile } }
}

/**
 * @param {string} text
 * @param {string} where
 */
function assertNoSecret (text, where) {
  for (const secret of SECRETS) assert.ok(!text.includes(secret), `${where} shows a password`)
}

/**
 * Watches the command line of every process started from this checkout (its path is on each: the CLI, the simulator
 * children) for a password until stopped (Linux /proc).
 * @returns {{ stop: () => { leaks: string[], simulators: number } }} the offending command lines, and how many simulator
 *   children were seen (so a watch that saw nothing does not pass for a clean one)
 */
function watchCommandLines () {
  const found = new Set()
  const simulators = new Set()
  const scan = () => {
    for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
      let cmdline = ''
      try {
        cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ')
      } catch {
        continue // gone, or not ours to read
      }
      if (!cmdline.includes(CHECKOUT)) continue
      if (cmdline.includes('simulator/processes/child.js')) simulators.add(pid)
      if (SECRETS.some((s) => cmdline.includes(s))) found.add(cmdline)
    }
  }
  const timer = setInterval(scan, 100)
  return { stop: () => { clearInterval(timer); return { leaks: [...found], simulators: simulators.size } } }
}

test('ioswarm run over rediss:// with a private CA (NODE_EXTRA_CA_CERTS) and an ACL user: complete, only ioswarm keys, no password anywhere', async (t) => {
  const redis = await tlsRedisWithAclUser(t)
  if (!redis) return
  const out = await mkdtemp(path.join(os.tmpdir(), 'ioswarm-tls-run-'))
  t.after(() => rm(out, { recursive: true, force: true }))
  const watcher = existsSync('/proc/self/cmdline') ? watchCommandLines() : null
  const run = await runCli(t, ['bin/ioswarm.js', 'run', '--simulators', '2', '--clients-per-simulator', '5', '--rounds', '2x200', '--ping-interval', '1s',
    // --metrics-port: the live view reads the run back with XREAD, under the same ACL.
    '--ramp', '0', '--run', 'tls-run', '--out', out, '--json', '--metrics-port', '0'], { env: { ...redis.env, IOSWARM_REDIS: redis.url }, timeoutMs: 60000 })
  const watched = watcher?.stop()
  assert.equal(run.code, 0, run.stderr)
  await t.test('no password on a command line of the run or its simulators (visible in ps)', (st) => {
    if (watched === undefined) return skipOrFail(st, 'SKIPPED: no /proc: the command lines of the simulators cannot be read for the password')
    assert.ok(watched.simulators >= 2, `the watch saw the 2 simulator children (saw ${watched.simulators})`)
    assert.deepEqual(watched.leaks, [], 'a password on a command line')
  })

  const result = JSON.parse(await readFile(path.join(out, 'result.json'), 'utf8'))
  assert.equal(result.run.collector, 'redis')
  assert.equal(result.options.redis, `rediss://swarm:***@127.0.0.1:${redis.port}`)
  const [d] = result.distributions
  assert.equal(d.clients.connected, 10)
  assert.deepEqual(d.messages.map((/** @type {any} */ m) => [m.id, m.received, m.missing]), [['1.1', 10, 0], ['1.2', 10, 0]])
  assert.ok(d.simulatorList.every((/** @type {any} */ s) => s.clock.reference === 'redis'), 'the simulators measured their clocks against Redis TIME over TLS')

  assertNoSecret(run.stdout, 'stdout')
  assertNoSecret(run.stderr, 'stderr')
  for (const file of ['result.json', 'report.html', 'messages.csv', 'samples.csv']) assertNoSecret(await readFile(path.join(out, file), 'utf8'), file)

  // Nothing outside the run's keys and the registry; no command of ioswarm was refused.
  const keys = await scanAllKeys(redis.admin)
  assert.ok(keys.length > 5, `the run wrote its keys (${keys.join(', ')})`)
  assert.deepEqual(keys.filter((k) => k !== 'ioswarm:runs' && !k.startsWith('ioswarm:{tls-run}:')), [])
  const denied = /** @type {unknown[]} */ (await redis.admin.call('ACL', 'LOG'))
  assert.deepEqual(denied, [], 'ACL LOG: a command or key ioswarm used was denied to the limited user')
})

test('simulate and broadcast --run over rediss:// with the ACL user; without the CA a clear error that names NODE_EXTRA_CA_CERTS', async (t) => {
  const redis = await tlsRedisWithAclUser(t)
  if (!redis) return
  const server = await startTestServer(t)
  const runId = 'tls-sb'
  const sim = runCli(t, ['bin/ioswarm.js', 'simulate', '--json', '--ramp', '0', '--url', server.url, '--clients', '4',
    '--redis', redis.url, '--run', runId, '--id', 'tls-sim', '--message-timeout', '3s'], { env: redis.env, timeoutMs: 60000 })
  await waitForClients(server, 4)
  await waitFor(async () => (await redis.admin.hexists(`ioswarm:{${runId}}:simulators`, 'tls-sim')) === 1, { message: 'the simulator registered over TLS' })

  const bcast = await runCli(t, ['bin/ioswarm.js', 'broadcast', '--url', server.url, '--token', 'test-token', '--rounds', '2x100',
    '--redis', redis.url, '--run', runId, '--message-timeout', '3s', '--json'], { env: redis.env, timeoutMs: 60000 })
  assert.equal(bcast.code, 0, bcast.stderr)
  const rounds = JSON.parse(bcast.stdout).rounds
  assert.deepEqual(rounds.map((/** @type {any} */ r) => [r.round, r.complete, r.result?.received]), [[1, true, 8]])
  assert.match(bcast.stderr, /clock offset to Redis/)

  await redis.admin.publish(`ioswarm:{${runId}}:control`, JSON.stringify({ type: 'stop' }))
  const done = await sim
  assert.equal(done.code, 0, done.stderr)
  assert.equal(JSON.parse(done.stdout).clock.reference, 'redis')
  for (const [name, text] of [
    ['broadcast stdout', bcast.stdout],
    ['broadcast stderr', bcast.stderr],
    ['simulate stdout', done.stdout],
    ['simulate stderr', done.stderr]
  ]) {
    assertNoSecret(text, name)
  }
  assert.deepEqual(await redis.admin.call('ACL', 'LOG'), [], 'ACL LOG: nothing denied')

  // The same simulator without the CA: exit 1 at once, the cause and the way out, no password.
  const untrusted = await runCli(t, ['bin/ioswarm.js', 'simulate', '--quiet', '--ramp', '0', '--url', server.url, '--clients', '1',
    '--redis', redis.url, '--run', runId], { env: { NODE_EXTRA_CA_CERTS: '' }, timeoutMs: 30000 })
  assert.equal(untrusted.code, 1, untrusted.stderr)
  assert.match(
    untrusted.stderr,
    new RegExp(`cannot use Redis at rediss://swarm:\\*\\*\\*@127\\.0\\.0\\.1:${redis.port}: self-signed certificate in certificate chain .*NODE_EXTRA_CA_CERTS`)
  )
  assertNoSecret(untrusted.stderr, 'the untrusted error')
})

test('connectRedis: REDISS:// in capitals is TLS too, localhost is checked against the certificate, redis:// to a TLS port hints rediss://', async (t) => {
  const redis = await startTlsRedis(t)
  if (!redis) return
  // A child process: NODE_EXTRA_CA_CERTS is read at process start only.
  const script = `
    import { connectRedis } from './lib/redis.js'
    const out = {}
    for (const url of JSON.parse(process.argv[1])) {
      try {
        const client = await connectRedis(url)
        out[url] = await client.ping()
        client.disconnect()
      } catch (error) {
        out[url] = error.message
      }
    }
    console.log(JSON.stringify(out))`
  const urls = [`REDISS://127.0.0.1:${redis.port}`, `rediss://localhost:${redis.port}`, `redis://127.0.0.1:${redis.port}`]
  const { code, stdout, stderr } = await runCli(t, ['--input-type=module', '-e', script, JSON.stringify(urls)], {
    env: { NODE_EXTRA_CA_CERTS: redis.caFile },
    timeoutMs: 30000
  })
  assert.equal(code, 0, stderr)
  const out = JSON.parse(stdout)
  assert.equal(out[urls[0]], 'PONG', 'REDISS:// went over TLS')
  assert.equal(out[urls[1]], 'PONG', 'the certificate names localhost')
  assert.match(out[urls[2]], /^cannot use Redis at redis:\/\/127\.0\.0\.1:\d+: .*\(if this Redis speaks TLS, use rediss:\/\/\)$/)
})
