import { test } from 'node:test'
import assert from 'node:assert/strict'
import { performance } from 'node:perf_hooks'
import { DeadlineSweeper } from '../../../simulator/wire/scheduler.js'
import { STATE, stopWaiting } from '../../../simulator/wire/state.js'
import { STATE as LEAN_STATE } from '../../../simulator/engines/lean/client.js'
import { STATE as PLAIN_STATE } from '../../../simulator/engines/websocket/client.js'

test('both engines use the one set of client states', () => {
  assert.equal(LEAN_STATE, STATE)
  assert.equal(PLAIN_STATE, STATE)
})

test('stopWaiting: a waiting client loses its backoff deadline and stays idle; any other is left alone', () => {
  /** @type {number[]} */
  const fired = []
  const sweeper = new DeadlineSweeper((i) => fired.push(i), 1000)
  const now = performance.now()
  const waiting = { i: 0, state: STATE.WAITING, reconnecting: true }
  const connected = { i: 1, state: STATE.CONNECTED, reconnecting: false }
  sweeper.set(0, now - 1)
  sweeper.set(1, now - 1)
  assert.equal(stopWaiting(sweeper, waiting), true)
  assert.deepEqual(waiting, { i: 0, state: STATE.IDLE, reconnecting: false })
  assert.equal(stopWaiting(sweeper, connected), false)
  assert.equal(connected.state, STATE.CONNECTED)
  sweeper.sweep()
  assert.deepEqual(fired, [1], 'only the client still holding a deadline fires')
  sweeper.clear(1)
})
