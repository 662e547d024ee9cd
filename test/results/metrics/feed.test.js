/**
 * followCollector: what simulators store in a collector (memory, or Redis written by other
 * processes) reaches the runner's metrics once per report; and the whole path with a real
 * `ioswarm run --redis --metrics-port` and a real `ioswarm simulate --redis` joining it.
 */
import assert from 'node:assert/strict'
import test from 'node:test'
import { createHistogram, encode, recordMs, summarize } from '../../../lib/measure/histogram.js'
import { createCollector } from '../../../results/collector/index.js'
import { followCollector } from '../../../results/metrics/feed.js'
import { createRunMetrics } from '../../../results/metrics/run-metrics.js'
import { runTest } from '../../../runner/index.js'
import { runCli } from '../../helpers/cli.js'
import { getRedisUrl } from '../../helpers/redis.js'
import { sample } from '../make-reports.js'
import { parseExposition } from '../../helpers/prometheus-text.js'

/** @param {string} key @returns {any} */
function report (key) {
  const h = createHistogram()
  for (const ms of [0, 2, 4]) recordMs(h, ms)
  return {
    key,
    id: key,
    event: 'm',
    round: 1,
    seq: 1,
    sentAt: null,
    firstAt: Date.now(),
    received: 3,
    expected: 4,
    missing: 1,
    duplicates: 0,
    late: 0,
    relative: { ...summarize(h), histogram: encode(h) },
    absolute: null
  }
}

/**
 * Writes what a simulator and a server probe would, then follows the run: every counter,
 * histogram and gauge arrives, and polling again feeds nothing twice.
 * @param {import('../../../results/collector/types.js').Collector} writer
 * @param {import('../../../results/collector/types.js').Collector} reader
 * @param {string} runId
 */
async function followAndCheck (writer, reader, runId) {
  await writer.registerSimulator(runId, { id: 'far', hostname: 'h', pid: 1, clients: 10, transport: 'websocket', engine: 'sio', startedAt: 1 })
  await writer.heartbeat(runId, 'far', 5000)
  await writer.reportSample(runId, 'far', sample(1000, { connected: 10, loopDelayP99Ms: 20 }))
  await writer.reportMessage(runId, 'far', report('m|1'))
  await writer.reportServerSample(runId, 'server', { ...sample(1000).health, connected: 10, byTransport: { websocket: 10, polling: 0 } })
  const metrics = createRunMetrics({ run: runId })
  const follow = followCollector({ collector: reader, runId, metrics, planned: [{ count: 2, intervalMs: 1000 }], everyMs: 60000 })
  await follow.poll()
  await writer.reportMessage(runId, 'far', report('m|2'))
  await writer.reportMessage(runId, 'far', report('m|2')) // a duplicate: stored once, fed once
  await writer.reportSample(runId, 'far', sample(2000, { connected: 9 }))
  await follow.poll()
  await follow.poll()
  await follow.stop() // one last refresh
  const { sum } = parseExposition(await metrics.registry.metrics())
  const far = { simulator: 'far' }
  assert.equal(sum('ioswarm_messages_total', far), 2)
  assert.equal(sum('ioswarm_messages_received_total', far), 6)
  assert.equal(sum('ioswarm_messages_missing_total', far), 2)
  assert.equal(sum('ioswarm_message_relative_delay_seconds_count', far), 6)
  assert.equal(sum('ioswarm_message_relative_delay_seconds_bucket', { ...far, le: '0.001' }), 2, 'the 0 ms delay of both reports')
  assert.equal(sum('ioswarm_message_relative_delay_seconds_bucket', { ...far, le: '0.005' }), 6)
  assert.equal(sum('ioswarm_connects_total', far), 2, 'one connect in each of two seconds')
  assert.equal(sum('ioswarm_clients_connected', { ...far, transport: 'websocket' }), 9, 'the newest second')
  assert.equal(sum('ioswarm_clients_target', { ...far, transport: 'websocket' }), 10)
  assert.equal(sum('ioswarm_simulator_up', far), 1)
  assert.equal(sum('ioswarm_simulator_loop_delay_p99_seconds', far), 0.002)
  assert.equal(sum('ioswarm_server_clients_connected', { transport: 'websocket' }), 10)
  assert.equal(sum('ioswarm_round_last'), 1)
  assert.ok(Math.abs(sum('ioswarm_round_relative_delay_seconds', { quantile: '1' }) - 0.004) < 1e-5, 'the round\'s max (HDR precision)')
}

test('followCollector (memory): each stored report, sample and server sample is fed once', async (t) => {
  const collector = await createCollector()
  t.after(() => collector.close())
  await followAndCheck(collector, collector, 'r')
})

test('followCollector (Redis): what another process wrote to Redis reaches the metrics, each once', async (t) => {
  const url = await getRedisUrl(t)
  if (!url) return
  const remote = await createCollector({ redisUrl: url })
  const runner = await createCollector({ redisUrl: url })
  const runId = `feed-${process.pid}-${Date.now()}`
  t.after(async () => {
    await runner.deleteRun(runId)
    await Promise.all([remote.close(), runner.close()])
  })
  await followAndCheck(remote, runner, runId)
})

