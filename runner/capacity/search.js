/**
 * The capacity search as a pure function of the steps so far: grow from --start by --growth
 * while steps pass (capped at --max), then bisect between the largest passing step and the
 * smallest failing one above it until they are within --precision. An inconclusive step (the
 * simulators limited it) is measured once more, since a stall of a busy machine passes; if
 * the simulators limit it again (or it could not be held at all), the search ends there: its
 * verdict cannot say where the server's limit is.
 */

/** Measurements of one client count before an inconclusive one ends the search. */
const ATTEMPTS = 2

/**
 * @typedef {{ clients: number, verdict: import('../../lib/schema/capacity-schema.js').StepVerdict, limitedBy?: string | null }} Judged
 * @typedef {{ start: number, max: number, growth: number, precision: number }} SearchPlan
 * @typedef {{ next: number, phase: 'grow' | 'narrow' | 'again' } | { done: import('../../lib/schema/capacity-schema.js').CapacityOutcome }} SearchMove
 */

/**
 * The largest passing step, the smallest failing step above it, and the inconclusive step
 * that ended the search (if one did).
 * @param {Judged[]} steps
 */
export function searchBounds (steps) {
  let passed = null
  for (const s of steps) if (s.verdict === 'pass' && (passed === null || s.clients > passed)) passed = s.clients
  let failed = null
  for (const s of steps) if (s.verdict === 'fail' && (passed === null || s.clients > passed) && (failed === null || s.clients < failed)) failed = s.clients
  const last = steps.at(-1)
  return { passed, failed, inconclusive: last?.verdict === 'inconclusive' ? last.clients : null }
}

/**
 * The next step of the search, or its end.
 * @param {Judged[]} steps
 * @param {SearchPlan} plan
 * @returns {SearchMove}
 */
export function nextStep (steps, plan) {
  if (steps.length === 0) return { next: plan.start, phase: 'grow' }
  const { passed, failed, inconclusive } = searchBounds(steps)
  if (inconclusive !== null) {
    let tries = 0
    for (let k = steps.length - 1; k >= 0 && steps[k].clients === inconclusive; k--) tries++
    const last = /** @type {Judged} */ (steps.at(-1))
    return last.limitedBy !== 'limit' && tries < ATTEMPTS ? { next: inconclusive, phase: 'again' } : { done: 'inconclusive' }
  }
  if (passed === null) return { done: 'failed-at-start' }
  if (failed === null) {
    if (passed >= plan.max) return { done: 'max' }
    return { next: Math.min(plan.max, Math.max(passed + 1, Math.round(passed * plan.growth))), phase: 'grow' }
  }
  // Within the precision (and never a step that cannot be told apart from both bounds).
  if (failed - passed <= Math.max(1, passed * plan.precision)) return { done: 'found' }
  return { next: Math.round((passed + failed) / 2), phase: 'narrow' }
}

/**
 * Most steps a search can take (a bound for its loop): the growing steps from --start to
 * --max, then the halvings from the widest gap down to the precision.
 * @param {SearchPlan} plan
 */
export function maxSteps (plan) {
  const growing = Math.ceil(Math.log(plan.max / plan.start) / Math.log(plan.growth)) + 1
  const narrowing = Math.ceil(Math.log2(Math.max(2, plan.max / Math.max(1, plan.start * plan.precision)))) + 1
  return (growing + narrowing) * ATTEMPTS
}
