import { test } from 'node:test'
import assert from 'node:assert/strict'
import { startRamp } from '../../../simulator/swarm/ramp.js'
import { monotonicMs } from '../../../lib/measure/clock.js'

test('a 2 s ramp of 200 clients starts each in order and none before its slot (i × 10 ms)', async () => {
  const startMs = monotonicMs()
  /** @type {number[]} */
  const at = []
  const ramp = startRamp({ count: 200, rampMs: 2000, onStart: () => at.push(monotonicMs() - startMs) })
  await ramp.done
  assert.equal(at.length, 200)
  // Timers fire late, never early: a burst (everyone at the start, or ahead of the schedule) starts a client before its
  // slot. How evenly a quiet host spreads them is bench/ramp.js's to say: a busy one stalls and then catches up.
  const early = at.map((ms, i) => [i, Math.round(ms)]).filter(([i, ms]) => ms < i * 10 - 1)
  assert.deepEqual(early, [], 'clients started before their slot [client, ms]')
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

test('stop ends the ramp early and resolves done; nothing starts after it', async (t) => {
  let started = 0
  /** @type {ReturnType<typeof startRamp>} */
  const ramp = startRamp({ count: 100, rampMs: 1000, onStart: (i) => { started++; if (i === 2) ramp.stop() } })
  // A ramp of the same shape started just after: when it ends, every start the stopped one would have made is past.
  const control = startRamp({ count: 100, rampMs: 1000, onStart: () => {} })
  t.after(() => control.stop())
  await ramp.done
  assert.equal(started, 3, 'stopped from the third start')
  await control.done
  assert.equal(started, 3, 'nothing started after stop, to the end the ramp would have had')
})

test('a held ramp starts nothing while held, then starts the rest in order', async (t) => {
  /** @type {number[]} */
  const started = []
  const ramp = startRamp({ count: 50, rampMs: 500, onStart: (i) => started.push(i) })
  t.after(() => ramp.stop())
  ramp.hold(true)
  // A ramp of the same shape started just after: when it ends, the held one would have started everyone.
  const control = startRamp({ count: 50, rampMs: 500, onStart: () => {} })
  t.after(() => control.stop())
  await control.done
  assert.deepEqual(started, [], 'nothing started while held')
  ramp.hold(false)
  await ramp.done
  assert.deepEqual(started, Array.from({ length: 50 }, (_, i) => i))
})
