import { test } from 'node:test'
import assert from 'node:assert/strict'
import { TOP_ROOMS, deliveryBreakdown, roomLabel } from '../../../results/merge/delivery-rows.js'
import { delays, messageReport, recordRoomMessages, summaryOf } from '../make-reports.js'

/**
 * @typedef {import('../../../results/collector/types.js').MessageEntry} MessageEntry
 * @typedef {import('../../../lib/schema/result-schema.js').DeliveryRow} DeliveryRow
 */

/** @param {DeliveryRow} row */
const counts = (row) => [row.messages, row.expected, row.received, row.missing, row.misdelivered, row.duplicates]

test('counts per (namespace, room, event) from real recorder reports of two simulators: wrong rooms and second copies exactly', () => {
  // Simulator a: clients 0..5 in room-0..room-2 (two each). A message for room-1 also reaches
  // room-0's clients 0 and 3; a message for room-2 reaches client 2 twice.
  const a = recordRoomMessages({
    clients: 6,
    rooms: 3,
    messages: [
      { id: 'right', room: 'room-0' },
      { id: 'wrong', room: 'room-1', to: [1, 4, 0, 3] },
      { id: 'twice', room: 'room-2', twice: [2] },
      { id: 'all', room: null }
    ]
  })
  // Simulator b: the same messages reach its own clients rightly; its room-1 misses one client.
  const b = recordRoomMessages({
    clients: 6,
    rooms: 3,
    messages: [{ id: 'right', room: 'room-0' }, { id: 'wrong', room: 'room-1', to: [1] }, { id: 'twice', room: 'room-2' }, { id: 'all', room: null }]
  })
  /** @type {MessageEntry[]} */
  const entries = [...a.map((report) => ({ simulator: 'a', report })), ...b.map((report) => ({ simulator: 'b', report }))]
  const breakdown = deliveryBreakdown(entries, {})
  assert.equal(breakdown.rooms, 3)
  assert.deepEqual(breakdown.rows.map((r) => [r.namespace, roomLabel(r), r.event, ...counts(r)]), [
    ['/', '(everyone)', 'broadcast', 1, 12, 12, 0, 0, 0],
    // By traffic: room-1 (4 + 3 copies and misses), room-2 (2 + 1 duplicate + 2), room-0 (4).
    ['/', 'room-1', 'broadcast', 1, 4, 3, 1, 2, 0],
    ['/', 'room-2', 'broadcast', 1, 4, 4, 0, 0, 1],
    ['/', 'room-0', 'broadcast', 1, 4, 4, 0, 0, 0]
  ])
  assert.deepEqual(counts(breakdown.total), [4, 24, 23, 1, 2, 1])
  assert.deepEqual(breakdown.namespaces.map((r) => [r.namespace, ...counts(r)]), [['/', 4, 24, 23, 1, 2, 1]])
  assert.equal(breakdown.total.relative.count, 23, 'misdelivered and duplicated copies are not timed')
})

test('the top rooms by traffic get rows; the others fold into one row per namespace and event, whatever their number', () => {
  const rooms = 400
  /** @type {MessageEntry[]} */
  const entries = []
  for (let r = 0; r < rooms; r++) {
    // Room r gets r % 7 + 1 copies per simulator: rooms with 7 copies are the busiest.
    for (const simulator of ['a', 'b']) {
      entries.push({ simulator, report: messageReport({ round: null, seq: r, id: `m${r}`, room: `room-${r}`, relativeMs: delays(r, r % 7 + 1, 10) }) })
    }
  }
  entries.push({ simulator: 'a', report: messageReport({ round: null, seq: 0, id: 'n0', namespace: '/news', room: 'room-0', relativeMs: [1, 2] }) })
  const breakdown = deliveryBreakdown(entries, {}, { topRooms: 5 })
  assert.equal(breakdown.rooms, rooms + 1, '/news room-0 is another room than / room-0')
  const slash = breakdown.rows.filter((r) => r.namespace === '/')
  assert.equal(slash.length, 6, 'five rooms and the fold')
  assert.deepEqual(slash.slice(0, 5).map((r) => r.room), ['room-104', 'room-111', 'room-118', 'room-125', 'room-13'], 'busiest first (14 copies), ties by name')
  const fold = slash[5]
  assert.deepEqual([fold.room, fold.foldedRooms, fold.messages], [null, rooms - 5, rooms - 5])
  assert.equal(roomLabel(fold), '(395 other rooms)')
  assert.deepEqual(
    breakdown.rows.filter((r) => r.namespace === '/news').map((r) => [r.room, r.foldedRooms]),
    [[null, 1]],
    'past the top 5: folded in its own namespace'
  )
  assert.equal(breakdown.total.messages, rooms + 1)
  assert.equal(breakdown.total.received, slash.reduce((s, r) => s + r.received, 0) + 2)
  assert.equal(deliveryBreakdown(entries, {}).rows.length, TOP_ROOMS + 1 + 1, 'by default the top 20, the fold, and /news')
})

test('delays are true percentiles of every raw delay, merged over simulators; absolute with the worst clock uncertainty', () => {
  const rel = { a: delays(1, 300, 40), b: delays(2, 50, 400) }
  const entries = /** @type {MessageEntry[]} */ (['a', 'b'].map((simulator) => ({
    simulator,
    report: messageReport({
      round: 1,
      seq: 1,
      room: 'room-1',
      relativeMs: rel[/** @type {'a' | 'b'} */ (simulator)],
      absoluteMs: rel[/** @type {'a' | 'b'} */ (simulator)].map((d) => d + 5),
      sentAt: 1
    })
  })))
  const clocks = { a: { offsetMs: 0, uncertaintyMs: 0.5, reference: 'redis' }, b: { offsetMs: 0, uncertaintyMs: 2, reference: 'redis' } }
  const [row] = deliveryBreakdown(entries, clocks).rows
  const direct = summaryOf([...rel.a, ...rel.b])
  assert.deepEqual([row.relative.count, row.relative.p50, row.relative.p90, row.relative.p99], [direct.count, direct.p50, direct.p90, direct.p99])
  const mean = (summaryOf(rel.a).p99 + summaryOf(rel.b).p99) / 2
  assert.notEqual(row.relative.p99, mean, 'not an average of the simulators\' percentiles')
  assert.equal(row.absolute?.p99, summaryOf([...rel.a, ...rel.b].map((d) => d + 5)).p99)
  assert.equal(row.absolute?.uncertaintyMs, 2)
})

test('older reports (no namespace, no room, no misdelivered) read as messages to everyone on /', () => {
  const entries = [{ simulator: 'a', report: messageReport({ round: 1, seq: 1, relativeMs: [1, 2, 3], missing: 1 }) }]
  const breakdown = deliveryBreakdown(entries, {})
  assert.deepEqual(breakdown.rows.map((r) => [r.namespace, r.room, r.foldedRooms, r.event, ...counts(r)]), [['/', null, 0, 'broadcast', 1, 4, 3, 1, 0, 0]])
  assert.equal(breakdown.rooms, 0)
  assert.deepEqual(counts(deliveryBreakdown([], {}).total), [0, 0, 0, 0, 0, 0])
  assert.equal(deliveryBreakdown([], {}).total.absolute, null)
})
