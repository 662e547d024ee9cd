/**
 * --otlp: the real OpenTelemetry exporter pushes to a receiver in this test, which decodes
 * the OTLP JSON it gets; names, attributes and values must be those of the Prometheus
 * registry, and after a real run those of result.json.
 */
import assert from 'node:assert/strict'
import test from 'node:test'
import { ValueType } from '@opentelemetry/api'
import { AggregationTemporality, DataPointType } from '@opentelemetry/sdk-metrics'
import { createHistogram, encode, recordMs, summarize } from '../../../../lib/measure/histogram.js'
import { OTEL } from '../../../../results/metrics/otlp/otlp-convert.js'
import { startOtlpPush } from '../../../../results/metrics/otlp/otlp.js'
import { createRunMetrics } from '../../../../results/metrics/run-metrics.js'
import { runTest } from '../../../../runner/index.js'
import { runCli } from '../../../helpers/cli.js'
import { closedPort } from '../../../helpers/ports.js'
import { startOtlpReceiver } from '../../../helpers/otlp-receiver.js'
import { startTestServer } from '../../../helpers/swarm.js'
import { sample } from '../../make-reports.js'

/** @param {number[]} delaysMs @returns {any} */
function report (delaysMs) {
  const h = createHistogram()
  for (const ms of delaysMs) recordMs(h, ms)
  return {
    key: 'm|1',
    id: '1',
    event: 'm',
    round: 1,
    seq: 1,
    sentAt: null,
    firstAt: 1,
    received: delaysMs.length,
    expected: delaysMs.length + 1,
    missing: 1,
    duplicates: 0,
    late: 0,
    relative: { ...summarize(h), histogram: encode(h) },
    absolute: null
  }
}

/** AGGREGATION_TEMPORALITY_CUMULATIVE in the OTLP protocol (the SDK's own enum says 1). */
const OTLP_CUMULATIVE = 2

/** @param {Record<string, string | number | undefined>} labels */
const text = (labels) => Object.fromEntries(Object.entries(labels).map(([k, v]) => [k, String(v)]))

test('the SDK enum values the converter writes without loading the SDK', () => {
  assert.deepEqual(OTEL, {
    HISTOGRAM: DataPointType.HISTOGRAM,
    GAUGE: DataPointType.GAUGE,
    SUM: DataPointType.SUM,
    CUMULATIVE: AggregationTemporality.CUMULATIVE,
    DOUBLE: ValueType.DOUBLE
  })
})

test('every gauge, counter and histogram of the registry arrives over OTLP with its labels and values', async (t) => {
  const receiver = await startOtlpReceiver(t)
  const metrics = createRunMetrics({ run: 'r1', distribution: '1x3' })
  metrics.observeSimulator({ id: 's1', clients: 3, transport: 'websocket' })
  metrics.observeSample('s1', sample(1000, { connected: 3, loopDelayP99Ms: 20 }))
  metrics.observeMessage('s1', report([0, 3, 700, 40000]))
  const push = await startOtlpPush({ url: receiver.url, registry: () => metrics.registry, intervalMs: 60000, command: 'run' })
  await push.flush()
  await push.close()
  assert.equal(receiver.requests.length, 2, 'the flush, and the last push when closed')
  assert.match(receiver.contentTypes[0], /^application\/json/)
  const [point] = receiver.latest('ioswarm_clients_connected')
  assert.deepEqual([point.resource['service.name'], point.resource['ioswarm.command']], ['ioswarm', 'run'])

  /** @typedef {{ value: number, labels: Record<string, string | number>, metricName?: string }} PromValue */
  const prom = /** @type {{ name: string, type: unknown, values: PromValue[] }[]} */ (await metrics.registry.getMetricsAsJSON())
  let compared = 0
  for (const metric of prom) {
    const type = String(metric.type)
    if (type === 'histogram') {
      const buckets = metric.values.filter((v) => v.metricName?.endsWith('_bucket'))
      for (const count of metric.values.filter((v) => v.metricName?.endsWith('_count'))) {
        const [h] = receiver.latest(metric.name, text(count.labels))
        assert.equal(h.kind, 'histogram')
        assert.equal(h.temporality, OTLP_CUMULATIVE)
        assert.equal(h.unit, 's')
        assert.equal(h.value, count.value)
        // OTLP buckets are counts per bucket: added up they are Prometheus's cumulative `le` values.
        let cumulative = 0
        const les = h.histogram?.explicitBounds.map((le, i) => [String(le), (cumulative += /** @type {number[]} */ (h.histogram?.bucketCounts)[i])]) ?? []
        assert.deepEqual(les, buckets.filter((b) => b.labels.le !== '+Inf').map((b) => [String(b.labels.le), b.value]))
        assert.equal(h.histogram?.bucketCounts.at(-1), 1, 'the 40 s delay is past the last bound')
        assert.ok(
          Math.abs(/** @type {number} */ (h.histogram?.sum) - /** @type {number} */ (metric.values.find((v) => v.metricName?.endsWith('_sum'))?.value)) < 1e-9
        )
        compared++
      }
      continue
    }
    const name = type === 'counter' ? metric.name.replace(/_total$/, '') : metric.name
    for (const v of metric.values) {
      const points = receiver.latest(name, text(v.labels)).filter((p) => Object.keys(p.attributes).length === Object.keys(v.labels).length)
      assert.equal(points.length, 1, `${name} ${JSON.stringify(v.labels)}`)
      assert.equal(points[0].value, v.value, name)
      assert.equal(points[0].kind, type === 'counter' ? 'sum' : 'gauge')
      if (type === 'counter') assert.deepEqual([points[0].monotonic, points[0].temporality], [true, OTLP_CUMULATIVE])
      compared++
    }
  }
  assert.ok(compared >= 20, `${compared} series compared`)
  assert.equal(receiver.latest('ioswarm_messages_received', { simulator: 's1', run: 'r1', distribution: '1x3' })[0].value, 4)
})

