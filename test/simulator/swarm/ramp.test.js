import { test } from 'node:test'
import assert from 'node:assert/strict'
import { startRamp } from '../../../simulator/swarm/ramp.js'
import { monotonicMs } from '../../../lib/measure/clock.js'

test('a 2 s ramp of 200 clients spreads starts evenly over the window', async () => {
  const startMs = monotonicMs()
  /** @type {number[]} */
  const at = []
  const ramp = startRamp({ count: 200, rampMs: 2000, onStart: () => at.push(monotonicMs() - startMs) })
  await ramp.done
  assert.equal(at.length, 200)
  // Four half-second windows each hold about a quarter of the starts (50 ± 15): a burst at
  // the start or the end would break this, exact timing would not be needed.
  const bins = [0, 0, 0, 0]
  for (const t of at) bins[Math.min(3, Math.floor(t / 500))]++
  for (const [k, n] of bins.entries()) assert.ok(n >= 35 && n <= 65, `window ${k} has ${n} starts: ${bins}`)
  assert.ok(at[199] >= 1800, `last start at ${at[199]} ms, expected near 2000`)
  // Starts are in client order.
  assert.deepEqual(at, [...at].sort((a, b) => a - b))
})

test('ramp 0 starts everyone in event-loop-friendly batches', async () => {
  let started = 0
  const ramp = startRamp({ count: 1000, rampMs: 0, onStart: () => { started++ } })
  assert.equal(started, 0, 'nothing starts synchronously')
  // The ramp's first batch runs in the first check phase, then yields to I/O: our
  // setImmediate, queued after it, sees exactly one batch done.
  await new Promise((resolve) => setImmediate(resolve))
  assert.equal(started, 250)
  await ramp.done
  assert.equal(started, 1000)
})

test('stop ends the ramp early and resolves done', async () => {
  let started = 0
  const ramp = startRamp({ count: 100, rampMs: 10000, onStart: () => { started++ } })
  setTimeout(() => ramp.stop(), 50)
  await ramp.done
  const before = started
  assert.ok(before < 10, `only the first starts happened (${before})`)
  await new Promise((resolve) => setTimeout(resolve, 150))
  assert.equal(started, before, 'nothing starts after stop')
})
