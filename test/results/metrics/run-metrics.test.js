import assert from 'node:assert/strict'
import test from 'node:test'
import { createHistogram, encode, recordMs, summarize } from '../../../lib/measure/histogram.js'
import { createRunMetrics, transportShares } from '../../../results/metrics/run-metrics.js'

/** @param {number[]} delaysMs */
function encoded (delaysMs) {
  const h = createHistogram()
  for (const ms of delaysMs) recordMs(h, ms)
  return { ...summarize(h), histogram: encode(h) }
}

/** @param {number} received @returns {any} */
const report = (received) => ({
  key: `m|${received}`,
  id: String(received),
  event: 'm',
  round: 1,
  seq: 1,
  sentAt: 1,
  firstAt: 1,
  received,
  expected: received + 1,
  missing: 1,
  duplicates: 0,
  late: 0,
  relative: encoded(Array.from({ length: received }, (_, i) => i)),
  absolute: null
})

/** @param {number} t @param {number} ws @returns {any} */
const sample = (t, ws) => ({
  timeline: { t, connected: ws, byTransport: { websocket: ws, polling: 0 }, connects: 2, disconnects: 1, errors: 3, messages: 0 },
  health: { t, loopDelayP50Ms: 1, loopDelayP99Ms: 20, loopDelayMaxMs: 30, elu: 0.2, cpuPct: 40, rssBytes: 1e8, heapUsedBytes: 5e7 }
})

/** @param {import('prom-client').Registry} registry @param {string} name */
async function values (registry, name) {
  return (await registry.getSingleMetric(name)?.get())?.values ?? []
}

test('samples, message reports and rounds become gauges, counters and histograms with run labels', async () => {
  const m = createRunMetrics({ run: 'r1', distribution: '2x10' })
  m.observeSimulator({ id: 's1', clients: 10, transport: 'websocket:70,polling:30' })
  m.observeSample('s1', sample(1000, 9))
  m.observeSample('s1', sample(1000, 9)) // the same second twice: applied once
  m.observeMessage('s1', report(10))
  m.observeRounds(/** @type {any} */ ([{ round: 1, count: 1, messages: 1, missing: 1, relative: { p50: 4, p90: 8, p99: 9, max: 9 }, absolute: null }]))
  m.observeServerSample(/** @type {any} */ ({ t: 1, connected: 9, byTransport: { websocket: 9, polling: 0 }, cpuPct: 12, rssBytes: 2e8, loopDelayP99Ms: 5 }))
  const text = await m.registry.metrics()
  assert.match(text, /ioswarm_clients_connected\{simulator="s1",transport="websocket",run="r1",distribution="2x10"\} 9/)
  assert.match(text, /ioswarm_clients_target\{simulator="s1",transport="websocket",.*\} 7/)
  assert.match(text, /ioswarm_connect_errors_total\{simulator="s1",.*\} 3/)
  assert.match(text, /ioswarm_messages_received_total\{simulator="s1",.*\} 10/)
  assert.match(text, /ioswarm_messages_missing_total\{simulator="s1",.*\} 1/)
  assert.match(text, /ioswarm_message_relative_delay_seconds_bucket\{simulator="s1",le="0.001",.*\} 2/)
  assert.match(text, /ioswarm_message_relative_delay_seconds_bucket\{simulator="s1",le="\+Inf",.*\} 10/)
  assert.match(text, /ioswarm_message_relative_delay_seconds_count\{simulator="s1",.*\} 10/)
  assert.match(text, /ioswarm_round_relative_delay_seconds\{quantile="0.99",.*\} 0.009/)
  assert.match(text, /ioswarm_simulator_loop_delay_p99_seconds\{simulator="s1",.*\} 0.02/)
  assert.match(text, /ioswarm_server_cpu_percent\{run="r1",distribution="2x10"\} 12/)
  assert.doesNotMatch(text, /ioswarm_message_latency_seconds_bucket/, 'no absolute latency without sentAt')
})

test('the simulator list gives every simulator its target by transport and up, the final report\'s once there is one', async () => {
  const m = createRunMetrics({ run: 'r' })
  m.observeSimulator({ id: 'local', clients: 5, transport: 'websocket' })
  m.observeSimulators(/** @type {any} */ ([
    { id: 'local', transport: 'websocket', alive: true, final: null, clients: { target: 5, connected: 5 } },
    { id: 'remote', transport: 'websocket:75,polling:25', alive: false, final: {}, clients: { target: 8, connected: 6 } }
  ]))
  const target = await values(m.registry, 'ioswarm_clients_target')
  assert.deepEqual(target.map((v) => [v.labels.simulator, v.labels.transport, v.value]).sort(), [
    ['local', 'websocket', 5],
    ['remote', 'polling', 2],
    ['remote', 'websocket', 6]
  ])
  const up = await values(m.registry, 'ioswarm_simulator_up')
  assert.deepEqual(up.map((v) => [v.labels.simulator, v.value]).sort(), [['local', 1], ['remote', 0]])
})

test('cardinality stays bounded with 5,000 simulators and 10,000 distinct reasons', async () => {
  const m = createRunMetrics({ run: 'r', maxSimulators: 20, maxReasons: 10 })
  for (let i = 0; i < 5000; i++) {
    m.observeSample(`sim-${i}`, sample(1000, 1))
    m.observeMessage(`sim-${i}`, report(1))
  }
  m.observeFinals(
    /** @type {any} */ (
      Array.from({ length: 100 }, (_, f) => ({
        clients: { errors: Object.fromEntries(Array.from({ length: 100 }, (_, r) => [`reason ${f * 100 + r}`, 1])), disconnects: {} }
      }))
    )
  )
  const connected = await values(m.registry, 'ioswarm_clients_connected')
  assert.equal(new Set(connected.map((v) => v.labels.simulator)).size, 21)
  assert.equal(connected.reduce((sum, v) => sum + v.value, 0), 5000, 'the folded simulators\' clients add up in "other"')
  const rss = await values(m.registry, 'ioswarm_simulator_rss_bytes')
  assert.equal(rss.find((v) => v.labels.simulator === 'other')?.value, 1e8, 'health of "other": the largest')
  const errors = await values(m.registry, 'ioswarm_connect_errors_by_reason')
  assert.equal(errors.length, 11)
  assert.equal(errors.reduce((s, v) => s + v.value, 0), 10000, 'nothing lost: the rest is in "other"')
  const histogram = await values(m.registry, 'ioswarm_message_relative_delay_seconds')
  assert.equal(new Set(histogram.map((v) => v.labels.simulator)).size, 21)
  assert.deepEqual(m.labelStats().simulators.admitted, 20)
})

test('transport mixes split a target by weight', () => {
  assert.deepEqual(transportShares('websocket'), [['websocket', 1]])
  assert.deepEqual(transportShares('websocket:75,polling:25'), [['websocket', 0.75], ['polling', 0.25]])
})
