import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { formatAnswer, formatStepLine } from '../../../runner/capacity/format.js'

/** @returns {import('../../../lib/schema/capacity-schema.js').CapacityResult} */
const fixture = () => JSON.parse(readFileSync(new URL('../../fixtures/capacity-small.json', import.meta.url), 'utf8'))

test('a step in one line: clients, connects, delays, missing, the simulators\' state, descriptors, the verdict and why', () => {
  const { steps } = fixture()
  const line = formatStepLine(steps[0])
  assert.match(
    line,
    new RegExp(/^step 1 \(grow\): 10 clients: connected 10 in [\d.]+m?s, relative p50 [\d.]+ms p99 [\d.]+ms max [\d.]+ms, /.source +
      /absolute p99 [\d.]+ms, missing 0 of 20, simulators busiest \d+%, saturated 0 s, elu max \d+%, fds \d+\/[\d,]+ per simulator → pass$/.source)
  )
  const failed = /** @type {import('../../../lib/schema/capacity-schema.js').CapacityStep} */ (steps.find((s) => s.verdict === 'fail'))
  assert.ok(formatStepLine(failed).endsWith(`→ FAIL: ${failed.why}`))
  assert.match(formatStepLine({ ...failed, server: { cpuPctMax: 97.4, rssMaxBytes: 1, connectedMax: 40 } }), /, server cpu max 97% → FAIL/)
  assert.equal(
    formatStepLine({ ...failed, verdict: 'inconclusive', limitedBy: 'limit', why: 'this machine cannot hold the step: file descriptors …' }),
    `step ${failed.step} (${failed.phase}): ${failed.clients} clients: INCONCLUSIVE: this machine cannot hold the step: file descriptors …`
  )
})

test('the answer in one line for each outcome', () => {
  const r = fixture()
  assert.match(
    formatAnswer(r),
    /^capacity: 30 clients at p99<200ms, missing=0 — websocket \(lean\), target http:\/\/127\.0\.0\.1:\d+, 2 simulators \(33 failed: p99 \d+ms/
  )
  assert.match(
    formatAnswer({ ...r, outcome: 'max', capacity: 80 }),
    /^capacity: at least 80 clients at p99<200ms, missing=0 — .*\(every step passed up to --max\)$/
  )
  assert.match(
    formatAnswer({ ...r, outcome: 'failed-at-start', capacity: null }),
    /^capacity: below 10 clients at .*the first step failed: every SLO held; start lower with --start\)$/
  )
  const stopper = { ...r.steps[2], verdict: /** @type {const} */ ('inconclusive'), why: 'p99 400ms, but …' }
  const bounds = { passed: 20, failed: null, inconclusive: stopper.clients }
  assert.equal(formatAnswer({ ...r, outcome: 'inconclusive', capacity: null, bounds, steps: [...r.steps.slice(0, 2), stopper] }),
    `capacity: inconclusive at p99<200ms, missing=0 — websocket (lean), ${r.target.url.replace(/^/, 'target ')}, 2 simulators: 20 clients passed, ` +
    `but at ${stopper.clients} the simulators limited the step (p99 400ms, but …); no capacity is reported that the simulators may have limited`)
  assert.match(
    formatAnswer({ ...r, swarm: { ...r.swarm, simulators: 1 }, target: { url: 'http://127.0.0.1:3000', reference: true } }),
    /— websocket \(lean\), reference server, 1 simulator \(/
  )
})