test('a view of some simulators only: the others and the server samples are left out', async (t) => {
  const collector = await createCollector()
  t.after(() => collector.close())
  for (const id of ['mine-w1', 'theirs']) {
    await collector.registerSimulator('r', { id, hostname: 'h', pid: 1, clients: 10, transport: 'websocket', engine: 'sio', startedAt: 1 })
    await collector.reportMessage('r', id, report('m|1'))
    await collector.reportSample('r', id, sample(1000))
  }
  await collector.reportServerSample('r', 'server', { ...sample(1000).health, connected: 10, byTransport: { websocket: 10, polling: 0 } })
  const metrics = createRunMetrics({ run: 'r' })
  await followCollector({ collector, runId: 'r', metrics, rounds: false, simulators: (id) => id.startsWith('mine-'), everyMs: 60000 }).stop()
  const { series } = parseExposition(await metrics.registry.metrics())
  assert.deepEqual([...new Set(series.flatMap((s) => s.labels.simulator ?? []))], ['mine-w1'])
  assert.deepEqual(series.filter((s) => /^ioswarm_(server|round)_/.test(s.name) && s.value !== 0), [])
})

test('run --redis --metrics-port: a simulator that joins through Redis from its own ' +
  'process is in the runner\'s counters, histograms and health, equal to result.json', { timeout: 120000 }, async (t) => {
  const redisUrl = await getRedisUrl(t)
  if (!redisUrl) return
  const runId = `metrics-join-${process.pid}-${Date.now()}`
  /** @type {ReturnType<typeof runCli> | null} */
  let far = null
  /** @type {ReturnType<typeof parseExposition> | null} */
  let scraped = null
  const options = {
    redis: redisUrl, run: runId, simulators: 1, clients: 10, expectSimulators: 1, rounds: '3x300', ramp: '300ms', pingInterval: '5s', metricsPort: 0
  }
  const result = await runTest(options, {
    // The runner's reference server is up: a simulator joins from a process of its own.
    log: (line) => {
      const server = / reference server (http:\/\/\S+)/.exec(line)
      if (server && !far) {
        far = runCli(
          t,
          ['bin/ioswarm.js', 'simulate', '--quiet', '--ramp', '0', '--url', server[1], '--clients', '10', '--redis', redisUrl, '--run', runId, '--id', 'far'],
          { timeoutMs: 90000 }
        )
      }
    },
    metricsLinger: async (url) => { scraped = parseExposition(await (await fetch(url)).text()) }
  })
  t.after(async () => {
    const collector = await createCollector({ redisUrl })
    await collector.deleteRun(runId)
    await collector.close()
  })
  assert.ok(far, 'the joining simulator was started')
  const joined = await /** @type {ReturnType<typeof runCli>} */ (far)
  assert.equal(joined.code, 0, joined.stderr)
  assert.ok(scraped, 'scraped before the metrics server closed')
  const { sum } = /** @type {ReturnType<typeof parseExposition>} */ (scraped)
  const dist = result.distributions[0]
  const local = `${dist.name}-sim1`
  assert.deepEqual(dist.simulatorList.map((s) => s.id).sort(), ['far', local].sort())
  for (const simulator of ['far', local]) {
    const messages = dist.messages.length
    assert.equal(sum('ioswarm_messages_total', { simulator }), messages, `${simulator}: every message report`)
    const connects = dist.timeline.filter((p) => p.simulator === simulator).reduce((s, p) => s + p.connects, 0)
    assert.equal(sum('ioswarm_connects_total', { simulator }), connects, `${simulator}: connects, as in result.json's timeline`)
    assert.ok(connects >= 10)
    assert.ok(sum('ioswarm_simulator_rss_bytes', { simulator }) > 0, `${simulator}: health`)
    assert.equal(sum('ioswarm_clients_target', { simulator }), 10)
  }
  const rounds = dist.rounds
  assert.equal(sum('ioswarm_messages_received_total'), rounds.reduce((s, r) => s + r.received, 0))
  assert.equal(sum('ioswarm_messages_received_total'), 2 * 10 * 3, 'both simulators, every client, three messages')
  assert.equal(sum('ioswarm_room_received_total', { namespace: '/', room: '' }), 2 * 10 * 3, 'by namespace and room: the main namespace, no room')
  assert.equal(sum('ioswarm_messages_missing_total'), rounds.reduce((s, r) => s + r.missing, 0))
  assert.equal(sum('ioswarm_message_relative_delay_seconds_count'), rounds.reduce((s, r) => s + r.relative.count, 0))
  assert.equal(sum('ioswarm_message_latency_seconds_count'), rounds.reduce((s, r) => s + (r.absolute?.count ?? 0), 0))
  assert.equal(sum('ioswarm_round_relative_delay_seconds', { quantile: '0.99' }), /** @type {any} */ (rounds.at(-1)).relative.p99 / 1000)
  assert.ok(sum('ioswarm_server_rss_bytes') > 0, 'the server probe\'s samples, through Redis')
  assert.equal(sum('ioswarm_simulator_up'), 0, 'both stopped')
})
