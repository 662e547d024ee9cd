import { test } from 'node:test'
import assert from 'node:assert/strict'
import { followEvery } from '../../../results/follow/follow.js'
import { waitFor } from '../../helpers/wait.js'

test('a follower\'s loop: the step again and again, a failing step tried again, and stop() waits for the step under way', async () => {
  let steps = 0
  let running = false
  const stop = followEvery(async () => {
    running = true
    steps++
    await new Promise((resolve) => setImmediate(resolve))
    running = false
    if (steps % 2 === 1) throw new Error('a collector blip')
  }, 1)
  await waitFor(() => steps >= 4, { timeoutMs: 10000, message: () => `four steps (${steps})` })
  await stop()
  assert.equal(running, false, 'no step under way once stopped')
})

test('stop() ends the pause between two steps at once: it does not wait out the poll interval', async () => {
  let steps = 0
  const stop = followEvery(async () => { steps++ }, 600_000)
  await waitFor(() => steps === 1, { message: 'the first step' })
  // Within 10 minutes' pause: stop() must resolve well before it ends.
  const stopped = await Promise.race([stop().then(() => true), new Promise((resolve) => setTimeout(() => resolve(false), 10_000).unref())])
  assert.equal(stopped, true, 'stopped during the pause')
  assert.equal(steps, 1)
})
