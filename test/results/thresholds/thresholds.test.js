import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { METRICS, evaluateThresholds, parseThreshold, thresholdHelp, worstRoundDelay } from '../../../results/thresholds/thresholds.js'
import { EXIT, IoswarmError } from '../../../lib/errors.js'

/** @param {string} name @returns {import('../../../lib/schema/result-schema.js').RunResult} */
const fixture = (name) => JSON.parse(readFileSync(new URL(`../../fixtures/${name}`, import.meta.url), 'utf8'))

test('parseThreshold reads delays, counts and percentages with their units', () => {
  assert.deepEqual(parseThreshold('p99<500ms'), { expression: 'p99<500ms', metric: 'p99', op: '<', value: 500, unit: 'ms' })
  assert.deepEqual(parseThreshold(' p50 <= 200ms '), { expression: 'p50<=200ms', metric: 'p50', op: '<=', value: 200, unit: 'ms' })
  assert.equal(parseThreshold('max<2s').value, 2000)
  assert.equal(parseThreshold('avg<300').value, 300, 'a bare delay is milliseconds')
  assert.equal(parseThreshold('abs.p99<1.5s').value, 1500)
  assert.equal(parseThreshold('sim.loopDelayP99<50ms').value, 50)
  assert.deepEqual(parseThreshold('missing=0'), { expression: 'missing=0', metric: 'missing', op: '=', value: 0, unit: 'count' })
  assert.deepEqual(parseThreshold('missing<=10'), { expression: 'missing<=10', metric: 'missing', op: '<=', value: 10, unit: 'count' })
  assert.deepEqual(parseThreshold('connected>=99%'), { expression: 'connected>=99%', metric: 'connected', op: '>=', value: 99, unit: '%' })
  assert.deepEqual(parseThreshold('failed==0'), { expression: 'failed==0', metric: 'failed', op: '=', value: 0, unit: 'count' })
  assert.deepEqual(parseThreshold('sim.cpu<90%'), { expression: 'sim.cpu<90%', metric: 'sim.cpu', op: '<', value: 90, unit: '%' })
  assert.equal(parseThreshold('stale=0').unit, 'count')
})

test('a bad threshold is a usage error naming --assert and what is allowed', () => {
  /** @type {[string, RegExp][]} */
  const cases = [['p99', /is not METRIC OP VALUE/], ['p99<abc', /is not METRIC OP VALUE/], ['p42<1s', /unknown metric "p42"/],
    ['p99<5%', /takes a duration/], ['missing<1.5', /whole count/], ['sim.cpu<5ms', /takes a % for sim.cpu/], ['stale<1%', /whole count/],
    ['p99!=1ms', /not METRIC/]]
  for (const [expr, problem] of cases) {
    assert.throws(() => parseThreshold(expr), (error) => {
      assert.ok(error instanceof IoswarmError)
      assert.equal(error.exitCode, EXIT.USAGE)
      assert.equal(error.flag, '--assert')
      assert.match(error.message, /^--assert /)
      assert.match(error.message, problem)
      assert.match(error.message, /Operators: < <= > >= =/)
      assert.match(error.message, /Metrics: p50, p90, p99, max, mean, avg, abs\.p50.*sim\.cpu/)
      return true
    }, expr)
  }
})

test('thresholdHelp lists every metric', () => {
  const help = thresholdHelp()
  for (const metric of Object.keys(METRICS)) assert.match(help, new RegExp(`^  ${metric.replace('.', '\\.')} `, 'm'))
})

test('delays are the worst round of any distribution, and say which', () => {
  const run = fixture('run-small.json')
  const [p99, p99Equal, abs, avg] = evaluateThresholds(run, ['p99<24.6ms', 'p99<=24.6ms', 'abs.p99<1s', 'avg<7ms'].map(parseThreshold))
  assert.deepEqual(p99, { expression: 'p99<24.6ms', ok: false, actual: 'p99 24.6ms (round 2, 4x250)' })
  assert.equal(p99Equal.ok, true)
  assert.deepEqual(abs, { expression: 'abs.p99<1s', ok: true, actual: 'abs.p99 27.6ms (round 2, 4x250)' })
  assert.deepEqual(avg, { expression: 'avg<7ms', ok: false, actual: 'avg 7.98ms (round 2, 4x250)' })
})

