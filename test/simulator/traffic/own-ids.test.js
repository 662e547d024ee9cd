import { test } from 'node:test'
import assert from 'node:assert/strict'
import { ownId, ownIdSender } from '../../../simulator/traffic/own-ids.js'

test('an id --emit stamps names its client, read back only for this process\'s clients', () => {
  assert.equal(ownId(12, 7), 'e12.7')
  // This process holds clients 10-12 of the run.
  assert.equal(ownIdSender(ownId(10, 1), 10, 3), 0)
  assert.equal(ownIdSender(ownId(12, 99), 10, 3), 2)
  for (const id of [ownId(9, 1), ownId(13, 1), 'e11', 'e11.', 'e.5', 'e11.5x', 'e1x.5', 'x11.5', '', 'e11.5.6', `e${'1'.repeat(20)}.1`]) {
    assert.equal(ownIdSender(id, 10, 3), -1, id)
  }
})
