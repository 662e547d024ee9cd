import { test } from 'node:test'
import assert from 'node:assert/strict'
import { maxSteps, nextStep, searchBounds } from '../../../runner/capacity/search.js'

/**
 * Runs the search against a server that holds `limit` clients, as a pure simulation.
 * @param {import('../../../runner/capacity/search.js').SearchPlan} plan
 * @param {(clients: number) => import('../../../lib/schema/capacity-schema.js').StepVerdict} verdictOf
 */
function simulate (plan, verdictOf) {
  /** @type {import('../../../runner/capacity/search.js').Judged[]} */
  const steps = []
  for (let k = 0; k < maxSteps(plan); k++) {
    const move = nextStep(steps, plan)
    if ('done' in move) return { outcome: move.done, steps, bounds: searchBounds(steps) }
    steps.push({ clients: move.next, verdict: verdictOf(move.next) })
  }
  throw new Error(`no answer within maxSteps: ${JSON.stringify(steps)}`)
}

const PLAN = { start: 1000, max: 100000, growth: 2, precision: 0.05 }

test('grows by --growth from --start, then bisects until the first failing step is within --precision of the last passing one', () => {
  for (const limit of [1000, 1500, 23400, 64000, 99999]) {
    const { outcome, steps, bounds } = simulate(PLAN, (c) => (c <= limit ? 'pass' : 'fail'))
    assert.equal(outcome, 'found', `limit ${limit}`)
    const passed = /** @type {number} */ (bounds.passed)
    const failed = /** @type {number} */ (bounds.failed)
    assert.ok(passed <= limit && failed > limit, `limit ${limit}: ${passed}..${failed}`)
    assert.ok(failed - passed <= passed * 0.05, `within 5 %: ${passed}..${failed}`)
    assert.ok(limit - passed <= limit * 0.05, 'the answer is within the precision of the truth')
    assert.ok(steps.length <= maxSteps(PLAN))
  }
  const { steps } = simulate(PLAN, (c) => (c <= 23400 ? 'pass' : 'fail'))
  assert.deepEqual(steps.slice(0, 7).map((s) => s.clients), [1000, 2000, 4000, 8000, 16000, 32000, 24000], 'doubling, then halfway')
})

test('every step passing up to --max ends at --max; a failing --start ends the search at once', () => {
  const all = simulate(PLAN, () => 'pass')
  assert.equal(all.outcome, 'max')
  assert.deepEqual(all.steps.map((s) => s.clients), [1000, 2000, 4000, 8000, 16000, 32000, 64000, 100000])
  const none = simulate(PLAN, () => 'fail')
  assert.equal(none.outcome, 'failed-at-start')
  assert.deepEqual(none.steps.map((s) => s.clients), [1000])
})

test('an inconclusive step is measured once more; inconclusive again, it ends the search, growing or narrowing, and is named', () => {
  const growing = simulate(PLAN, (c) => (c < 8000 ? 'pass' : 'inconclusive'))
  assert.equal(growing.outcome, 'inconclusive')
  assert.deepEqual(growing.bounds, { passed: 4000, failed: null, inconclusive: 8000 })
  assert.deepEqual(growing.steps.slice(-2).map((s) => s.clients), [8000, 8000], 'measured twice')
  const narrowing = simulate(PLAN, (c) => (c <= 20000 ? 'pass' : c >= 32000 ? 'fail' : 'inconclusive'))
  assert.equal(narrowing.outcome, 'inconclusive')
  assert.deepEqual(narrowing.bounds, { passed: 16000, failed: 32000, inconclusive: 24000 })
  // A stall that passes: the second measurement decides, and the search goes on.
  /** @type {Set<number>} */
  const stalled = new Set()
  const once = simulate(PLAN, (c) => {
    if (c === 24000 && !stalled.has(c)) {
      stalled.add(c)
      return 'inconclusive'
    }
    return c <= 23400 ? 'pass' : 'fail'
  })
  assert.equal(once.outcome, 'found')
  assert.deepEqual(once.steps.filter((s) => s.clients === 24000).map((s) => s.verdict), ['inconclusive', 'fail'])
  // A step this machine cannot hold is not tried again.
  /** @type {import('../../../runner/capacity/search.js').Judged[]} */
  const limited = [{ clients: 1000, verdict: 'pass' }, { clients: 2000, verdict: 'inconclusive', limitedBy: 'limit' }]
  assert.deepEqual(nextStep(limited, PLAN), { done: 'inconclusive' })
})

test('small counts: steps always move, and a gap of one client is the end', () => {
  const { outcome, bounds, steps } = simulate({ start: 1, max: 50, growth: 1.1, precision: 0.001 }, (c) => (c <= 7 ? 'pass' : 'fail'))
  assert.equal(outcome, 'found')
  assert.deepEqual([bounds.passed, bounds.failed], [7, 8])
  assert.equal(new Set(steps.map((s) => s.clients)).size, steps.length, 'no count measured twice')
})
