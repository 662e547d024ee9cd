import { test } from 'node:test'
import assert from 'node:assert/strict'
import { OTHER_REASONS } from '../../../lib/reasons.js'
import { ackTimeOf, emitCounts, mergeNamespaceCounts, mergeScenarioReports } from '../../../results/merge/scenario-merge.js'
import { delays, encodedDelay, summaryOf } from '../make-reports.js'

/**
 * A simulator's ScenarioReport, as simulator/traffic/behaviours.js and scenario.js record it.
 * @param {number} seed
 * @param {{ ack?: boolean, hooks?: boolean, reasons?: Record<string, number> }} [options]
 * @returns {import('../../../lib/schema/result-schema.js').ScenarioReport}
 */
function scenarioReport (seed, { ack = true, hooks = true, reasons = {} } = {}) {
  return {
    joins: {
      event: 'join',
      sent: 10 * seed,
      acked: 9 * seed,
      unacked: seed - 1,
      failed: 1,
      reasons: { 'no such room': 1 },
      time: encodedDelay(delays(seed, 9 * seed, 20))
    },
    emits: {
      event: 'chat',
      emitters: seed,
      sent: 50 * seed,
      acked: ack ? 48 * seed : 0,
      timedOut: ack ? 2 * seed : 0,
      failed: 0,
      reasons,
      ackTime: ack ? encodedDelay(delays(seed + 10, 48 * seed, 100)) : null
    },
    ...(hooks
      ? {
          hooks: {
            calls: { identity: 0, onConnect: 10 * seed, onEvent: 100 * seed, onDisconnect: 0 },
            errors: { 'boom <b>': seed },
            emits: { sent: 5, acked: 4, timedOut: 1, failed: 0, ackTime: encodedDelay(delays(seed + 20, 4, 300)) }
          }
        }
      : {})
  }
}

test('counts are summed, reasons merged, histograms merged into true percentiles', () => {
  const merged = mergeScenarioReports([scenarioReport(1), undefined, scenarioReport(2), null])
  assert.ok(merged?.joins && merged.emits && merged.hooks)
  assert.deepEqual(
    { ...merged.joins, time: undefined },
    { event: 'join', sent: 30, acked: 27, unacked: 1, failed: 2, reasons: { 'no such room': 2 }, time: undefined }
  )
  const joinTimes = [...delays(1, 9, 20), ...delays(2, 18, 20)]
  assert.deepEqual([merged.joins.time.count, merged.joins.time.p50, merged.joins.time.p99], [27, summaryOf(joinTimes).p50, summaryOf(joinTimes).p99])
  assert.deepEqual([merged.emits.emitters, merged.emits.sent, merged.emits.acked, merged.emits.timedOut], [3, 150, 144, 6])
  const acks = [...delays(11, 48, 100), ...delays(12, 96, 100)]
  assert.equal(merged.emits.ackTime?.p99, summaryOf(acks).p99)
  assert.ok(merged.emits.ackTime?.histogram, 'the merged histogram travels on, to be merged again')
  assert.deepEqual(merged.hooks.calls, { identity: 0, onConnect: 30, onEvent: 300, onDisconnect: 0 })
  assert.deepEqual(merged.hooks.errors, { 'boom <b>': 3 })
  assert.deepEqual([merged.hooks.emits.sent, merged.hooks.emits.acked, merged.hooks.emits.timedOut, merged.hooks.emits.ackTime.count], [10, 8, 2, 8])
})

test('nothing to merge is undefined; emits without acks stay without; a part only some processes had is kept', () => {
  assert.equal(mergeScenarioReports([]), undefined)
  assert.equal(mergeScenarioReports([undefined, null]), undefined)
  const noAck = mergeScenarioReports([scenarioReport(1, { ack: false, hooks: false }), scenarioReport(2, { ack: false, hooks: false })])
  assert.equal(noAck?.emits?.ackTime, null)
  assert.equal(noAck?.hooks, undefined)
  const onlyJoins = mergeScenarioReports([{ joins: scenarioReport(1).joins }, { hooks: scenarioReport(2).hooks }])
  assert.deepEqual(Object.keys(onlyJoins ?? {}).sort(), ['hooks', 'joins'])
})

test('reasons stay bounded when every process brings new ones', () => {
  const reports = Array.from({ length: 80 }, (_, k) => scenarioReport(1, { reasons: { [`reason ${k}`]: 1 } }))
  const reasons = /** @type {Record<string, number>} */ (mergeScenarioReports(reports)?.emits?.reasons)
  assert.equal(Object.keys(reasons).length, 51)
  assert.equal(reasons[OTHER_REASONS], 30)
})

test('ack time: --emit acks and the hooks\' emitWithAck merged; counts of both', () => {
  const report = scenarioReport(1)
  const ack = ackTimeOf(report)
  const all = [...delays(11, 48, 100), ...delays(21, 4, 300)]
  assert.deepEqual([ack?.count, ack?.p90, ack?.p99], [52, summaryOf(all).p90, summaryOf(all).p99])
  assert.equal(ackTimeOf(scenarioReport(1, { ack: false, hooks: false })), null)
  assert.equal(ackTimeOf(undefined), null)
  assert.deepEqual(emitCounts(report), { sent: 55, acked: 52, timedOut: 3, failed: 0, closed: 0 })
  assert.deepEqual(emitCounts(undefined), { sent: 0, acked: 0, timedOut: 0, failed: 0, closed: 0 })
})

test('namespaces: summed by name in order of first appearance, refusals by reason', () => {
  /** @type {import('../../../lib/schema/result-schema.js').NamespaceCounts[]} */
  const a = [
    { name: '/', connected: 5, connects: 6, disconnects: { 'transport close': 1 }, refused: {} },
    { name: '/admin', connected: 0, connects: 0, disconnects: {}, refused: { unauthorized: 5 } }
  ]
  /** @type {import('../../../lib/schema/result-schema.js').NamespaceCounts[]} */
  const b = [
    { name: '/', connected: 4, connects: 4, disconnects: {}, refused: {} },
    { name: '/admin', connected: 1, connects: 1, disconnects: {}, refused: { unauthorized: 3, ['__proto__']: 1 } }
  ]
  const merged = mergeNamespaceCounts([a, undefined, b])
  assert.deepEqual(merged?.map((n) => [n.name, n.connected, n.connects]), [['/', 9, 10], ['/admin', 1, 1]])
  assert.deepEqual(merged?.[1].refused, Object.fromEntries([['unauthorized', 8], ['__proto__', 1]]), '__proto__ is a reason like any other')
  assert.equal(Object.getPrototypeOf(merged?.[1].refused), Object.prototype)
  assert.equal(mergeNamespaceCounts([undefined, undefined]), undefined)
})
