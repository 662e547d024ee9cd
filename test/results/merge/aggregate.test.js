import { test } from 'node:test'
import { createCustomFigures } from '../../../lib/measure/custom-measures.js'
import assert from 'node:assert/strict'
import { buildDistribution, groupRounds, meanOfMeans, mergeMessageReports, messageFloor } from '../../../results/merge/aggregate.js'
import { isSaturated } from '../../../lib/measure/process-sampler.js'
import { simulatorStatus } from '../../../results/collector/status.js'
import { deliveryBreakdown } from '../../../results/merge/delivery-rows.js'
import { messageResults } from '../../../results/merge/message-results.js'
import { delays, encodedDelay, finalReport, messageReport, summaryOf } from '../make-reports.js'

/**
 * Merged summaries equal direct ones; max is within the histogram's precision after decoding.
 * @param {import('../../../lib/schema/result-schema.js').DelaySummary} actual
 * @param {import('../../../lib/schema/result-schema.js').DelaySummary} expected
 */
function assertSummary (actual, expected) {
  assert.deepEqual({ ...actual, max: 0 }, { ...expected, max: 0 })
  assert.ok(Math.abs(actual.max - expected.max) <= expected.max * 0.001, `max ${actual.max} vs ${expected.max}`)
}

const CLOCKS = { a: { offsetMs: 0, uncertaintyMs: 0.3, reference: 'redis' }, b: { offsetMs: 0, uncertaintyMs: 4, reference: 'redis' } }

test('absolute latency merges only the simulators that measured it, with their uncertainty', () => {
  const withSentAt = messageReport({ round: 1, seq: 1, relativeMs: [1, 2, 3], absoluteMs: [10, 11, 12], sentAt: 5 })
  const without = messageReport({ round: 1, seq: 1, relativeMs: [4, 5], sentAt: null })
  const [m] = mergeMessageReports([{ simulator: 'b', report: without }, { simulator: 'a', report: withSentAt }], CLOCKS)
  assert.equal(m.sentAt, 5)
  assert.equal(m.received, 5)
  assertSummary(m.relative, summaryOf([1, 2, 3, 4, 5]))
  assert.ok(m.absolute)
  const { uncertaintyMs, ...absolute } = m.absolute
  assertSummary(absolute, summaryOf([10, 11, 12]))
  assert.equal(uncertaintyMs, 0.3)
  assert.deepEqual(m.avgOfAverages, { relativeMs: (summaryOf([1, 2, 3]).mean + summaryOf([4, 5]).mean) / 2, absoluteMs: summaryOf([10, 11, 12]).mean })
})

test('the average of averages weighs simulators equally, unlike the merged mean', () => {
  const big = delays(1, 900, 10)
  const small = delays(2, 100, 200)
  const [m] = mergeMessageReports([
    { simulator: 'a', report: messageReport({ round: 1, seq: 1, relativeMs: big }) },
    { simulator: 'b', report: messageReport({ round: 1, seq: 1, relativeMs: small }) }
  ], CLOCKS)
  assert.equal(m.avgOfAverages.relativeMs, Math.round((summaryOf(big).mean + summaryOf(small).mean) / 2 * 1000) / 1000)
  assert.equal(m.relative.mean, summaryOf([...big, ...small]).mean)
  assert.ok(m.avgOfAverages.relativeMs > m.relative.mean * 2, 'the two figures differ a lot on unequal simulators')
})

test('messages sort by round and seq (unnumbered last), then first receipt', () => {
  const entries = [
    messageReport({ round: null, seq: null, relativeMs: [1], firstAt: 1, event: 'x' }),
    messageReport({ round: 2, seq: 1, relativeMs: [1], firstAt: 2 }),
    messageReport({ round: 1, seq: 2, relativeMs: [1], firstAt: 3 }),
    messageReport({ round: null, seq: null, relativeMs: [1], firstAt: 0, event: 'y' }),
    messageReport({ round: 1, seq: 1, relativeMs: [1], firstAt: 9 })
  ].map((report) => ({ simulator: 'a', report }))
  assert.deepEqual(mergeMessageReports(entries, {}).map((m) => m.key), ['broadcast:1.1', 'broadcast:1.2', 'broadcast:2.1', 'y:free-null', 'x:free-null'])
})

