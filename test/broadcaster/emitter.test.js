import { test } from 'node:test'
import assert from 'node:assert/strict'
import { runBroadcast } from '../../broadcaster/index.js'
import { getRedisUrl } from '../helpers/redis.js'
import { startTestServer, startTestSwarm, waitForClients } from '../helpers/swarm.js'
import { waitFor } from '../helpers/wait.js'
import { connect, join, record } from '../helpers/sio-client.js'

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
  const shaped = await runBroadcast({
    via: 'redis-emitter',
    redis: redisUrl,
    url: 'http://unused',
    token: '',
    rounds: '1x10',
    event: 'score',
    message: '{"kind":"goal","id":{{id}},"sentAt":{{sentAt}}}'
  })
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

test('--via redis-emitter --rooms --namespace: emitter.of(namespace).to(room), ' +
  'exactly the room\'s clients; a namespace no server serves is named', async (t) => {
  const redisUrl = await getRedisUrl(t)
  if (!redisUrl) return
  const server = await startTestServer(t, { adapter: 'redis', redisUrl, namespaces: ['/', '/a'] })
  const sockets = await Promise.all(Array.from({ length: 4 }, () => connect(t, `${server.url}/a`)))
  await Promise.all(sockets.map((s, i) => join(s, `room-${i % 2}`)))
  const got = sockets.map((s) => record(s, 'broadcast'))
  const onRoot = record(await connect(t, server.url), 'broadcast')
  const result = await runBroadcast({ via: 'redis-emitter', redis: redisUrl, url: 'http://unused', token: '', rounds: '3x0', rooms: 2, namespaces: ['/a'] })
  assert.deepEqual(result.messages.map((m) => [m.id, m.room, m.error]), [['1.1', 'room-0', null], ['1.2', 'room-1', null], ['1.3', 'room-0', null]])
  const fence = await runBroadcast({
    via: 'redis-emitter',
    redis: redisUrl,
    url: 'http://unused',
    token: '',
    rounds: '1x0',
    event: 'broadcast',
    size: 4,
    namespaces: ['/a', '/']
  })
  assert.equal(fence.messages[0].error, null)
  await waitFor(() => [...got, onRoot].every((list) => list.some((m) => m.payload === 'iosw')), { message: 'the fence at every client' })
  got.forEach((list, i) => {
    const rooms = list.filter((m) => m.room).map((m) => `${m.id}@${m.room}`).sort()
    assert.deepEqual(rooms, i % 2 === 0 ? ['1.1@room-0', '1.3@room-0'] : ['1.2@room-1'], `client ${i}`)
  })
  assert.equal(onRoot.length, 1, 'the / client got only the fence')
  await assert.rejects(runBroadcast({ via: 'redis-emitter', redis: redisUrl, url: 'http://unused', token: '', rounds: '1x0', namespaces: ['/zzz'] }),
    /no server is subscribed to the Redis adapter channel socket\.io#\/zzz# at .*and does it serve that namespace\?/)
})
