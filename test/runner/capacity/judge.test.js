import { test } from 'node:test'
import assert from 'node:assert/strict'
import { judgedStep, judgeStep, simulatorAdvice } from '../../../runner/capacity/judge.js'
import { parseSlos } from '../../../runner/capacity/capacity-options.js'

/** @param {Partial<import('../../../lib/schema/capacity-schema.js').StepSimulator>} [over] */
const sim = (over = {}) => ({
  id: 'cap-sim1',
  clients: 100,
  connected: 100,
  samples: 3,
  saturatedSeconds: 0,
  eluMax: 0.2,
  loopDelayP99MaxMs: 3,
  loopDelayMaxMs: 8,
  cpuPctMax: 20,
  ...over
})
const slos = parseSlos(['p99<500ms', 'missing=0'])
const ACTUAL = ['p99 812ms (round 3)', 'missing 40 of 300 expected deliveries', 'connected 90 of 100 target clients']
/** @param {boolean[]} oks */
const verdicts = (oks) => oks.map((ok, k) => ({ expression: slos[k].expression, ok, actual: ok ? 'fine' : ACTUAL[k] }))
/**
 * @param {boolean[]} oks
 * @param {{ p99?: number, simulators?: import('../../../lib/schema/capacity-schema.js').StepSimulator[], connecting?: import('../../../lib/schema/capacity-schema.js').StepSimulator[], floorMaxMs?: number | null }} [over]
 */
const judge = (oks, { p99 = 812, simulators = [sim()], connecting = [sim()], floorMaxMs = 4 } = {}) =>
  judgeStep({ slos, verdicts: verdicts(oks), valueOf: (slo) => (slo.metric === 'p99' ? p99 : null), simulators, connecting, floorMaxMs })

test('every SLO held: pass, whatever the simulators did (they only add delay and loss)', () => {
  assert.deepEqual(judge([true, true, true], { simulators: [sim({ eluMax: 0.99, saturatedSeconds: 3 })], floorMaxMs: 900 }), {
    verdict: 'pass',
    why: 'every SLO held',
    limitedBy: null
  })
})

test('a failed SLO with healthy simulators fails; a simulator saturated by its own work makes it inconclusive', () => {
  assert.deepEqual(judge([false, true, true]), { verdict: 'fail', why: 'p99 812ms (round 3)', limitedBy: null })
  const saturated = judge([true, false, true], { simulators: [sim(), sim({ id: 'cap-sim2', saturatedSeconds: 2, eluMax: 0.97, loopDelayMaxMs: 180 })] })
  assert.deepEqual(saturated, {
    verdict: 'inconclusive',
    why: 'missing 40 of 300 expected deliveries, but simulator cap-sim2 was saturated (cap-sim2: event-loop utilisation up to 97 %, 2 s saturated, loop delay up to 180ms) during the rounds: the failure may be the simulators\'',
    limitedBy: 'saturated'
  })
})

test('a failed delay SLO is inconclusive when the simulators\' own time is ≥ 50 % of it, or when the margin is smaller than their own time', () => {
  const busy = judge([false, true, true], { p99: 812, floorMaxMs: 420 })
  assert.equal(busy.verdict, 'inconclusive')
  assert.equal(busy.limitedBy, 'busy')
  assert.match(
    busy.why,
    /^p99 812ms \(round 3\), but a simulator spent up to 420ms of CPU draining one message \(its floor\), too large a share of the 812ms measured/
  )
  assert.equal(judge([false, true, true], { p99: 812, floorMaxMs: 300 }).verdict, 'fail', '300 of 812: the server\'s 512 alone fails p99<500ms')
  assert.equal(judge([false, true, true], { p99: 520, floorMaxMs: 30 }).verdict, 'inconclusive', 'without the simulators\' 30 ms it might have passed')
  const held = judge([false, true, true], { p99: 600, simulators: [sim({ loopDelayMaxMs: 350 })] })
  assert.equal(held.limitedBy, 'saturated')
  assert.match(held.why, /event loop of simulator cap-sim1 was held up 350ms \(its CPU shared or busy\)/)
  assert.equal(
    judge([false, true, true], { p99: 600, simulators: [sim({ loopDelayMaxMs: 77 })] }).verdict,
    'fail',
    'a short stall on a shared machine does not excuse a clear failure'
  )
})

