import { test } from 'node:test'
import assert from 'node:assert/strict'
import { formatLayout } from '../../../lib/text/format.js'

test('a layout states the whole swarm: processes × each = total, an uneven split as a range', () => {
  assert.equal(formatLayout(4, 20000, 'simulator'), '4 simulators × 5,000 = 20,000 clients')
  assert.equal(formatLayout(4, 20001, 'worker'), '4 workers × 5,000-5,001 = 20,001 clients')
  assert.equal(formatLayout(1, 1, 'simulator'), '1 simulator × 1 = 1 client')
  assert.equal(formatLayout(3, 2, 'worker'), '3 workers × 0-1 = 2 clients')
})
