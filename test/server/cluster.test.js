import { randomUUID } from 'node:crypto'
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { io } from 'socket.io-client'
import { runBroadcast } from '../../broadcaster/index.js'
import { ADMIN_NAMESPACE } from '../../lib/protocol.js'
import { createCollector } from '../../results/collector/index.js'
import { getRedisUrl } from '../helpers/redis.js'
import { startTestSwarm } from '../helpers/swarm.js'
import { waitFor } from '../helpers/wait.js'
import { TOKEN, startServeProcess } from './processes.js'

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
  /** @type {import('../../lib/schema.js').ServerSample[]} */
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
      throw new Error(`${error.message}: server ${JSON.stringify(stats)}; client errors ${JSON.stringify(clients.errors)}, disconnects ${JSON.stringify(clients.disconnects)}`)
    })
    assert.deepEqual(stats.byTransport, { websocket: CLIENTS / 2, polling: CLIENTS / 2 })
    assert.equal(stats.workers.length, 2)
    for (const w of stats.workers) assert.ok(w.connected > 0, `worker ${w.worker} has clients: ${JSON.stringify(stats.workers.map((/** @type {any} */ x) => x.byTransport))}`)
    assert.equal(stats.cluster.adapter, adapter)
    assert.ok(stats.cpuPct >= 0 && stats.rssBytes > stats.workers[0].rssBytes, 'totals add the processes up')

    // A worker counts the other workers' clients from their last count (sent every second).
    await waitFor(async () => {
      const res = await fetch(`${server.url}/broadcast`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}` }, body: JSON.stringify({ event: 'not-listened-to' }) })
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
