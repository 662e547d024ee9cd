/**
 * `echo`: copies of a line back to the client that emitted it (never expected of its sender,
 * never received). Summed by every merge, carried into a run's messages and delivery
 * breakdown, shown in summaries and measured by the `echo` threshold.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { mergeMessageReports } from '../../../results/merge/aggregate.js'
import { deliveryBreakdown, deliveryFaults } from '../../../results/merge/delivery-rows.js'
import { mergeDeliveries } from '../../../results/merge/sim-merge.js'
import { formatEcho } from '../../../results/text/scenario-text.js'
import { evaluateThresholds, parseThreshold } from '../../../results/thresholds/thresholds.js'
import { messageReport } from '../make-reports.js'

/** @param {number} echo @param {number} [seq] */
const line = (echo, seq = 1) => ({ ...messageReport({ round: 1, seq, relativeMs: [1, 2], event: 'chat' }), echo })

test('echo is summed by the merges of workers and of a run, and carried into the delivery breakdown', () => {
  assert.equal(mergeDeliveries([line(1), line(2), messageReport({ round: 1, seq: 1, relativeMs: [3] })]).echo, 3, 'an older report: none')
  const entries = [{ simulator: 'a', report: line(1) }, { simulator: 'b', report: line(0) }, { simulator: 'a', report: line(1, 2) }]
  assert.deepEqual(mergeMessageReports(entries, {}).map((m) => [m.key, m.echo]), [['chat:1.1', 1], ['chat:1.2', 1]])
  const breakdown = deliveryBreakdown(entries, {})
  assert.deepEqual([breakdown.total.echo, breakdown.total.received], [2, 6])
})

test('echo in summaries (only when some came) and as a threshold over the copies that arrived', () => {
  assert.deepEqual(formatEcho(0), [])
  assert.deepEqual(formatEcho(4), ['echo: 4 copies of lines back to their sender (not expected of it, not counted as received)'])
  /** @type {import('../../../lib/schema/result-schema.js').RunResult} */
  const run = JSON.parse(readFileSync(new URL('../../fixtures/run-small.json', import.meta.url), 'utf8'))
  const entries = [{ simulator: 'a', report: line(3) }, { simulator: 'b', report: line(1) }]
  const withEcho = { ...run, distributions: run.distributions.map((d, k) => ({ ...d, deliveries: k === 0 ? deliveryBreakdown(entries, {}) : d.deliveries })) }
  assert.deepEqual(deliveryFaults(withEcho.distributions[0]), { misdelivered: 0, duplicated: 0, echo: 4, copies: 8 })
  const [some, none, share] = evaluateThresholds(withEcho, ['echo<=4', 'echo=0', 'echo<1%'].map(parseThreshold))
  assert.equal(some.ok, true)
  assert.match(none.actual, /^echo 4 of \d+ copies that arrived/)
  assert.equal(none.ok, false)
  assert.equal(share.ok, true)
  assert.equal(evaluateThresholds(run, [parseThreshold('echo=0')])[0].ok, true, 'a result without echoes: 0')
})
