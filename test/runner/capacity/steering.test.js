/**
 * Steering a capacity search (lib/steering.js): stop-after-step ends the search once its current
 * step is judged, that step kept with its verdict and the action in the result's timeline.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { runCapacity } from '../../../runner/capacity/index.js'
import { createSteering } from '../../../runner/index.js'

test('stop-after-step: the search ends after its current step, judged as far as it went', async () => {
  const steering = createSteering({ command: 'capacity' })
  /** @type {string[]} */
  const lines = []
  /** @type {Promise<import('../../../lib/steering.js').SteeringAnswer>[]} */
  const asked = []
  const searching = runCapacity({
    simulators: 1,
    engine: 'lean',
    ramp: '100ms',
    pingInterval: '1s',
    rounds: '2x200',
    messageTimeout: '2s',
    connectTimeout: '10s',
    slo: ['missing=0'],
    start: 2,
    max: 64,
    growth: 2,
    precision: '10%'
  }, {
    steering,
    log: (line) => lines.push(line),
    // Asked while the first step's clients connect: that step is the last.
    status: (line) => { if (asked.length === 0 && /clients: connected/.test(line)) asked.push(steering.act('stop-after-step', {}, 'dashboard')) }
  })
  const result = await searching
  assert.equal(asked.length, 1, 'the action was asked during the step')
  const answer = await asked[0]
  assert.ok(answer.ok, JSON.stringify(answer))
  assert.deepEqual(result.steps.map((s) => [s.clients, s.verdict]), [[2, 'pass']], lines.join('\n'))
  assert.equal(result.outcome, 'stopped')
  assert.equal(result.bounds.passed, 2, 'the step is judged and counts')
  assert.deepEqual(result.actions?.map((a) => [a.action, a.by, a.ok]), [['stop-after-step', 'dashboard', true]])
  const again = await steering.act('stop-after-step', {}, 'api')
  assert.equal(!again.ok && again.status, 409, 'after the search, nothing to stop')
  const clients = await steering.act('clients', { clients: 5 }, 'api')
  assert.equal(!clients.ok && clients.status, 404, 'a search sets its clients itself')
})