test('missing, connected and failed are totals, as counts or percentages', () => {
  const run = fixture('run-small.json')
  const verdicts = evaluateThresholds(
    run,
    ['missing=0', 'missing<=1', 'missing<0.01%', 'connected>=99%', 'connected>=99.95%', 'connected=1998', 'failed=0', 'failed<=0.1%'].map(parseThreshold)
  )
  assert.deepEqual(verdicts.map((v) => v.ok), [false, true, true, true, false, true, false, true])
  assert.equal(verdicts[0].actual, 'missing 1 of 19980 expected deliveries (0.005%)')
  assert.equal(verdicts[3].actual, 'connected 1998 of 2000 target clients (99.9%)')
})

test('sim.* is the worst simulator, stale counts simulators', () => {
  const run = fixture('run-small.json')
  const [loop, cpu, saturated, stale] = evaluateThresholds(run, ['sim.loopDelayP99<50ms', 'sim.cpu<=99%', 'sim.saturated=0', 'stale=1'].map(parseThreshold))
  assert.deepEqual(loop, { expression: 'sim.loopDelayP99<50ms', ok: false, actual: 'sim.loopDelayP99 94.0ms (2x500-sim-1, 2x500)' })
  assert.deepEqual(cpu, { expression: 'sim.cpu<=99%', ok: true, actual: 'sim.cpu 99% (2x500-sim-1, 2x500)' })
  assert.equal(saturated.ok, false)
  assert.deepEqual(stale, { expression: 'stale=1', ok: true, actual: 'stale 1 (4x250-sim-4 in 4x250)' })
})

test('a metric without data fails and says so', () => {
  const run = fixture('run-sparse.json')
  const none = { ...run, distributions: run.distributions.slice(1) }
  const [p99, abs, cpu, missing] = evaluateThresholds(none, ['p99<1s', 'abs.p99<1s', 'sim.cpu<100%', 'missing<1%'].map(parseThreshold))
  assert.deepEqual(p99, { expression: 'p99<1s', ok: false, actual: 'p99: no data (no message arrived)' })
  assert.equal(abs.ok, false)
  assert.match(cpu.actual, /no simulator reported its health/)
  assert.equal(missing.ok, false, 'a share of nothing expected is no data')
})

