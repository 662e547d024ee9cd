import { test } from 'node:test'
import assert from 'node:assert/strict'
import { normalizeCapacityOptions, parseSlos } from '../../../runner/capacity/capacity-options.js'
import { parseGrowth, parsePrecision } from '../../../lib/cli-options/tables/capacity.js'

test('defaults: --start 1000, --max 100000, --precision 5%, --growth 2, --rounds 3x1000, and every client must connect', () => {
  const o = normalizeCapacityOptions({ slo: ['p99<500ms', 'missing=0'] })
  assert.deepEqual([o.startClients, o.maxClients, o.precision, o.growth, o.simulators], [1000, 100000, 0.05, 2, 2])
  assert.deepEqual(o.rounds, [{ count: 3, intervalMs: 1000 }])
  assert.deepEqual(o.slo.map((s) => [s.expression, s.implicit ?? false]), [['p99<500ms', false], ['missing=0', false], ['connected>=100%', true]])
  assert.equal(normalizeCapacityOptions({ slo: 'connected>=99%' }).slo.length, 1, 'a connected SLO replaces the implicit one')
  assert.equal(o.target, null)
  assert.equal(o.engine, 'sio')
})

test('what capacity shares with run is checked by run\'s normaliser; other commands\' options are not taken', () => {
  const o = normalizeCapacityOptions({
    slo: 'p99<1s',
    target: 'http://10.0.0.7:3000',
    token: 't',
    engine: 'lean',
    transport: 'websocket:3,polling:1',
    ramp: '5s',
    distributions: '2x500',
    restartServerAt: '30s'
  })
  assert.equal(o.target, 'http://10.0.0.7:3000')
  assert.equal(o.transport, 'websocket:3,polling:1')
  assert.equal(o.rampMs, 5000)
  assert.equal(/** @type {Record<string, unknown>} */ (o.simulatorInput).engine, 'lean')
  assert.throws(() => normalizeCapacityOptions({ slo: 'p99<1s', target: 'http://10.0.0.7:3000', rounds: '3x1000' }), /--token is required with --target/)
  // --target without --token (or --rounds none): no rounds, each step held --step-duration and judged on its windows.
  const none = normalizeCapacityOptions({ slo: ['ack.p99<200ms', 'p99<500ms'], target: 'http://10.0.0.7:3000' })
  assert.deepEqual([none.rounds, none.stepDurationMs, none.windowMs, none.vary], [[], 20000, 5000, 'clients'])
  assert.equal(/** @type {Record<string, unknown>} */ (none.simulatorInput).window, '5000ms')
  // What the windows hold beside deliveries: acks timed out, replies (--reply-event, emitAndWait), a scenario's own figures.
  const own = normalizeCapacityOptions({
    slo: ['ack.timeouts<1%', 'reply.p99<300ms', 'reply.timeouts=0', 'custom.join_lobby.p99<300ms', 'custom.joined.count>=1'],
    rounds: 'none'
  })
  assert.deepEqual(
    own.slo.map((s) => [s.metric, s.unit]),
    [
      ['ack.timeouts', '%'],
      ['reply.p99', 'ms'],
      ['reply.timeouts', 'count'],
      ['custom.join_lobby.p99', 'ms'],
      ['custom.joined.count', 'count'],
      ['connected', '%']
    ]
  )
  const rate = normalizeCapacityOptions({
    slo: 'ack.p99<200ms',
    rounds: 'none',
    vary: 'emit-rate',
    clients: 2000,
    emit: 'chat {}',
    emitters: '10%',
    start: 100,
    max: 5000
  })
  assert.deepEqual([rate.clients, rate.emitters, rate.startClients, rate.maxClients, rate.startLevel, rate.maxLevel], [2000, 200, 2000, 2000, 100, 5000])
  assert.equal(/** @type {Record<string, unknown>} */ (rate.simulatorInput).emitRate, '100/200s', 'the first step\'s rate, spread over the emitters')
  assert.throws(() => normalizeCapacityOptions({ slo: 'p99<1s', engine: 'turbo' }), /--engine must be one of sio, lean/)
})

