import { test } from 'node:test'
import assert from 'node:assert/strict'
import { formatPhases, maxClientsOf, parsePhases, slicePhases, totalMsOf } from '../../../lib/input/phase-profile.js'
import { CODES } from '../../../lib/errors.js'

test('--phases reads k6-like steps into ramps and holds', () => {
  const phases = parsePhases('ramp 60s to 2000, hold 3m, ramp 30s to 5000,hold 3m ,  RAMP   20s to 0', '--phases')
  assert.deepEqual(phases, [
    { kind: 'ramp', durationMs: 60000, to: 2000 },
    { kind: 'hold', durationMs: 180000 },
    { kind: 'ramp', durationMs: 30000, to: 5000 },
    { kind: 'hold', durationMs: 180000 },
    { kind: 'ramp', durationMs: 20000, to: 0 }
  ])
  assert.equal(maxClientsOf(/** @type {any} */ (phases)), 5000)
  assert.equal(totalMsOf(/** @type {any} */ (phases)), 470000)
  assert.equal(formatPhases(/** @type {any} */ (phases)).split(', ')[0], 'ramp 60000ms to 2000')
  assert.equal(parsePhases(undefined, '--phases'), null)
  assert.equal(parsePhases('', '--phases'), null)
  // A ramp of 0 s is a jump; a bare number is seconds, as --duration's.
  assert.deepEqual(parsePhases('ramp 0 to 5, hold 2', '--phases'), [{ kind: 'ramp', durationMs: 0, to: 5 }, { kind: 'hold', durationMs: 2000 }])
})

test('an emit rate per step is read in --emit-rate\'s form', () => {
  assert.deepEqual(parsePhases('ramp 10s to 5 at 1/s, hold 3m at 2/s', '--phases'), [
    { kind: 'ramp', durationMs: 10000, to: 5, emitIntervalMs: 1000 },
    { kind: 'hold', durationMs: 180000, emitIntervalMs: 500 }
  ])
})

test('a bad step is refused naming --phases, the step and what is allowed', () => {
  /** @type {[string, RegExp][]} */
  const cases = [
    ['jump 5s', new RegExp(/^--phases step 1 must be "ramp DURATION to CLIENTS" or "hold DURATION", /.source +
      /each optionally followed by "at RATE".*, separated by commas.*got "jump 5s"$/.source)],
    ['ramp to 5', /^--phases step 1 must be "ramp DURATION to CLIENTS".*got "ramp to 5"$/],
    ['hold', /^--phases step 1 must be .*got "hold"$/],
    ['ramp 5s to 3, hold', /^--phases step 2 must be .*got "hold"$/],
    ['ramp 5s', /^--phases step 1 must be .*got "ramp 5s"$/],
    ['hold 5s to 3', /^--phases step 1 must be .*got "hold 5s to 3"$/],
    ['ramp 5s to 3,', /^--phases step 2 must be .*got ""$/],
    ['ramp soon to 3', /^--phases step 1 must be a duration such as/],
    ['ramp 5s to -3', /^--phases step 1 must be a whole number from 0 to 1000000, got "-3"$/],
    ['ramp 5s to many', /^--phases step 1 must be a whole number from 0 to 1000000, got "many"$/],
    ['ramp 1s to 3, hold 0s', /^--phases step 2 must hold for more than 0/],
    ['hold 5s, ramp 3s to 0', /^--phases must ramp to at least 1 client/],
    ['hold 5s at fast', /^--phases step 1 must be a rate per client such as 1\/10s/]
  ]
  for (const [value, message] of cases) {
    assert.throws(() => parsePhases(value, '--phases'), (/** @type {any} */ error) => {
      assert.equal(error.code, CODES.INVALID_OPTION, value)
      assert.equal(error.exitCode, 2, value)
      assert.match(error.message, message, value)
      return true
    })
  }
})

test('slicing over workers splits each ramp target as the clients are, summing to it', () => {
  const phases = /** @type {import('../../../lib/input/phase-profile.js').Phase[]} */ (
    parsePhases('ramp 1s to 7, hold 1s, ramp 1s to 2, ramp 1s to 0', '--phases')
  )
  const slices = [0, 1, 2].map((k) => slicePhases(phases, 3, k))
  assert.deepEqual(slices.map((s) => s.map((p) => p.to)), [[3, undefined, 1, 0], [2, undefined, 1, 0], [2, undefined, 0, 0]])
  for (let n = 0; n < phases.length; n++) {
    if (phases[n].to !== undefined) assert.equal(slices.reduce((sum, s) => sum + /** @type {number} */ (s[n].to), 0), phases[n].to)
    assert.equal(slices[2][n].durationMs, phases[n].durationMs)
  }
  // Worker k's largest target is never above its share of the clients (the swarm's size).
  assert.deepEqual(slices.map(maxClientsOf), [3, 2, 2])
})
