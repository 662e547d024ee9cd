import { test } from 'node:test'
import assert from 'node:assert/strict'
import { Redis } from 'ioredis'
import { CODES } from '../../../lib/errors.js'
import { createCollector } from '../../../results/collector/index.js'
import { RUNS_KEY } from '../../../lib/schema/collector-keys.js'
import { getRedisUrl, hasRedisServer, startPrivateRedis } from '../../helpers/redis.js'
import { runCollectorContract } from './collector.contract.js'
import { messageReport } from '../make-reports.js'
import { closedPort } from '../../helpers/ports.js'

/**
 * Every key whose name mentions the run (bounded SCAN).
 * @param {Redis} redis
 * @param {string} runId
 */
async function keysOfRun (redis, runId) {
  const found = new Set()
  let cursor = '0'
  for (let i = 0; i < 10_000; i++) {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `*${runId}*`, 'COUNT', 1000)
    for (const key of keys) found.add(key)
    cursor = next
    if (cursor === '0') return [...found].sort()
  }
  assert.fail('SCAN did not finish')
}

test('redis collector: the collector contract, and every key of a run under its prefix', async (t) => {
  const url = await getRedisUrl(t)
  if (!url) return
  const inspector = new Redis(url)
  t.after(() => inspector.quit())
  await runCollectorContract(t, (limits) => createCollector({ redisUrl: url, ...limits }), {
    async afterWrites (runId) {
      const keys = await keysOfRun(inspector, runId)
      const prefix = `ioswarm:{${runId}}:`
      assert.deepEqual(keys.filter((k) => !k.startsWith(prefix)), [])
      assert.ok(await inspector.zscore(RUNS_KEY, runId), 'the run is in the registry')
      assert.deepEqual(keys.map((k) => k.slice(prefix.length)), [
        'clocks', 'finals', 'hb:sim-a', 'hb:sim-b', 'heartbeats', 'last', 'message-index', 'messages',
        'meta', 'samples', 'server-samples', 'simulators'
      ])
      const types = await Promise.all(['messages', 'samples', 'message-index', 'meta'].map((k) => inspector.type(prefix + k)))
      assert.deepEqual(types, ['stream', 'stream', 'hash', 'hash'])
    },
    async afterDelete (runId) {
      assert.deepEqual(await keysOfRun(inspector, runId), [])
      assert.equal(await inspector.zscore(RUNS_KEY, runId), null)
    }
  })
})

test('an ACL user with a password full of URL characters works, limited to ioswarm:* keys', async (t) => {
  if (!hasRedisServer(t, 'this test starts its own Redis with a password and needs redis-server on PATH')) return
  const password = 'p@ss:w/rd#1 %x'
  const redis = await startPrivateRedis(['--requirepass', 'admin-secret'])
  t.after(redis.stop)
  const admin = new Redis({ port: redis.port, host: '127.0.0.1', password: 'admin-secret' })
  t.after(() => admin.quit())
  await admin.call('ACL', 'SETUSER', 'swarm', 'on', `>${password}`, '~ioswarm:*', '&ioswarm:*', '+@all')
  const url = `redis://swarm:${encodeURIComponent(password)}@127.0.0.1:${redis.port}`
  const collector = await createCollector({ redisUrl: url })
  t.after(() => collector.close())
  await collector.registerRun('acl-run', { name: 'acl', startedAt: 1, options: {} })
  await collector.reportMessage('acl-run', 'sim-a', messageReport({ round: 1, seq: 1, relativeMs: [1, 2] }))
  assert.equal((await collector.getMessages('acl-run'))[0].received, 2)

  const wrong = `redis://swarm:${encodeURIComponent('not-' + password)}@127.0.0.1:${redis.port}`
  const err = await createCollector({ redisUrl: wrong }).then(() => assert.fail('connected with a wrong password'), (e) => e)
  assert.equal(err.code, CODES.COLLECTOR)
  assert.match(err.message, new RegExp(`redis://swarm:\\*\\*\\*@127\\.0\\.0\\.1:${redis.port}`))
  assert.match(err.message, /WRONGPASS/)
  for (const secret of [password, encodeURIComponent(password), 'not-']) assert.ok(!err.message.includes(secret), err.message)
  assert.equal(err.cause, undefined)
})

test('an unreachable Redis fails at once with a collector error naming the redacted URL', async () => {
  const port = await closedPort()
  const err = await createCollector({ redisUrl: `redis://:hunter2@127.0.0.1:${port}/0` }).then(() => assert.fail('connected'), (e) => e)
  assert.equal(err.code, CODES.COLLECTOR)
  assert.match(err.message, new RegExp(`^cannot use Redis at redis://:\\*\\*\\*@127\\.0\\.0\\.1:${port}/0: .*ECONNREFUSED`))
  assert.ok(!err.message.includes('hunter2'), err.message)
  await assert.rejects(createCollector({ redisUrl: 'http://127.0.0.1:6379' }), { code: CODES.INVALID_OPTION })
})

test('when Redis goes away mid-run, writes reject with a collector error instead of hanging', async (t) => {
  if (!hasRedisServer(t, 'this test stops its own Redis and needs redis-server on PATH')) return
  const redis = await startPrivateRedis(['--requirepass', 'pw-9'])
  t.after(redis.stop)
  const collector = await createCollector({ redisUrl: `redis://:pw-9@127.0.0.1:${redis.port}` })
  t.after(() => collector.close())
  await collector.heartbeat('gone-run', 'sim-a', 1000)
  await redis.stop()
  const err = await collector.heartbeat('gone-run', 'sim-a', 1000).then(() => assert.fail('wrote to a stopped Redis'), (e) => e)
  assert.equal(err.code, CODES.COLLECTOR)
  assert.match(err.message, new RegExp(`^Redis at redis://:\\*\\*\\*@127\\.0\\.0\\.1:${redis.port}: heartbeat failed: `))
  assert.ok(!err.message.includes('pw-9'), err.message)
})
