import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { Redis } from 'ioredis'
import { runCli } from '../helpers/cli.js'
import { hasRedisServer, scanAllKeys, startPrivateRedis } from '../helpers/redis.js'
import { waitFor } from '../helpers/wait.js'
import { startServeProcess, TOKEN } from '../server/processes.js'

test('a whole run (runner, simulators, a server reporting samples) writes no key outside ioswarm:{RUN}: and the registry', async (t) => {
  if (!hasRedisServer(t, 'this test scans every key of its own Redis and needs redis-server on PATH')) return
  const redis = await startPrivateRedis()
  t.after(redis.stop)
  const inspector = new Redis(redis.url)
  t.after(() => inspector.quit())
  const out = await mkdtemp(path.join(os.tmpdir(), 'ioswarm-keys-'))
  t.after(() => rm(out, { recursive: true, force: true }))
  const runId = 'keys-run'
  const prefix = `ioswarm:{${runId}}:`

  const server = await startServeProcess(t, ['--ping-interval', '1s', '--redis', redis.url, '--run', runId, '--id', 'srv'])
  await waitFor(async () => (await inspector.exists(`${prefix}server-samples`)) === 1, { message: 'the server reports its samples' })
  const run = await runCli(t, ['bin/ioswarm.js', 'run', '--target', server.url, '--token', TOKEN, '--simulators', '2', '--clients-per-simulator', '3',
    '--rounds', '2x200', '--ramp', '0', '--redis', redis.url, '--run', runId, '--out', out, '--quiet'], { timeoutMs: 60000 })
  assert.equal(run.code, 0, run.stderr)

  const keys = await scanAllKeys(inspector)
  assert.deepEqual(keys.filter((k) => k !== 'ioswarm:runs' && !k.startsWith(prefix)), [], 'keys outside the run')
  const own = keys.filter((k) => k.startsWith(prefix)).map((k) => k.slice(prefix.length))
  for (const key of ['meta', 'simulators', 'heartbeats', 'messages', 'message-index', 'samples', 'server-samples', 'finals', 'clocks']) {
    assert.ok(own.includes(key), `the run wrote ${key} (it wrote ${own.join(', ')})`)
  }
  assert.deepEqual(await inspector.zrange('ioswarm:runs', 0, -1), [runId])
  // The databases other than 0 stayed empty too.
  const keyspace = await inspector.info('keyspace')
  assert.deepEqual(keyspace.split('\n').filter((l) => l.startsWith('db')).map((l) => l.split(':')[0]), ['db0'])
})
