import { test } from 'node:test'
import assert from 'node:assert/strict'
import { shareOf } from '../../../runner/capacity/step.js'

test('shareOf: as even as it gets, the first simulators one more; a share only grows with the step', () => {
  assert.deepEqual([0, 1, 2].map((k) => shareOf(10, 3, k)), [4, 3, 3])
  for (let clients = 3; clients < 50; clients++) {
    assert.equal([0, 1, 2].reduce((sum, k) => sum + shareOf(clients, 3, k), 0), clients)
    for (const k of [0, 1, 2]) assert.ok(shareOf(clients + 1, 3, k) >= shareOf(clients, 3, k), 'monotonic: room for --max holds every step')
  }
})