test('bad input names the flag: an SLO without an operator or of a metric that is not the server\'s, --start above --max, --precision out of range', () => {
  const cases = [
    [{ slo: 'p99' }, /^--slo "p99" is not METRIC OP VALUE/],
    [{ slo: 'p99 500ms' }, /^--slo "p99 500ms" is not METRIC OP VALUE/],
    [{}, /^--slo is required/],
    [{ slo: 'sim.cpu<90%' }, /^--slo "sim.cpu<90%": sim.cpu is not a service level of the server/],
    [{ slo: 'recover.p99<10s' }, /^--slo "recover.p99<10s": recover.p99 is not/],
    [{ slo: 'p99<1s', start: 5000, max: 1000 }, /^--start 5000 is more than --max 1000/],
    [{ slo: 'p99<1s', start: 'lots' }, /^--start must be a whole number/],
    [{ slo: 'p99<1s', precision: '0%' }, /^--precision must be a percentage from 0.1% to 50%/],
    [{ slo: 'p99<1s', precision: '75%' }, /^--precision must be a percentage/],
    [{ slo: 'p99<1s', growth: '1' }, /^--growth must be a factor from 1.1 to 10/],
    [{ slo: 'p99<1s', simulators: 0 }, /^--simulators must be at least 1/],
    [{ slo: 'p99<1s', simulators: 4, start: 3 }, /^--start 3 is fewer than --simulators 4/],
    [{ slo: 'p99<1s', sessionLifetime: '5m' }, /^--session-lifetime is not for capacity/],
    [{ slo: 'p99<1s', rounds: 'soon' }, /^--rounds/],
    [{ slo: 'p99<1s', vary: 'users' }, /^--vary must be one of clients, emit-rate, got "users"/],
    [{ slo: 'p99<1s', rounds: 'none', vary: 'emit-rate', emit: 'chat {}' }, /^--clients is required with --vary emit-rate/],
    [{ slo: 'p99<1s', rounds: 'none', vary: 'emit-rate', clients: 100 }, /^--emit is required with --vary emit-rate/],
    [{ slo: 'p99<1s', rounds: 'none', vary: 'emit-rate', clients: 100, emit: 'chat {}', emitRate: '1/s' }, /^--emit-rate is what --vary emit-rate searches/],
    [{ slo: 'p99<1s', vary: 'emit-rate', clients: 100, emit: 'chat {}' }, /^--vary emit-rate is judged on windows/],
    [{ slo: 'p99<1s', clients: 100 }, /^--clients is for --vary emit-rate/],
    [{ slo: 'p99<1s', rounds: 'none', vary: 'emit-rate', clients: 10, emit: 'chat {}', max: 20000 },
      /^--max 20000 messages a second is more than 10 emitters can send/],
    [{ slo: 'p99<1s', rounds: 'none', stepDuration: '5s', window: '5s' }, /^--step-duration 5s is shorter than 2 windows/],
    [{ slo: 'ack.p99<1s' },
      /^--slo "ack.p99<1s": ack.p99 judges the clients' own traffic \(emits' acks, replies, a scenario's figures\), which only a step without rounds measures/],
    [{ slo: 'custom.join_lobby.p99<1s' }, /^--slo "custom.join_lobby.p99<1s": custom.join_lobby.p99 judges the clients' own traffic/],
    [{ slo: 'reply.timeouts=0', rounds: '3x1000' }, /^--slo "reply.timeouts=0": reply.timeouts judges the clients' own traffic/],
    [{ slo: 'echo=0', rounds: 'none' },
      /^--slo "echo=0": echo is not a service level of the server .*SLO metrics: .*ack\.timeouts, reply\.p50, .*custom\.NAME\.p50\|p90\|p99\|max\|mean\|count$/]
  ]
  for (const [input, pattern] of cases) {
    assert.throws(() => normalizeCapacityOptions(/** @type {Record<string, unknown>} */ (input)), (error) => {
      assert.match(/** @type {Error} */ (error).message, /** @type {RegExp} */ (pattern))
      assert.equal(/** @type {import('../../../lib/errors.js').IoswarmError} */ (error).exitCode, 2)
      return true
    }, JSON.stringify(input))
  }
})

test('--precision takes 5% or 5; --growth a factor; SLOs keep the --assert grammar', () => {
  assert.equal(parsePrecision('5%', '--precision'), 0.05)
  assert.equal(parsePrecision('2.5', '--precision'), 0.025)
  assert.equal(parseGrowth('1.5', '--growth'), 1.5)
  const [p99, missing, abs] = parseSlos(['p99 < 0.5s', 'missing<=1%', 'abs.p99<1s'])
  assert.deepEqual([p99.metric, p99.op, p99.value, p99.unit], ['p99', '<', 500, 'ms'])
  assert.deepEqual([missing.metric, missing.unit], ['missing', '%'])
  assert.equal(abs.metric, 'abs.p99')
})
