import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createHistogram, encode, recordMs } from '../../../lib/measure/histogram.js'
import { groupBy, mergeDeliveries, mergeSimResults } from '../../../results/merge/sim-merge.js'
import { delays, encodedDelay, recordRoomMessages, simResult, summaryOf } from '../make-reports.js'

/**
 * A message report of one process.
 * @param {number[]} delaysMs
 * @param {Partial<import('../../../lib/schema/result-schema.js').MessageReport>} [over]
 */
function report (delaysMs, over = {}) {
  const h = createHistogram()
  for (const d of delaysMs) recordMs(h, d)
  return /** @type {import('../../../lib/schema/result-schema.js').MessageReport} */ (/** @type {unknown} */ ({
    key: 'm1',
    id: 'm1',
    event: 'broadcast',
    round: 1,
    seq: 1,
    firstAt: 1000 + delaysMs.length,
    received: delaysMs.length,
    expected: delaysMs.length + 1,
    missing: 1,
    duplicates: 0,
    late: 2,
    relative: { histogram: encode(h) },
    absolute: { histogram: encode(h), negative: 1 },
    ...over
  }))
}

test('mergeDeliveries: counts summed, histograms merged exactly, the earliest first receipt', () => {
  const merged = mergeDeliveries([report([1, 2, 3]), report([10, 20])])
  assert.deepEqual([merged.received, merged.expected, merged.missing, merged.late, merged.firstAt], [5, 7, 2, 4, 1002])
  assert.equal(merged.relative.count, 5)
  assert.ok(merged.relative.max >= 19.9 && merged.relative.max <= 20.1, String(merged.relative.max))
  assert.equal(merged.absolute?.negative, 2)
  assert.ok(merged.relative.histogram.length > 0)
  const light = mergeDeliveries([report([1, 2, 3]), report([10, 20])], { histograms: false })
  assert.equal(light.relative.histogram, '', 'no encoding when only the summary is needed')
  assert.equal(light.relative.p99, merged.relative.p99)
  assert.equal(mergeDeliveries([report([1], { absolute: null })]).absolute, null)
})

test('mergeDeliveries sums misdelivered copies (absent from older reports: none)', () => {
  const merged = mergeDeliveries([report([1], { misdelivered: 3, duplicates: 1 }), report([2], { misdelivered: 2 }), report([3])])
  assert.deepEqual([merged.misdelivered, merged.duplicates, merged.received], [5, 1, 3])
})

test('mergeSimResults (--workers): messages keep their room and sum misdelivered copies; joins, emits and namespaces merged', () => {
  // Two workers, each with its own clients in rooms: the same message reaches a wrong client in both.
  const spec = { clients: 6, rooms: 3, messages: [{ id: 'm1', room: 'room-1', to: [1, 4, 0] }, { id: 'all', room: null, twice: [5] }] }
  /** @type {(refused: number) => import('../../../lib/schema/result-schema.js').NamespaceCounts[]} */
  const nsp = (refused) => [
    { name: '/', connected: 6, connects: 6, disconnects: {}, refused: {} },
    { name: '/admin', connected: 0, connects: 0, disconnects: {}, refused: { unauthorized: refused } }
  ]
  const emits = (/** @type {number} */ seed) => ({
    emits: { event: 'chat', emitters: 2, sent: 10, acked: 9, timedOut: 1, failed: 0, reasons: {}, ackTime: encodedDelay(delays(seed, 9)) }
  })
  const merged = mergeSimResults([
    simResult('w1', { messages: recordRoomMessages(spec), clients: { ...simResult('w', {}).clients, namespaces: nsp(6) }, scenario: emits(1) }),
    simResult('w2', { messages: recordRoomMessages(spec), clients: { ...simResult('w', {}).clients, namespaces: nsp(2) }, scenario: emits(2) })
  ], 'sim')
  const byId = Object.fromEntries(merged.messages.map((m) => [m.id, m]))
  assert.deepEqual([byId.m1.room, byId.m1.expected, byId.m1.received, byId.m1.misdelivered], ['room-1', 4, 4, 2])
  assert.deepEqual([byId.all.room, byId.all.received, byId.all.duplicates], [null, 12, 2])
  assert.deepEqual(merged.clients.namespaces?.map((n) => [n.name, n.connected, n.refused]), [['/', 12, {}], ['/admin', 0, { unauthorized: 8 }]])
  assert.deepEqual([merged.scenario?.emits?.sent, merged.scenario?.emits?.timedOut], [20, 2])
  assert.equal(merged.scenario?.emits?.ackTime?.p99, summaryOf([...delays(1, 9), ...delays(2, 9)]).p99)
  const plain = mergeSimResults([simResult('w1', {}), simResult('w2', {})], 'sim')
  assert.equal('scenario' in plain, false, 'no scenario when no worker had one')
  assert.equal('namespaces' in plain.clients, false)
})

test('groupBy keeps the order of first appearance, with keys of any type', () => {
  const groups = groupBy([3, 1, 4, 1, 5, 9, 2, 6], (n) => n % 3)
  assert.deepEqual([...groups.entries()], [[0, [3, 9, 6]], [1, [1, 4, 1]], [2, [5, 2]]])
})

test('mergeSimResults (--workers): a worker\'s two samples in one second are its one level, not added twice', () => {
  /** @type {(t: number, connected: number, connects: number) => import('../../../lib/schema/result-schema.js').TimelinePoint} */
  const point = (t, connected, connects) =>
    ({ t, connected, byTransport: { websocket: connected, polling: 0 }, connects, disconnects: 0, errors: 1, messages: 3 })
  // Worker A samples at 1.49 s and 2.51 s; worker B at 1.51 s and 2.49 s: both of B's round to second 2.
  const a = simResult('w0', { timeline: [point(1490, 100, 100), point(2510, 200, 100)] })
  const b = simResult('w1', { timeline: [point(1510, 150, 150), point(2490, 250, 100)] })
  const merged = mergeSimResults([a, b], 'sim')
  assert.deepEqual(merged.timeline.map((p) => [Math.round(p.t / 1000), p.connected, p.byTransport.websocket, p.connects, p.errors]), [
    [1, 100, 100, 100, 1], // A alone
    [2, 250, 250, 250, 2], // B's later level, both its counts; A has none in this second
    [3, 200, 200, 100, 1] // A alone
  ])
})
