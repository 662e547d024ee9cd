import { test } from 'node:test'
import assert from 'node:assert/strict'
import { runWorkers } from '../../../simulator/processes/workers.js'
import { normalizeSimOptions } from '../../../simulator/sim-options.js'
import { startTestServer, waitForClientsReady } from '../../helpers/swarm.js'
import { waitFor } from '../../helpers/wait.js'

// The loss seen at 200,000 clients (issue "The next factor"): workers stopped together, each
// exiting 0 after sending a large result, and the parent merging some as `died: "exit 0"`.
test('twelve workers stopped together on a loaded parent: every worker\'s result is in the merge', async (t) => {
  const server = await startTestServer(t, { pingIntervalMs: 200 })
  const workers = 12
  const clients = 36
  const messages = 40
  const options = { ...normalizeSimOptions({ url: server.url, clients, engine: 'lean', ramp: '0', duration: '120s', keepMessages: messages }), id: 'stop12' }
  const stop = new AbortController()
  t.after(() => stop.abort())
  let closed = 0
  const running = runWorkers(options, workers, { signal: stop.signal, onWorkerMessage: () => { closed++ } })
  await waitForClientsReady(server, clients)
  // Many closed messages make each worker's result large (every message's report rides in it).
  await server.broadcast({ round: 1, count: messages, size: 512 })
  await waitFor(() => closed === workers * messages, { timeoutMs: 30000, message: `${messages} messages closed in each of ${workers} workers` })
  // The parent's loop is busy 5 ms of every 6 while the twelve results come back.
  const busy = setInterval(() => { const end = Date.now() + 5; while (Date.now() < end); }, 1)
  t.after(() => clearInterval(busy))
  stop.abort()
  const result = await running
  clearInterval(busy)
  assert.deepEqual(result.workers?.list.filter((w) => w.died).map((w) => `${w.id}: ${w.died}`), [], 'no worker without its result')
  assert.equal(result.workers?.list.length, workers)
  assert.ok(result.workers?.list.every((w) => w.exitCode === 0 && w.rssMaxBytes > 0 && w.clients.target === clients / workers))
  assert.equal(result.clients.everConnected, clients)
  assert.equal(result.clients.target, clients)
  assert.equal(result.messages.length, messages)
  for (const m of result.messages) assert.equal(m.received, clients, `message ${m.id} received by every client of every worker`)
})
