import assert from 'node:assert/strict'
import test from 'node:test'
import { createLabelBound, OTHER_LABEL } from '../../../results/metrics/labels.js'

test('the first max values keep their label, every later one is "other"', () => {
  const bound = createLabelBound(3)
  assert.deepEqual(['a', 'b', 'a', 'c', 'd', 'e', 'b'].map((v) => bound.value(v)), ['a', 'b', 'a', 'c', OTHER_LABEL, OTHER_LABEL, 'b'])
  assert.deepEqual(bound.stats(), { admitted: 3, folded: 2 })
})

test('10,000 distinct values make at most max + 1 label values', () => {
  const bound = createLabelBound(50)
  const labels = new Set(Array.from({ length: 10000 }, (_, i) => bound.value(`room-${i}`)))
  assert.equal(labels.size, 51)
  assert.ok(labels.has(OTHER_LABEL))
})

test('a value spelled "other" cannot take a slot of its own; bad bounds are refused', () => {
  const bound = createLabelBound(2)
  assert.equal(bound.value(OTHER_LABEL), OTHER_LABEL)
  assert.equal(bound.stats().admitted, 0)
  assert.throws(() => createLabelBound(0), RangeError)
})