test('rounds: planned ones in order, round 0 (outside rounds) when seen, unnumbered messages in none', () => {
  const entries = [
    messageReport({ round: 0, seq: 1, relativeMs: [1, 2] }),
    messageReport({ round: 2, seq: 1, relativeMs: [3], missing: 2 }),
    messageReport({ round: null, seq: 7, relativeMs: [4] })
  ].map((report) => ({ simulator: 'a', report }))
  const rounds = groupRounds(entries, {}, [{ count: 5, intervalMs: 1000 }, { count: 5, intervalMs: 500 }])
  assert.deepEqual(rounds.map((r) => [r.round, r.count, r.intervalMs, r.messages, r.received, r.missing]),
    [[0, 0, 0, 1, 2, 0], [1, 5, 1000, 0, 0, 0], [2, 5, 500, 1, 1, 2]])
  assert.deepEqual(rounds[1].avgOfAverages, { relativeMs: 0, absoluteMs: null })
})

test('a message\'s floor: the simulator with the largest CPU, with its spread, and the busiest share of any', () => {
  const report = (/** @type {import('../../../lib/schema/result-schema.js').FloorReport | undefined} */ floor) =>
    messageReport({ round: 1, seq: 1, relativeMs: [1], floor })
  const floor = messageFloor([
    { simulator: 'a', report: report({ cpuMs: 45, spreadMs: 50 }) }, // busy all along, but not the slowest drain
    { simulator: 'b', report: report({ cpuMs: 60, spreadMs: 600 }) },
    { simulator: 'c', report: report(undefined) }, // an older simulator: no floor
    { simulator: 'd', report: report({ cpuMs: 0, spreadMs: 0 }) }, // one receipt: no share
    { simulator: 'e', report: report(/** @type {any} */ ({ cpuMs: '999', spreadMs: null })) } // malformed: skipped
  ])
  assert.deepEqual(floor, { cpuMs: 60, spreadMs: 600, simulator: 'b', busyMax: 0.9 })
  assert.equal(messageFloor([{ simulator: 'c', report: report(undefined) }]), null)
  const [m] = mergeMessageReports([{ simulator: 'a', report: report({ cpuMs: 2, spreadMs: 8 }) }], {})
  assert.deepEqual(m.floor, { cpuMs: 2, spreadMs: 8, simulator: 'a', busyMax: 0.25 })
})

test('a round\'s floor: median and largest of its messages\' floors; null when no simulator reported one', () => {
  const entries = [[1, 'a', 4, 40], [1, 'b', 9, 12], [2, 'a', 2, 20], [3, 'a', 6, 30], [3, 'b', 1, 2]].map(([seq, simulator, cpuMs, spreadMs]) =>
    ({
      simulator: String(simulator),
      report: messageReport({ round: 1, seq: Number(seq), relativeMs: [1], floor: { cpuMs: Number(cpuMs), spreadMs: Number(spreadMs) } })
    }))
  entries.push({ simulator: 'a', report: messageReport({ round: 2, seq: 1, relativeMs: [1] }) })
  const [one, two] = groupRounds(entries, {})
  // message floors: 1.1 → 9 (b, 12 ms), 1.2 → 2, 1.3 → 6; shares up to 9/12 = 0.75
  assert.deepEqual(one.floor, { messages: 3, p50Ms: 6, maxMs: 9, spreadAtMaxMs: 12, busyMax: 0.75 })
  assert.equal(two.floor, null)
})

test('saturation: event-loop utilisation ≥ 0.9 or loop delay p99 ≥ 50 ms', () => {
  const base = { t: 0, loopDelayP50Ms: 0, loopDelayMaxMs: 0, cpuPct: 0, rssBytes: 0, heapUsedBytes: 0 }
  assert.equal(isSaturated({ ...base, elu: 0.9, loopDelayP99Ms: 0 }), true)
  assert.equal(isSaturated({ ...base, elu: 0.89, loopDelayP99Ms: 49.9 }), false)
  assert.equal(isSaturated({ ...base, elu: 0, loopDelayP99Ms: 50 }), true)
  assert.equal(meanOfMeans([null, { count: 0, mean: 0, min: 0, max: 0, p50: 0, p90: 0, p99: 0 }]), null)
})

