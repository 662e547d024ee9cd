import { test } from 'node:test'
import assert from 'node:assert/strict'
import { runBroadcast } from '../../broadcaster/index.js'
import { getRedisUrl } from '../helpers/redis.js'
import { startTestServer, startTestSwarm, waitForClients } from '../helpers/swarm.js'
import { waitFor } from '../helpers/wait.js'

test('--via redis-emitter with no server on the Redis adapter fails, saying so', async (t) => {
  const redisUrl = await getRedisUrl(t)
  if (!redisUrl) return
  await assert.rejects(runBroadcast({ via: 'redis-emitter', redis: redisUrl, url: 'http://unused', token: '', rounds: '1x10' }),
    /no server is subscribed to the Redis adapter channel socket\.io#\/# at redis:\/\/127\.0\.0\.1/)
})

test('--via redis-emitter reaches every client of a server on the Redis adapter, without a token', async (t) => {
  const redisUrl = await getRedisUrl(t)
  if (!redisUrl) return
  const server = await startTestServer(t, { adapter: 'redis', redisUrl })
  const swarm = startTestSwarm(t, { url: server.url, clients: 6, transport: 'websocket:1,polling:1', event: ['broadcast', 'score'] })
  await waitForClients(server, 6)
  const plain = await runBroadcast({ via: 'redis-emitter', redis: redisUrl, url: 'http://unused', token: '', rounds: '2x50', size: 16 })
  assert.ok(plain.messages.every((m) => m.error === null && m.recipients === null && typeof m.sentAt === 'number'), JSON.stringify(plain.messages))
  const shaped = await runBroadcast({ via: 'redis-emitter', redis: redisUrl, url: 'http://unused', token: '', rounds: '1x10', event: 'score', message: '{"kind":"goal","id":{{id}},"sentAt":{{sentAt}}}' })
  assert.equal(shaped.messages[0].error, null)
  await waitFor(() => swarm.closed.length === 3, { timeoutMs: 15000, message: () => `3 messages closed (have ${swarm.closed.length})` })
  const result = await swarm.stop()
  for (const m of result.messages) {
    assert.equal(m.received, 6, `message ${m.event} ${m.id}`)
    assert.equal(m.missing, 0)
    assert.ok(m.absolute, 'sentAt set by the emitter, read by the simulator')
  }
  assert.deepEqual(result.messages.map((m) => `${m.event} ${m.id}`).sort(), ['broadcast 1.1', 'broadcast 1.2', 'score 1.1'])
})
