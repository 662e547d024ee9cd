import { test } from 'node:test'
import assert from 'node:assert/strict'
import { delayOf, shareOf } from '../../../runner/capacity/step.js'

test('shareOf: as even as it gets, the first simulators one more; a share only grows with the step', () => {
  assert.deepEqual([0, 1, 2].map((k) => shareOf(10, 3, k)), [4, 3, 3])
  for (let clients = 3; clients < 50; clients++) {
    assert.equal([0, 1, 2].reduce((sum, k) => sum + shareOf(clients, 3, k), 0), clients)
    for (const k of [0, 1, 2]) assert.ok(shareOf(clients + 1, 3, k) >= shareOf(clients, 3, k), 'monotonic: room for --max holds every step')
  }
})

test('delayOf reads a delay SLO\'s metric as --assert does: the worst round, relative or absolute', () => {
  const rounds = [
    {
      round: 1,
      relative: { count: 5, p50: 1, p90: 2, p99: 3, max: 4, mean: 1, min: 0 },
      absolute: { count: 5, p50: 10, p90: 20, p99: 30, max: 40, mean: 10, min: 0, uncertaintyMs: 0 },
      avgOfAverages: { relativeMs: 1.5, absoluteMs: 12 }
    },
    {
      round: 2, relative: { count: 5, p50: 2, p90: 3, p99: 9, max: 10, mean: 2, min: 0 }, absolute: null, avgOfAverages: { relativeMs: 2.5, absoluteMs: null }
    },
    { round: 3, relative: { count: 0, p50: 0, p90: 0, p99: 99, max: 0, mean: 0, min: 0 }, absolute: null, avgOfAverages: { relativeMs: 0, absoluteMs: null } }
  ]
  const r = /** @type {any} */ (rounds)
  assert.equal(delayOf(r, 'p99'), 9, 'a round without deliveries does not count')
  assert.equal(delayOf(r, 'avg'), 2.5)
  assert.equal(delayOf(r, 'abs.p99'), 30)
  assert.equal(delayOf(r, 'abs.avg'), 12)
  assert.equal(delayOf([], 'p99'), null)
})