test('a push that fails is reported once, not at every export that fails after it', async (t) => {
  const port = await closedPort()
  /** @type {Error[]} */
  const errors = []
  const metrics = createRunMetrics({ run: 'r' })
  const push = await startOtlpPush({
    url: `http://127.0.0.1:${port}/v1/metrics`,
    registry: () => metrics.registry,
    intervalMs: 500,
    command: 'simulate',
    onError: (e) => errors.push(e)
  })
  t.after(() => push.close())
  await push.flush()
  await push.flush()
  assert.equal(errors.length, 1)
  assert.match(errors[0].message, /ECONNREFUSED|connect|fetch failed/i)
})

test('run --otlp: the final push has the values result.json has', { timeout: 120000 }, async (t) => {
  const receiver = await startOtlpReceiver(t)
  const result = await runTest({
    simulators: 2,
    clientsPerSimulator: 10,
    rounds: '3x300',
    ramp: '300ms',
    pingInterval: '5s',
    otlp: receiver.url.replace('/v1/metrics', ''),
    otlpInterval: '1s'
  })
  const dist = result.distributions[0]
  const run = { run: result.run.id }
  /** @param {string} name @param {Record<string, string>} [where] */
  const sum = (name, where = {}) => receiver.latest(name, { ...run, ...where }).reduce((s, p) => s + p.value, 0)
  const rounds = dist.rounds
  assert.ok(receiver.requests.length >= 2, 'pushed during the run and at its end')
  assert.equal(sum('ioswarm_clients_target'), dist.clients.target)
  assert.equal(sum('ioswarm_messages_received'), rounds.reduce((s, r) => s + r.received, 0))
  assert.equal(sum('ioswarm_messages_received'), 2 * 10 * 3)
  assert.equal(sum('ioswarm_message_relative_delay_seconds'), rounds.reduce((s, r) => s + r.relative.count, 0), 'the histograms\' counts')
  assert.equal(sum('ioswarm_round_relative_delay_seconds', { quantile: '0.99' }), /** @type {any} */ (rounds.at(-1)).relative.p99 / 1000)
  assert.equal(sum('ioswarm_simulator_up'), 0, 'both simulators stopped')
  assert.ok(sum('ioswarm_server_rss_bytes') > 0, 'the server probe')
})

test('simulate --otlp pushes while it runs and once more at the end; a bad URL is a usage error', { timeout: 60000 }, async (t) => {
  const server = await startTestServer(t, { pingIntervalMs: 5000 })
  const receiver = await startOtlpReceiver(t)
  const done = await runCli(t, [
    'client.js', '-c', '3', '--url', server.url, '--ramp', '0', '--duration', '3s', '--id', 'simO', '--otlp',
    receiver.url, '--otlp-interval', '500ms', '--quiet'
  ])
  assert.equal(done.code, 0, done.stderr)
  assert.ok(receiver.requests.length >= 2, `${receiver.requests.length} pushes`)
  assert.equal(receiver.latest('ioswarm_clients_target', { simulator: 'simO', transport: 'websocket' })[0]?.value, 3)
  assert.equal(receiver.latest('ioswarm_connects', { simulator: 'simO' })[0]?.value, 3)
  assert.equal(receiver.latest('ioswarm_clients_target')[0].resource['ioswarm.command'], 'simulate')
  const bad = await runCli(t, ['client.js', '--url', server.url, '--otlp', 'ftp://x'])
  assert.equal(bad.code, 2)
  assert.match(bad.stderr, /--otlp must be an http/)
  const fast = await runCli(t, ['client.js', '--url', server.url, '--otlp', receiver.url, '--otlp-interval', '10ms'])
  assert.equal(fast.code, 2)
  assert.match(fast.stderr, /--otlp-interval must be at least 100ms/)
})
