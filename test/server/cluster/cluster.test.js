import { randomUUID } from 'node:crypto'
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { io } from 'socket.io-client'
import { runBroadcast } from '../../../broadcaster/index.js'
import { ADMIN_NAMESPACE } from '../../../lib/protocol.js'
import { createCollector } from '../../../results/collector/index.js'
import { getRedisUrl } from '../../helpers/redis.js'
import { connect, join, record, refusal } from '../../helpers/sio-client.js'
import { startTestSwarm } from '../../helpers/swarm.js'
import { waitFor } from '../../helpers/wait.js'
import { TOKEN, startServeProcess } from '../processes.js'

const CLIENTS = 16

/**
 * Every worker and the primary report samples under their own id; the workers' samples
 * count the clients.
 * @param {import('node:test').TestContext} t
 * @param {string} redisUrl
 * @param {string} runId
 */
async function assertSamplesReported (t, redisUrl, runId) {
  const collector = await createCollector({ redisUrl })
  t.after(async () => {
    await collector.deleteRun(runId)
    await collector.close()
  })
  const ids = ['srv-primary', 'srv-w1', 'srv-w2']
  /** @type {import('../../../lib/schema/result-schema.js').ServerSample[]} */
  let samples = []
  await waitFor(async () => {
    samples = (await collector.getSamples(runId)).server
    return ids.every((id) => samples.some((s) => s.server === id))
  }, { timeoutMs: 10000, message: `samples from ${ids.join(', ')}` })
  const workers = samples.filter((s) => s.server !== 'srv-primary')
  assert.ok(workers.some((s) => s.connected > 0), 'the workers count their clients')
  assert.ok(samples.every((s) => typeof s.cpuPct === 'number' && s.rssBytes > 0 && s.byTransport))
}

