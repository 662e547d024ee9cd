import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createHistogram, encode, recordMs } from '../../lib/histogram.js'
import { groupBy, mergeDeliveries } from '../../results/merge.js'

/**
 * A message report of one process.
 * @param {number[]} delaysMs
 * @param {Partial<import('../../lib/schema.js').MessageReport>} [over]
 */
function report (delaysMs, over = {}) {
  const h = createHistogram()
  for (const d of delaysMs) recordMs(h, d)
  return /** @type {import('../../lib/schema.js').MessageReport} */ (/** @type {unknown} */ ({
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

test('groupBy keeps the order of first appearance, with keys of any type', () => {
  const groups = groupBy([3, 1, 4, 1, 5, 9, 2, 6], (n) => n % 3)
  assert.deepEqual([...groups.entries()], [[0, [3, 9, 6]], [1, [1, 4, 1]], [2, [5, 2]]])
})