test('a distribution sums clients (connect errors by reason too) from finals, counts the target of simulators without one, merges connect times', () => {
  const info = (/** @type {string} */ id, /** @type {number} */ clients) => ({
    id,
    hostname: 'h',
    pid: 1,
    clients,
    transport: 'polling',
    engine: 'sio',
    startedAt: 0
  })
  const fa = finalReport({ target: 100, connected: 98, failed: 2, connectMs: delays(5, 98, 300) })
  const fb = finalReport({ target: 120, connected: 120, failed: 0, connectMs: delays(6, 120, 900) })
  const simulatorList = [
    simulatorStatus(info('a', 100), { alive: true, lastHeartbeatAt: 1, final: fa, clock: null, last: null }),
    simulatorStatus(info('b', 120), { alive: false, lastHeartbeatAt: 1, final: fb, clock: null, last: null }),
    simulatorStatus(info('c', 80), { alive: false, lastHeartbeatAt: null, final: null, clock: null, last: null })
  ]
  const d = buildDistribution({
    name: '3x100',
    simulators: 3,
    clientsPerSimulator: 100,
    startedAt: 1,
    endedAt: 2,
    messages: [],
    rounds: [],
    samples: { timeline: [], health: [], server: [] },
    finals: [{ ...fa, simulator: 'a' }, { ...fb, simulator: 'b' }],
    simulatorList
  })
  assert.deepEqual(d.clients, { target: 300, connected: 218, failed: 2, errors: { timeout: 2 }, disconnects: {}, unmeasuredEvents: {}, storms: [] })
  const all = summaryOf([...delays(5, 98, 300), ...delays(6, 120, 900)])
  assert.deepEqual([d.connectTime.count, d.connectTime.p50, d.connectTime.p99], [all.count, all.p50, all.p99])
  assert.equal(d.connectTime.curve.at(-1)?.percentile, 100)
  assert.deepEqual(
    d.simulatorList.map((s) => [s.id, s.stale, s.clock.reference, Object.keys(s).length]),
    [['a', false, 'local', 9], ['b', false, 'local', 9], ['c', true, 'unmeasured', 9]]
  )
})

test('a message across simulators keeps its namespace and room and sums wrong and second copies; its round too', () => {
  const entries = ['a', 'b'].map((simulator, k) => ({
    simulator,
    report: messageReport({ round: 1, seq: 1, namespace: '/chat', room: 'room-7', relativeMs: [1, 2], misdelivered: k + 1, duplicates: k })
  }))
  entries.push({ simulator: 'a', report: messageReport({ round: 1, seq: 2, relativeMs: [3] }) })
  const [m, older] = mergeMessageReports(entries, {})
  assert.deepEqual([m.key, m.namespace, m.room, m.received, m.misdelivered, m.duplicates], ['/chat#broadcast:1.1', '/chat', 'room-7', 4, 3, 1])
  assert.deepEqual([older.namespace, older.room, older.misdelivered], ['/', null, 0], 'an older report: on /, for everyone')
  const [round] = groupRounds(entries, {})
  assert.deepEqual([round.received, round.misdelivered, round.duplicates], [5, 3, 1])
})