for (const adapter of ['cluster', 'redis', 'redis-streams']) {
  test(`--cluster 2 --adapter ${adapter}: websocket and polling clients on both workers get every broadcast`, async (t) => {
    const redisUrl = adapter.startsWith('redis') ? await getRedisUrl(t) : null
    if (adapter.startsWith('redis') && !redisUrl) return
    const runId = `cluster-${adapter}-${randomUUID().slice(0, 8)}`
    // With Redis at hand, each process also reports its samples to the collector.
    const redisArgs = redisUrl ? ['--redis', redisUrl, '--run', runId, '--id', 'srv'] : []
    const server = await startServeProcess(t, ['--cluster', '2', '--adapter', adapter, ...redisArgs])
    assert.equal(server.workers.length, 2)
    assert.match(server.stderr(), new RegExp(`2 workers .*adapter ${adapter}`))
    // Reconnection on: a connect attempt that fails on a loaded machine is retried (and shown
    // below); a polling session sent to the wrong worker would still show as a disconnect.
    const swarm = startTestSwarm(t, { url: server.url, clients: CLIENTS, transport: 'websocket:1,polling:1' })
    let stats = await server.stats()
    await waitFor(async () => {
      stats = await server.stats()
      return stats.connected === CLIENTS
    }, { timeoutMs: 30000, message: 'every client connected' }).catch(async (error) => {
      const { clients } = await swarm.stop()
      throw new Error(
        `${error.message}: server ${JSON.stringify(stats)}; client errors ${JSON.stringify(clients.errors)}, disconnects ${JSON.stringify(clients.disconnects)}`
      )
    })
    assert.deepEqual(stats.byTransport, { websocket: CLIENTS / 2, polling: CLIENTS / 2 })
    assert.equal(stats.workers.length, 2)
    for (const w of stats.workers) {
      assert.ok(w.connected > 0, `worker ${w.worker} has clients: ${JSON.stringify(stats.workers.map((/** @type {any} */ x) => x.byTransport))}`)
    }
    assert.equal(stats.cluster.adapter, adapter)
    assert.ok(stats.cpuPct >= 0 && stats.rssBytes > stats.workers[0].rssBytes, 'totals add the processes up')

    // A worker counts the other workers' clients from their last count (sent every second).
    await waitFor(async () => {
      const res = await fetch(`${server.url}/broadcast`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}` },
        body: JSON.stringify({ event: 'not-listened-to' })
      })
      return /** @type {any} */ (await res.json()).messages[0].recipients === CLIENTS
    }, { timeoutMs: 10000, message: 'recipients to count both workers\' clients' })

    // POST /broadcast lands on one worker; the adapter carries it to the other's clients.
    const sent = await runBroadcast({ url: server.url, token: TOKEN, rounds: '2x50' })
    assert.ok(sent.messages.every((m) => m.error === null && m.recipients !== null && m.recipients > 0), JSON.stringify(sent.messages))
    // And the admin namespace, on whichever worker it lands.
    const admin = io(`${server.url}${ADMIN_NAMESPACE}`, { auth: { token: TOKEN }, transports: ['websocket'], reconnection: false })
    t.after(() => admin.close())
    const reply = await admin.timeout(10000).emitWithAck('broadcast', { round: 3, seq: 1 })
    assert.equal(reply.ok, true)

    await waitFor(() => swarm.closed.length === 3, { timeoutMs: 20000, message: () => `3 messages closed (have ${swarm.closed.length})` })
    const result = await swarm.stop()
    assert.deepEqual(result.messages.map((m) => m.id).sort(), ['1.1', '1.2', '3.1'])
    for (const m of result.messages) {
      assert.equal(m.received, CLIENTS, `message ${m.id} reached every client`)
      assert.equal(m.missing, 0)
    }
    // Polling clients kept their sessions: every request reached the worker holding it.
    if (result.clients.attempts > CLIENTS) t.diagnostic(`connect attempts retried: ${JSON.stringify(result.clients.errors)}`)
    assert.equal(result.clients.everConnected, CLIENTS)
    assert.deepEqual(result.clients.disconnects, {}, 'no client lost its session')
    assert.equal(result.clients.byTransport.polling.connected, CLIENTS / 2)
    if (redisUrl) await assertSamplesReported(t, redisUrl, runId)
  })
}

test('--cluster 2: auth, rooms, room broadcasts and relays reach exactly the room across both workers', async (t) => {
  const authToken = 'cluster-auth-token'
  const server = await startServeProcess(t, ['--cluster', '2', '--namespace', '/', '--namespace', '/a'], { IOSWARM_AUTH_TOKEN: authToken })
  assert.match(server.stderr(), /namespaces \/, \/a; .*clients need the --auth-token/)
  assert.doesNotMatch(server.stderr(), new RegExp(authToken))
  assert.equal(await refusal(t, `${server.url}/a`), 'unauthorized')
  // Eight clients on /a, round-robin over the workers; client i in room-{i mod 2}.
  const clients = []
  for (let i = 0; i < 8; i++) clients.push(await connect(t, `${server.url}/a`, { auth: { token: authToken } }))
  await Promise.all(clients.map((c, i) => join(c, `room-${i % 2}`)))
  const got = clients.map((c) => record(c, 'broadcast'))
  const stats = await server.stats()
  assert.deepEqual(stats.app.namespaces, { '/': 0, '/a': 8 })
  assert.equal(stats.app.refused, 1)
  assert.equal(stats.app.rooms.joins, 8)
  for (const w of stats.workers) {
    assert.ok(w.app.namespaces['/a'] > 0, `worker ${w.worker} has clients: ${JSON.stringify(stats.workers.map((/** @type {any} */ x) => x.app))}`)
  }

  // One admin connection: every broadcast leaves one worker, in order, so the last one
  // (to everyone) reaching a client means the earlier ones had reached it too.
  const admin = await connect(t, `${server.url}${ADMIN_NAMESPACE}`, { auth: { token: TOKEN } })
  const send = async (/** @type {object} */ body) => {
    const reply = await admin.timeout(10000).emitWithAck('broadcast', { namespace: '/a', ...body })
    assert.equal(reply.ok, true, reply.error)
    return reply.messages
  }
  const [toRoom] = await send({ room: 'room-1', round: 1, seq: 1 })
  assert.ok(toRoom.recipients >= 1 && toRoom.recipients <= 4, `a room's recipients are this worker's members: ${toRoom.recipients}`)
  const robin = await send({ rooms: 2, round: 2, seq: 1, count: 2 })
  assert.deepEqual(robin.map((/** @type {any} */ m) => m.room), ['room-0', 'room-1'])
  await send({ id: 'fence' })
  await waitFor(() => got.every((list) => list.some((m) => m.id === 'fence')), { timeoutMs: 10000, message: 'the fence at every client' })
  got.forEach((list, i) => {
    assert.deepEqual(list.map((m) => m.id), i % 2 === 1 ? ['1.1', '2.2', 'fence'] : ['2.1', 'fence'], `client ${i} in room-${i % 2}`)
  })

  // A relay from client 0 reaches room-0 on both workers; the fence after it, from the same client, everyone.
  const lines = clients.map((c) => record(c, 'chat'))
  const relayed = await clients[0].timeout(10000).emitWithAck('chat', { room: 'room-0', id: 'c0-1' })
  assert.equal(relayed.ok, true)
  await clients[0].timeout(10000).emitWithAck('chat', { id: 'c0-fence' })
  await waitFor(() => lines.every((list) => list.some((m) => m.id === 'c0-fence')), { timeoutMs: 10000, message: 'the relayed fence at every client' })
  lines.forEach((list, i) => assert.deepEqual(list.map((m) => m.id), i % 2 === 0 ? ['c0-1', 'c0-fence'] : ['c0-fence'], `client ${i}`))
  assert.deepEqual((await server.stats()).app.relay, { received: 2, relayed: 2, rejected: 0, limited: 0 })
})