test('storm thresholds: recover.* is the worst storm\'s time (never, if clients stayed away), ' +
  'lost the gap deliveries never received, unreturned the clients that never came back', () => {
  const run = JSON.parse(readFileSync(new URL('../../fixtures/run-small.json', import.meta.url), 'utf8'))
  const storm = (/** @type {number | null} */ p100, dropped = 10, back = 10, lost = 0) => ({
    startedAt: 1,
    dropped,
    back,
    reasons: {},
    errors: {},
    attempts: dropped,
    backMs: { p50: 500, p90: 900, p99: 1000, p100 },
    endedMs: p100,
    recovered: 0,
    replayed: 4,
    lost,
    simulator: 's1'
  })
  /** @param {any[]} storms the first distribution's */
  const withStorms = (storms) => ({
    ...run,
    distributions: run.distributions.map((/** @type {any} */ d, /** @type {number} */ k) => ({
      ...d, clients: { ...d.clients, storms: k === 0 ? storms : [] }
    }))
  })
  const check = (/** @type {any} */ result, /** @type {string} */ expr) => evaluateThresholds(result, [parseThreshold(expr)])[0]
  assert.equal(check(withStorms([storm(1200), storm(3000)]), 'recover.max<2s').ok, false)
  assert.match(check(withStorms([storm(1200), storm(3000)]), 'recover.max<2s').actual, /recover\.max 3000ms \(s1, /)
  assert.equal(check(withStorms([storm(1200)]), 'recover.p99<=1s').ok, true)
  assert.equal(check(withStorms([storm(null, 10, 7)]), 'unreturned=0').ok, false)
  assert.match(check(withStorms([storm(null, 10, 7)]), 'unreturned=0').actual, /3 dropped clients never came back in 1 storm/)
  assert.equal(check(withStorms([storm(1200, 10, 10, 3), storm(900)]), 'lost=0').ok, false)
  assert.match(check(withStorms([storm(1200, 10, 10, 3), storm(900)]), 'lost=0').actual, /lost 3 gap deliveries \(8 replayed\) in 2 storms/)
  assert.equal(check(withStorms([storm(1200), storm(900)]), 'lost=0').ok, true)
  assert.match(check(withStorms([storm(null, 10, 7)]), 'recover.max<60m').actual, /never/)
  assert.equal(check(withStorms([]), 'lost=0').ok, true, 'no storm, nobody lost')
  assert.match(check(withStorms([]), 'recover.p99<10s').actual, /no reconnect storm in this run/)
})

test('misdelivered and duplicated: totals of the delivery breakdowns, as counts or % of the copies that arrived', () => {
  const run = fixture('run-small.json')
  const [mis, misPct, dup, dupZero] = evaluateThresholds(run, ['misdelivered=0', 'misdelivered<0.1%', 'duplicated<=2', 'duplicated=0'].map(parseThreshold))
  // 2x500: 13,438 received + 3 misdelivered + 2 duplicated; 4x250: 9,980 received.
  assert.deepEqual(mis, { expression: 'misdelivered=0', ok: false, actual: 'misdelivered 3 of 23423 copies that arrived (0.013%)' })
  assert.equal(misPct.ok, true)
  assert.deepEqual([dup.ok, dupZero.ok], [true, false])
  // A result without breakdowns (older than it) reads the messages' counts, when they have them.
  const older = {
    ...run,
    distributions: run.distributions.map((d) => ({ ...d, deliveries: undefined, messages: d.messages.map((m) => ({ ...m, misdelivered: 1 })) }))
  }
  assert.equal(evaluateThresholds(older, [parseThreshold('misdelivered=20')])[0].ok, true)
  const oldest = {
    ...run,
    distributions: run.distributions.map((d) => ({ ...d, deliveries: undefined, messages: d.messages.map(({ misdelivered, duplicates, ...m }) => m) }))
  }
  assert.deepEqual(evaluateThresholds(oldest, [parseThreshold('misdelivered=0')])[0], {
    expression: 'misdelivered=0',
    ok: false,
    actual: 'misdelivered: no data (the result predates delivery checks)'
  })
  const sparse = fixture('run-sparse.json')
  assert.match(
    evaluateThresholds({ ...sparse, distributions: sparse.distributions.slice(1) }, [parseThreshold('duplicated=0')])[0].actual,
    /no data \(no message arrived\)/
  )
})

test('ack.*: emit → ack percentiles of --emit and the hooks\' emitWithAck, merged, worst distribution; no emit acked = no data', () => {
  const run = fixture('run-small.json')
  const ack = run.distributions[0].scenario
  assert.ok(ack?.emits?.ackTime && ack.hooks)
  const [p99, max, p50] = evaluateThresholds(run, ['ack.p99<200ms', 'ack.max<100ms', 'ack.p50<=25ms'].map(parseThreshold))
  assert.equal(p99.ok, true)
  assert.match(p99.actual, /^ack\.p99 4\d\.\d+ms \(2x500, 2430 acks\)$/, '2,390 --emit acks and 40 of the hooks')
  assert.equal(max.ok, false, 'the slowest ack took 150 ms more')
  assert.equal(p50.ok, true)
  const none = { ...run, distributions: run.distributions.slice(1) }
  assert.deepEqual(evaluateThresholds(none, [parseThreshold('ack.p99<1s')])[0].ok, false)
  assert.match(evaluateThresholds(none, [parseThreshold('ack.p99<1s')])[0].actual, /no data \(no emit was acked/)
})

test('ack.timeouts and join.failed: totals, as counts or % of what was sent; nothing sent = no data', () => {
  const run = fixture('run-small.json')
  const [timeouts, timeoutsPct, joins, joinsPct] = evaluateThresholds(
    run,
    ['ack.timeouts=0', 'ack.timeouts<1%', 'join.failed<=4', 'join.failed<0.1%'].map(parseThreshold)
  )
  assert.deepEqual(timeouts, { expression: 'ack.timeouts=0', ok: false, actual: 'ack.timeouts 8 of 2440 emits sent (0.328%)' })
  assert.equal(timeoutsPct.ok, true)
  assert.deepEqual(joins, { expression: 'join.failed<=4', ok: true, actual: 'join.failed 4 of 1000 joins sent (0.4%)' })
  assert.equal(joinsPct.ok, false)
  const none = { ...run, distributions: run.distributions.slice(1) }
  const [t, j] = evaluateThresholds(none, ['ack.timeouts=0', 'join.failed=0'].map(parseThreshold))
  assert.deepEqual([t.ok, t.actual], [false, 'ack.timeouts: no data (no client emitted)'])
  assert.deepEqual([j.ok, j.actual], [false, 'join.failed: no data (no --join was sent)'])
  const d = run.distributions[0]
  const noAck = { ...run, distributions: [{ ...d, scenario: { emits: { ...d.scenario?.emits, acked: 0, timedOut: 0, failed: 0, ackTime: null } } }] }
  assert.match(evaluateThresholds(/** @type {any} */ (noAck), [parseThreshold('ack.timeouts=0')])[0].actual, /no emit waited for an ack: --emit-ack/)
})

test('the scenario metrics parse with their units', () => {
  assert.deepEqual(parseThreshold('misdelivered=0'), { expression: 'misdelivered=0', metric: 'misdelivered', op: '=', value: 0, unit: 'count' })
  assert.deepEqual(parseThreshold('duplicated<0.5%'), { expression: 'duplicated<0.5%', metric: 'duplicated', op: '<', value: 0.5, unit: '%' })
  assert.deepEqual(parseThreshold('ack.p99<200ms'), { expression: 'ack.p99<200ms', metric: 'ack.p99', op: '<', value: 200, unit: 'ms' })
  assert.equal(parseThreshold('ack.max<5s').value, 5000)
  assert.equal(parseThreshold('ack.timeouts<1%').unit, '%')
  assert.equal(parseThreshold('join.failed=0').unit, 'count')
  assert.throws(() => parseThreshold('ack.p99<5%'), /takes a duration/)
  assert.throws(() => parseThreshold('misdelivered<0.5'), /whole count/)
  assert.throws(() => parseThreshold('ack.p95<1s'), /unknown metric "ack\.p95"/)
})

test('worstRoundDelay (what --assert and capacity\'s --slo read of rounds): the worst round, relative or absolute', () => {
  const rounds = [
    {
      round: 1,
      relative: { count: 5, p50: 1, p90: 2, p99: 3, max: 4, mean: 1, min: 0 },
      absolute: { count: 5, p50: 10, p90: 20, p99: 30, max: 40, mean: 10, min: 0, uncertaintyMs: 0 },
      avgOfAverages: { relativeMs: 1.5, absoluteMs: 12 }
    },
    {
      round: 2, relative: { count: 5, p50: 2, p90: 3, p99: 9, max: 10, mean: 2, min: 0 }, absolute: null, avgOfAverages: { relativeMs: 2.5, absoluteMs: null }
    },
    { round: 3, relative: { count: 0, p50: 0, p90: 0, p99: 99, max: 0, mean: 0, min: 0 }, absolute: null, avgOfAverages: { relativeMs: 0, absoluteMs: null } }
  ]
  const r = /** @type {any} */ (rounds)
  assert.equal(worstRoundDelay(r, 'p99')?.value, 9, 'a round without deliveries does not count')
  assert.equal(worstRoundDelay(r, 'avg')?.value, 2.5)
  assert.equal(worstRoundDelay(r, 'abs.p99')?.value, 30)
  assert.equal(worstRoundDelay(r, 'abs.avg')?.value, 12)
  assert.equal(worstRoundDelay([], 'p99'), null)
})

test('a run of windows only (a capacity step: the windows of its hold): ' +
  'ack.timeouts, reply.* and custom.* measured over its windows, the worst window named', () => {
  const delay = (/** @type {number} */ p99, count = 4) => ({ count, min: 1, max: p99 + 1, mean: p99 / 2, p50: p99 / 2, p90: p99, p99 })
  const at = Date.UTC(2026, 10, 26, 14, 2, 10)
  const window = (/** @type {number} */ k, /** @type {number} */ replyP99, /** @type {number} */ lobbyP99) => ({
    startAt: at + k * 5000,
    endAt: at + (k + 1) * 5000,
    emits: { sent: 10, acked: 9, timedOut: k, failed: 0, closed: 0, ackTime: delay(20) },
    replies: { sent: 5, replied: 5 - k, timedOut: k, failed: 0, time: delay(replyP99) },
    custom: { timings: { join_lobby: delay(lobbyP99, 3) }, counts: { joined: 2 }, refused: 0, refusedNames: [] }
  })
  const result = /** @type {any} */ ({
    distributions: [
      { name: '8 clients', rounds: [], windows: [window(0, 40, 90), window(1, 70, 30)], clients: { target: 8, connected: 8, failed: 0 }, simulatorList: [] }
    ]
  })
  const expressions = ['ack.timeouts=0', 'ack.timeouts<10%', 'reply.p99<50ms', 'reply.timeouts<=1', 'custom.join_lobby.p99<100ms', 'custom.join_lobby.count=6',
    'custom.joined.count>=4', 'custom.joined.p99<1s']
  const verdicts = evaluateThresholds(result, expressions.map(parseThreshold))
  assert.deepEqual(verdicts.map((v) => [v.ok, v.actual]), [
    [false, 'ack.timeouts 1 of 20 emits sent (5%)'],
    [true, 'ack.timeouts 1 of 20 emits sent (5%)'],
    [false, 'reply.p99 70.0ms (window 14:02:15–14:02:20, 8 clients, 4 replies)'],
    [true, 'reply.timeouts 1 of 10 emits that waited (10%)'],
    [true, 'custom.join_lobby.p99 90.0ms (window 14:02:10–14:02:15, 8 clients, 3 timings)'],
    [true, 'custom.join_lobby.count 6 timings'],
    [true, 'custom.joined.count 4'],
    [false, 'custom.joined.p99: joined is a count, not a timing: custom.joined.count']
  ])
  // A run's whole figures stand beside its windows: a window worse than the whole is named, counts are the whole's.
  const replies = { sent: 12, replied: 12, timedOut: 0, failed: 0, time: delay(50, 12) }
  const custom = { timings: { join_lobby: delay(60, 6) }, counts: { joined: 4 } }
  const run = { distributions: [{ ...result.distributions[0], scenario: { replies }, custom }] }
  const [reply, timeouts, lobby] = evaluateThresholds(
    /** @type {any} */ (run),
    ['reply.p99<60ms', 'reply.timeouts=0', 'custom.join_lobby.p99<100ms'].map(parseThreshold)
  )
  assert.equal(reply.actual, 'reply.p99 70.0ms (window 14:02:15–14:02:20, 8 clients, 4 replies)')
  assert.deepEqual([timeouts.ok, timeouts.actual], [true, 'reply.timeouts 0 of 12 emits that waited (0%)'])
  assert.equal(lobby.actual, 'custom.join_lobby.p99 90.0ms (window 14:02:10–14:02:15, 8 clients, 3 timings)')
})
