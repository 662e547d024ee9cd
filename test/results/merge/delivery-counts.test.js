import { test } from 'node:test'
import assert from 'node:assert/strict'
import { addDeliveryCounts, emptyDeliveryCounts } from '../../../results/merge/delivery-counts.js'

test('delivery counts add up field by field; a count a report leaves out adds 0', () => {
  const total = emptyDeliveryCounts()
  assert.deepEqual(total, { expected: 0, received: 0, missing: 0, misdelivered: 0, duplicates: 0, echo: 0 })
  addDeliveryCounts(total, { expected: 10, received: 9, missing: 1, misdelivered: 2, duplicates: 3, echo: 4 })
  addDeliveryCounts(total, { expected: 5, received: 5, missing: 0 })
  assert.deepEqual(total, { expected: 15, received: 14, missing: 1, misdelivered: 2, duplicates: 3, echo: 4 })
  assert.notEqual(emptyDeliveryCounts(), emptyDeliveryCounts(), 'a new object each time')
})
