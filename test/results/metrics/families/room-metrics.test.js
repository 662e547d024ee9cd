import assert from 'node:assert/strict'
import test from 'node:test'
import { createHistogram, encode, recordMs, summarize } from '../../../../lib/measure/histogram.js'
import { createRunMetrics } from '../../../../results/metrics/run-metrics.js'

/**
 * @param {{ room?: string | null, namespace?: string, received: number, misdelivered?: number }} o
 * @returns {any}
 */
function report ({ room, namespace, received, misdelivered }) {
  const h = createHistogram()
  for (let i = 0; i < received; i++) recordMs(h, i)
  return {
    key: `m|${Math.random()}`,
    id: '1',
    event: 'm',
    namespace,
    room,
    round: 1,
    seq: 1,
    sentAt: null,
    firstAt: 1,
    received,
    expected: received + 1,
    missing: 1,
    duplicates: 0,
    misdelivered,
    late: 0,
    relative: { ...summarize(h), histogram: encode(h) },
    absolute: null
  }
}

/** @param {import('prom-client').Registry} registry @param {string} name */
async function byLabels (registry, name) {
  const values = (await registry.getSingleMetric(name)?.get())?.values ?? []
  return Object.fromEntries(
    values
      .filter((v) => !('le' in v.labels) && !/_sum$/.test(/** @type {any} */ (v).metricName ?? ''))
      .map((v) => [`${v.labels.namespace} ${v.labels.room}`, v.value])
  )
}

test('deliveries by namespace and room, summed over simulators; a message without a room is room ""', async () => {
  const m = createRunMetrics({ run: 'r' })
  m.observeMessage('s1', report({ room: 'room-0', received: 3, misdelivered: 1 }))
  m.observeMessage('s2', report({ room: 'room-0', received: 2 }))
  m.observeMessage('s1', report({ room: 'room-1', namespace: '/chat', received: 4 }))
  m.observeMessage('s1', report({ received: 5 }))
  assert.deepEqual(await byLabels(m.registry, 'ioswarm_room_received_total'), { '/ room-0': 5, '/chat room-1': 4, '/ ': 5 })
  assert.deepEqual(await byLabels(m.registry, 'ioswarm_room_missing_total'), { '/ room-0': 2, '/chat room-1': 1, '/ ': 1 })
  assert.deepEqual(await byLabels(m.registry, 'ioswarm_room_misdelivered_total'), { '/ room-0': 1, '/chat room-1': 0, '/ ': 0 })
  assert.deepEqual(await byLabels(m.registry, 'ioswarm_room_messages_total'), { '/ room-0': 2, '/chat room-1': 1, '/ ': 1 })
  const text = await m.registry.metrics()
  assert.match(text, /ioswarm_room_relative_delay_seconds_count\{namespace="\/",room="room-0",run="r",distribution=""\} 5/)
})

test('10,000 rooms and 100 namespaces make at most 51 × 21 label sets', async () => {
  const m = createRunMetrics({ run: 'r' })
  for (let i = 0; i < 10_000; i++) m.observeMessage(`s${i % 7}`, report({ room: `room-${i}`, namespace: `/n${i % 100}`, received: 1 }))
  const received = (await m.registry.getSingleMetric('ioswarm_room_received_total')?.get())?.values ?? []
  assert.ok(new Set(received.map((v) => v.labels.room)).size <= 51)
  assert.ok(new Set(received.map((v) => v.labels.namespace)).size <= 21)
  assert.equal(received.reduce((s, v) => s + v.value, 0), 10_000, 'nothing lost: the rest is in "other"')
  assert.deepEqual([m.labelStats().rooms.admitted, m.labelStats().namespaces.admitted], [50, 20])
  const histogramSeries = new Set(
    ((await m.registry.getSingleMetric('ioswarm_room_relative_delay_seconds')?.get())?.values ?? []).map((v) => `${v.labels.namespace} ${v.labels.room}`)
  )
  assert.ok(histogramSeries.size <= received.length)
})