test('a distribution merges its simulators\' joins, emits and namespaces, and carries its delivery breakdown', () => {
  const scenario = (/** @type {number} */ seed) => ({
    joins: { event: 'join', sent: 5, acked: 4, unacked: 0, failed: 1, reasons: { 'no such room': 1 }, time: encodedDelay(delays(seed, 4, 30)) },
    emits: { event: 'chat', emitters: 1, sent: 20, acked: 20, timedOut: 0, failed: 0, reasons: {}, ackTime: encodedDelay(delays(seed + 5, 20, 90)) }
  })
  const final = (/** @type {number} */ seed) => {
    const f = finalReport({ target: 5, connected: 5, failed: 0, connectMs: [1] })
    const custom = createCustomFigures()
    custom.timing('join_lobby', 10 * seed)
    custom.count('joined', seed)
    return {
      ...f,
      clients: { ...f.clients, namespaces: [{ name: '/chat', connected: 5, connects: 5 + seed, disconnects: {}, refused: { unauthorized: seed } }] },
      scenario: scenario(seed),
      custom: custom.record() ?? undefined
    }
  }
  const deliveries = deliveryBreakdown([{ simulator: 'a', report: messageReport({ round: 1, seq: 1, room: 'room-1', relativeMs: [1], misdelivered: 2 }) }], {})
  const d = buildDistribution({
    name: '2x5',
    simulators: 2,
    clientsPerSimulator: 5,
    startedAt: 1,
    endedAt: 2,
    messages: [],
    rounds: [],
    samples: { timeline: [], health: [], server: [] },
    finals: [{ ...final(1), simulator: 'a' }, { ...final(2), simulator: 'b' }],
    simulatorList: [],
    deliveries
  })
  assert.deepEqual(d.clients.namespaces, [{ name: '/chat', connected: 10, connects: 13, disconnects: {}, refused: { unauthorized: 3 } }])
  assert.deepEqual([d.scenario?.joins?.sent, d.scenario?.joins?.failed, d.scenario?.emits?.acked], [10, 2, 40])
  assert.equal(d.scenario?.emits?.ackTime?.p99, summaryOf([...delays(6, 20, 90), ...delays(7, 20, 90)]).p99)
  assert.equal(d.deliveries?.total.misdelivered, 2)
  assert.deepEqual(
    [d.custom?.counts.joined, d.custom?.timings.join_lobby.count, d.custom?.timings.join_lobby.min],
    [3, 2, 10],
    'the hooks\' own figures, merged'
  )
  const plain = buildDistribution({
    ...d,
    deliveries: undefined,
    messages: [],
    rounds: [],
    samples: { timeline: [], health: [], server: [] },
    finals: [{ ...finalReport({ target: 1, connected: 1, failed: 0, connectMs: [1] }), simulator: 'a' }],
    simulatorList: []
  })
  assert.deepEqual(
    ['scenario' in plain, 'deliveries' in plain, 'namespaces' in plain.clients, 'custom' in plain],
    [false, false, false, false],
    'nothing of the kind: no field'
  )
})

test('messages, rounds and deliveries from each report decoded once are what the three merges give', () => {
  // Rooms, two namespaces, rounds and free messages, absolute from one simulator only, and one
  // message whose reports fall in two delivery rows (its parts are merged per row, then added).
  const spec = [
    { round: 1, seq: 1, room: 'r1' }, { round: 1, seq: 2, room: 'r2' }, { round: 2, seq: 1, namespace: '/chat', room: 'r1' },
    { round: null, seq: 1, event: 'chat' }, { round: 2, seq: 2 }
  ]
  const entries = spec.flatMap((m, k) => ['a', 'b'].map((simulator, s) => ({
    simulator,
    report: messageReport({
      ...m,
      ...(k === 1 && s === 1 ? { room: 'r1' } : {}),
      relativeMs: delays(k * 2 + s + 1, 5 + k, 3),
      absoluteMs: simulator === 'a' ? delays(k + 7, 4, 5) : null,
      sentAt: simulator === 'a' ? 5 : null
    })
  })))
  const planned = [{ count: 2, intervalMs: 100 }, { count: 2, intervalMs: 100 }, { count: 1, intervalMs: 100 }]
  const one = messageResults(entries, CLOCKS, planned, 2)
  assert.deepEqual(one, {
    messages: mergeMessageReports(entries, CLOCKS),
    rounds: groupRounds(entries, CLOCKS, planned),
    deliveries: deliveryBreakdown(entries, CLOCKS, { topRooms: 2 })
  })
  assert.deepEqual(one.deliveries.rows.map((r) => [r.namespace, r.room, r.foldedRooms, r.event, r.messages]), [
    ['/', null, 0, 'broadcast', 1], ['/', null, 0, 'chat', 1], ['/', 'r1', 0, 'broadcast', 2], ['/', null, 1, 'broadcast', 1],
    ['/chat', 'r1', 0, 'broadcast', 1]
  ], 'message 1.2 is in two rows: r1 and the folded room')
  assert.deepEqual([one.messages.length, one.rounds.length], [5, 3])
})