test('missing and connected failures: excused only by saturation or a stall of a second or more, in their own window', () => {
  assert.equal(judge([true, false, true], { simulators: [sim({ loopDelayMaxMs: 300 })] }).verdict, 'fail')
  assert.equal(judge([true, false, true], { simulators: [sim({ loopDelayMaxMs: 1500 })] }).verdict, 'inconclusive')
  assert.equal(judge([true, true, false], { simulators: [sim({ eluMax: 0.99 })] }).verdict, 'fail', 'connects are judged by the connect window')
  const connecting = judge([true, true, false], { connecting: [sim({ eluMax: 0.95, saturatedSeconds: 4 })] })
  assert.equal(connecting.verdict, 'inconclusive')
  assert.match(connecting.why, /while its clients connected/)
  assert.equal(
    judge([false, false, true], { p99: 812, floorMaxMs: 500, simulators: [sim()] }).verdict,
    'fail',
    'one failure the simulators cannot have made is the server\'s'
  )
})

test('judgedStep: one record for both kinds of step, ' +
  'SLOs evaluated over the step alone (the implicit one labelled), judged on its simulators and floor', () => {
  const clients = { target: 100, connected: 100, failed: 0 }
  const round = { round: 1, messages: 3, expected: 300, missing: 40, relative: { count: 260, p50: 120, p99: 812, max: 900, mean: 200 } }
  const measured = { step: 2, phase: /** @type {const} */ ('grow'), clients: 100, simulators: [sim()], floor: { busyMax: 0.2, p50Ms: 3, maxMs: 4 } }
  const rounds = judgedStep(slos, { distribution: { name: '100 clients', rounds: [round], clients }, connecting: [sim()] }, /** @type {any} */ (measured))
  assert.deepEqual(
    rounds.slo.map((v) => [v.expression, v.ok]),
    [['p99<500ms', false], ['missing=0', false], ['connected>=100% (every client must connect)', true]]
  )
  assert.equal(rounds.verdict, 'fail')
  assert.equal(rounds.why, 'p99 812ms (round 1, 100 clients); missing 40 of 300 expected deliveries (13.3%)')
  assert.equal(rounds.step, 2, 'the measured fields are kept')
  assert.deepEqual(rounds.floor, measured.floor)
  const busy = judgedStep(slos, { distribution: { name: '100 clients', rounds: [{ ...round, missing: 0 }], clients }, connecting: [sim()] },
    /** @type {any} */ ({ ...measured, floor: { ...measured.floor, maxMs: 420 } }))
  assert.equal(busy.verdict, 'inconclusive', 'the floor of the record excuses the delay')
  assert.equal(busy.limitedBy, 'busy')
  const windows = judgedStep(slos, {
    distribution: {
      name: '100 clients', rounds: [], windows: [], deliveries: { total: { missing: 0, expected: 300 } }, clients: { target: 100, connected: 90, failed: 10 }
    },
    connecting: [sim()]
  }, /** @type {any} */ ({ ...measured, floor: null, windowed: { windows: 2 } }))
  assert.deepEqual(windows.slo.map((v) => v.ok), [false, true, false], 'no delay measured; missing from the windows\' sum; 90 of 100 connected')
  assert.equal(windows.slo[2].actual, 'connected 90 of 100 target clients (90%)')
  assert.equal(windows.verdict, 'fail')
  assert.deepEqual(windows.windowed, { windows: 2 })
})

test('advice: more simulator processes, the lean engine, and other hosts past this machine\'s cores', () => {
  assert.deepEqual(simulatorAdvice('saturated', { simulators: 2, clients: 8000, cores: 8, engine: 'lean' }), [
    'add simulator processes: --simulators 4 (each is one process on one core; 2 held 4000 clients each at this step)'
  ])
  const few = simulatorAdvice('busy', { simulators: 2, clients: 8000, cores: 2, engine: 'sio' })
  assert.equal(few.length, 3)
  assert.match(few[1], /--engine lean/)
  assert.match(few[2], /this machine has 2 cores/)
  assert.match(simulatorAdvice('limit', { simulators: 1, clients: 9000, cores: 4, engine: 'lean' })[0], /--simulators 2: file descriptors are per process/)
})
