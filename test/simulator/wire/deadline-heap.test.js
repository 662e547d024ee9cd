import { test } from 'node:test'
import assert from 'node:assert/strict'
import { performance } from 'node:perf_hooks'
import { DeadlineHeap } from '../../../simulator/wire/deadline-heap.js'

test('fires each deadline once, earliest first, never a cleared one; moves and re-sets from inside a run', async () => {
  /** @type {{ i: number, at: number, late: number }[]} */
  const fired = []
  /** @type {(value?: unknown) => void} */
  let done = () => {}
  const allFired = new Promise((resolve) => { done = resolve })
  const expected = new Set()
  const heap = new DeadlineHeap((i) => {
    fired.push({ i, at: heap.dueAt, late: performance.now() - heap.dueAt })
    if (i === 3) heap.setIn(3000, 2) // set from inside a run, beyond the arrays (they grow)
    if (fired.length === expected.size) done()
  })
  // 200 clients, deadlines 0–30 ms away in a scrambled order; a tenth cleared, a tenth moved.
  for (let i = 0; i < 200; i++) heap.setIn(i, ((i * 37) % 200) * 0.15)
  for (let i = 0; i < 200; i += 10) heap.clear(i)
  for (let i = 5; i < 200; i += 10) heap.setIn(i, 40 + (i % 7))
  for (let i = 0; i < 200; i++) if (i % 10 !== 0) expected.add(i)
  expected.add(3000)
  assert.equal(heap.size, 180)
  assert.equal(heap.has(10), false)
  assert.equal(heap.has(11), true)
  const timeout = setTimeout(done, 5000)
  await allFired
  clearTimeout(timeout)
  assert.deepEqual(new Set(fired.map((f) => f.i)), expected, 'each deadline fired, no cleared one')
  assert.equal(fired.length, expected.size, 'each once')
  for (let k = 1; k < fired.length; k++) assert.ok(fired[k].at >= fired[k - 1].at - 1, `in deadline order (within the timer's 1 ms grain) at ${k}`)
  for (const f of fired) assert.ok(f.late > -1.01, 'never more than a millisecond early')
  assert.equal(heap.size, 0)
  assert.equal(heap.timer, null, 'no timer left once empty')
})

test('a zero gap set again inside a run waits for the next run; clearAll stops everything', async () => {
  let runs = 0
  let settled = 0
  let inOneRun = 0
  /** @type {(value?: unknown) => void} */
  let done = () => {}
  const twice = new Promise((resolve) => { done = resolve })
  const heap = new DeadlineHeap((i) => {
    runs++
    // Microtasks run between timer callbacks: had the previous call been in this same run, its microtask would not have run yet.
    if (settled !== runs - 1) inOneRun++
    queueMicrotask(() => settled++)
    if (runs < 50) heap.setIn(i, 0) // due now: at the next run, not again in this one
    else done()
  })
  heap.setIn(0, 0)
  const timeout = setTimeout(done, 5000)
  await twice
  clearTimeout(timeout)
  assert.equal(runs, 50)
  assert.equal(inOneRun, 0, 'each call in a run of its own')
  heap.setIn(1, 60000)
  heap.setIn(2, 60000)
  heap.clearAll()
  assert.equal(heap.size, 0)
  assert.equal(heap.has(1), false)
  assert.equal(heap.timer, null)
})
