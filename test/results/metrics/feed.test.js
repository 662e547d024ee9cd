import assert from 'node:assert/strict'
import test from 'node:test'
import { createHistogram, encode, recordMs, summarize } from '../../../lib/histogram.js'
import { createCollector } from '../../../results/collector/index.js'
import { meterCollector, pollCollector } from '../../../results/metrics/feed.js'
import { createRunMetrics } from '../../../results/metrics/run-metrics.js'
import { getRedisUrl } from '../../helpers/redis.js'

/** @param {string} key @returns {any} */
function report (key) {
  const h = createHistogram()
  for (const ms of [0, 2, 4]) recordMs(h, ms)
  return { key, id: key, event: 'm', round: 1, seq: 1, sentAt: null, firstAt: Date.now(), received: 3, expected: 3, missing: 0, duplicates: 0, late: 0, relative: { ...summarize(h), histogram: encode(h) }, absolute: null }
}

test('the metered collector stores every write and feeds the metrics of its run only', async (t) => {
  const stored = await createCollector()
  t.after(() => stored.close())
  const metrics = createRunMetrics({ run: 'r' })
  const collector = meterCollector(stored, () => ({ runId: 'r', metrics }))
  await collector.registerSimulator('r', { id: 's1', hostname: 'h', pid: 1, clients: 3, transport: 'websocket', engine: 'sio', startedAt: 1 })
  await collector.reportMessage('r', 's1', report('m|1'))
  await collector.reportMessage('other-run', 's1', report('m|1'))
  assert.equal((await stored.getMessages('r')).length, 1)
  assert.equal((await stored.getMessages('other-run')).length, 1)
  const received = (await metrics.registry.getSingleMetric('ioswarm_messages_received_total')?.get())?.values
  assert.deepEqual(received?.map((v) => v.value), [3])
})

test('the poll sees simulators that write to Redis themselves, and the last round', async (t) => {
  const url = await getRedisUrl(t)
  if (!url) return
  const remote = await createCollector({ redisUrl: url })
  const runner = await createCollector({ redisUrl: url })
  const runId = `feed-${process.pid}-${Date.now()}`
  t.after(async () => {
    await runner.deleteRun(runId)
    await Promise.all([remote.close(), runner.close()])
  })
  await remote.registerSimulator(runId, { id: 'far', hostname: 'h', pid: 1, clients: 3, transport: 'websocket', engine: 'sio', startedAt: 1 })
  await remote.heartbeat(runId, 'far', 5000)
  await remote.reportMessage(runId, 'far', report('m|1'))
  const metrics = createRunMetrics({ run: runId })
  const poll = pollCollector({ collector: runner, runId, metrics, planned: [{ count: 1, intervalMs: 1000 }], everyMs: 60000 })
  await poll.stop() // one last refresh
  const text = await metrics.registry.metrics()
  assert.match(text, /ioswarm_clients_target\{simulator="far",transport="all",.*\} 3/)
  assert.match(text, /ioswarm_simulator_up\{simulator="far",.*\} 1/)
  assert.match(text, /ioswarm_round_last\{.*\} 1/)
  assert.match(text, /ioswarm_round_relative_delay_seconds\{quantile="1",.*\} 0.004/)
})
