import { test } from 'node:test'
import assert from 'node:assert/strict'
import { performance } from 'node:perf_hooks'
import { DeadlineSweeper } from '../../../simulator/wire/scheduler.js'

test('fires each passed deadline once, in one sweep, and moves or clears others', () => {
  /** @type {number[]} */
  const fired = []
  const sweeper = new DeadlineSweeper((i) => fired.push(i), 1000)
  const now = performance.now()
  sweeper.set(0, now - 5)
  sweeper.set(2000, now - 1) // grows the array
  sweeper.set(5, now + 60000)
  sweeper.set(7, now - 1)
  sweeper.clear(7)
  sweeper.set(3, now - 1)
  sweeper.set(3, now + 60000) // moved into the future
  sweeper.sweep()
  assert.deepEqual(fired, [0, 2000])
  assert.equal(sweeper.active, 2)
  sweeper.sweep()
  assert.deepEqual(fired, [0, 2000])
  assert.equal(sweeper.nextDueMs, now + 60000, 'the next pass is due with the earliest remaining deadline')
  sweeper.set(9, now - 1)
  assert.equal(sweeper.nextDueMs, now - 1)
  sweeper.sweep()
  assert.deepEqual(fired, [0, 2000, 9])
  sweeper.clear(5)
  sweeper.clear(3)
  sweeper.clear(3)
  assert.equal(sweeper.active, 0)
  sweeper.stop()
})

test('ticks only while deadlines are pending, and a callback may set new ones', async () => {
  /** @type {number[]} */
  const fired = []
  const sweeper = new DeadlineSweeper((i) => {
    fired.push(i)
    if (i === 1) sweeper.setIn(5000, 0) // set from inside a sweep, beyond the array
  }, 5)
  assert.equal(sweeper.timer, null)
  sweeper.setIn(1, 0)
  assert.notEqual(sweeper.timer, null)
  const deadline = Date.now() + 5000
  while (fired.length < 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5))
  assert.deepEqual(fired, [1, 5000])
  while (sweeper.timer !== null && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5))
  assert.equal(sweeper.timer, null, 'stopped once nothing is pending')
  sweeper.setIn(7, 60000)
  sweeper.clear(7)
  while (sweeper.timer !== null && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5))
  assert.equal(sweeper.timer, null, 'stopped once every deadline was cleared')
})
