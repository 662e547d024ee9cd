import { test } from 'node:test'
import assert from 'node:assert/strict'
import { normalizeRunOptions } from '../../runner/run-options.js'
import { partitionOf } from '../../runner/distribution.js'
import { DEFAULT_MAX_PAYLOAD_BYTES } from '../../simulator/index.js'

test('the simulators\' payload limit: the simulator default, raised for big --size, or as given', () => {
  assert.equal(normalizeRunOptions({}).maxPayloadBytes, DEFAULT_MAX_PAYLOAD_BYTES)
  assert.equal(normalizeRunOptions({ size: '100000' }).maxPayloadBytes, DEFAULT_MAX_PAYLOAD_BYTES)
  // Two messages of 5 MB and their fields: a polling response may carry more than one.
  assert.equal(normalizeRunOptions({ size: '5000000' }).maxPayloadBytes, 2 * (5000000 + 1024))
  assert.equal(normalizeRunOptions({ size: '5000000', maxPayload: '20MB' }).maxPayloadBytes, 20e6)
  assert.throws(() => normalizeRunOptions({ size: '5000000', maxPayload: '5MB' }), /--max-payload 5000000 is smaller than one message of --size 5000000/)
})

test('--metrics-port, --metrics-host and --metrics-linger: none by default, checked when given', () => {
  const none = normalizeRunOptions({})
  assert.deepEqual([none.metricsPort, none.metricsHost, none.metricsLingerMs], [null, '127.0.0.1', 0])
  const given = normalizeRunOptions({ metricsPort: '9464', metricsHost: '0.0.0.0', metricsLinger: '30s' })
  assert.deepEqual([given.metricsPort, given.metricsHost, given.metricsLingerMs], [9464, '0.0.0.0', 30000])
  assert.throws(() => normalizeRunOptions({ metricsPort: 'http' }), /--metrics-port must be a whole number from 0 to 65535/)
  assert.throws(() => normalizeRunOptions({ metricsLinger: 'a while' }), /--metrics-linger must be a duration/)
  assert.deepEqual([none.otlp, none.otlpIntervalMs], [null, 10000])
  assert.equal(
    normalizeRunOptions({ otlp: 'http://collector:4318' }).otlp,
    'http://collector:4318/v1/metrics',
    'the OTLP/HTTP metrics path added to a bare URL'
  )
  assert.equal(normalizeRunOptions({ otlp: 'https://o.example/otlp/v1/metrics', otlpInterval: '2s' }).otlpIntervalMs, 2000)
  assert.throws(() => normalizeRunOptions({ otlp: 'collector:4318' }), /--otlp must be an http/)
})

test('run --phases: implies --rounds none, lasts the profile, splits its largest target over --simulators; refused with the flags it replaces', () => {
  const phased = normalizeRunOptions({ target: 'http://127.0.0.1:1', phases: 'ramp 2s to 12, hold 3s, ramp 2s to 0', simulators: '5' })
  assert.deepEqual([phased.rounds, phased.roundsImplied, phased.durationMs, phased.windowMs], [[], true, 7000, 7000])
  assert.deepEqual(phased.distributions, [{ name: '5x3', simulators: 5, clients: 3, total: 12 }])
  assert.equal(normalizeRunOptions({ phases: 'ramp 1s to 4, hold 2s', window: '1s' }).rounds.length, 0, 'the reference server too: no broadcaster')
  const refused = /** @type {[Record<string, unknown>, RegExp][]} */ ([
    [{ phases: 'ramp 1s to 4, jump 2s' }, /--phases step 2 must be "ramp DURATION to CLIENTS" or "hold DURATION"/],
    [{ phases: 'ramp 1s to 4', rounds: '10x1000' }, /--phases is for a run without rounds: broadcast --rounds need a fixed swarm/],
    [{ phases: 'ramp 1s to 4', duration: '5s' }, /--phases cannot go with --duration/],
    [{ phases: 'ramp 1s to 4', clients: '10' }, /--phases cannot go with --clients/],
    [{ phases: 'ramp 1s to 4', hold: '5s' }, /--phases cannot go with --hold/],
    [{ phases: 'ramp 1s to 4', totalClients: '10' }, /--phases cannot go with --total-clients/],
    [{ phases: 'ramp 1s to 4', ramp: '1s' }, /--phases cannot go with --ramp/],
    [{ phases: 'ramp 1s to 4', distributions: '2x2' }, /--phases cannot go with --distributions/],
    [{ phases: 'ramp 1s to 4, hold 1s', window: '5s' }, /--window 5s is longer than --phases' total 2s/]
  ])
  for (const [input, message] of refused) assert.throws(() => normalizeRunOptions(input), message, JSON.stringify(input))
  assert.equal(normalizeRunOptions({ phases: 'ramp 1s to 4', rounds: 'none' }).durationMs, 1000)
})

test('--distributions gives the layout: a clients flag beside it is refused, not ignored', () => {
  for (const [key, flag] of [['clients', '--clients'], ['totalClients', '--total-clients'], ['clientsPerSimulator', '--clients-per-simulator']]) {
    assert.throws(() => normalizeRunOptions({ distributions: '2x2,1x3', [key]: '10' }), {
      message: `${flag} cannot go with --distributions 2x2,1x3, which gives each distribution's simulators and clients; give one`
    })
  }
  assert.deepEqual(normalizeRunOptions({ distributions: '2x2,1x3', rounds: '1x100' }).distributions.map((d) => d.total), [4, 3])
})

test('--max-clients is the whole swarm\'s room: at least its clients, split over the simulators as the clients are', () => {
  assert.throws(
    () => normalizeRunOptions({ simulators: 2, clientsPerSimulator: 3, maxClients: 5 }),
    /--max-clients is the room of the whole swarm: at least its clients \(6\), got 5/
  )
  const options = normalizeRunOptions({ simulators: 2, clientsPerSimulator: 3, maxClients: 9 })
  const parts = partitionOf({ options, url: 'http://127.0.0.1:1', rampMs: 0 }, options.distributions[0])
  assert.deepEqual(parts.map((p) => [p.clients, p.maxClients]), [[3, 5], [3, 4]])
})

test('--clients is the whole swarm: a bare one with several simulators is refused with both readings; ' +
  '--total-clients and --clients-per-simulator say which', () => {
  const layout = (/** @type {Record<string, unknown>} */ input) =>
    normalizeRunOptions({ rounds: '1x100', ...input }).distributions.map((d) => [d.name, d.simulators, d.total])
  assert.throws(() => normalizeRunOptions({ simulators: 4, clients: 20000 }), (error) => {
    const text = String(error)
    assert.equal(/** @type {any} */ (error).code, 'IOSWARM_ERR_INVALID_OPTION')
    assert.match(
      text,
      /--clients 20000 with --simulators 4 has two readings: 4 simulators × 20,000 = 80,000 clients \(the old reading: --clients-per-simulator 20000\)/
    )
    assert.match(text, /or 20,000 clients in all, 5,000 per simulator \(the new one: --total-clients 20000\)/)
    return true
  })
  assert.throws(() => normalizeRunOptions({ simulators: 3, clients: 10 }), /10 clients in all, 3-4 per simulator/)
  assert.deepEqual(layout({ simulators: 4, totalClients: 20000 }), [['4x5000', 4, 20000]])
  assert.deepEqual(layout({ simulators: 3, totalClients: 10 }), [['3x3-4', 3, 10]])
  assert.deepEqual(layout({ simulators: 4, clientsPerSimulator: 20000 }), [['4x20000', 4, 80000]])
  // Where both readings agree: one simulator, or none here (all joining through Redis).
  assert.deepEqual(layout({ simulators: 1, clients: 7 }), [['1x7', 1, 7]])
  assert.deepEqual(layout({ simulators: 0, expectSimulators: 2, redis: 'redis://127.0.0.1:6379', clients: 5 }), [['0x5', 0, 0]])
  // Without any: the default clients on each simulator, the layout run always had.
  assert.deepEqual(layout({}), [['2x100', 2, 200]])
  const parts = partitionOf(
    { options: normalizeRunOptions({ simulators: 3, totalClients: 10 }), url: 'http://127.0.0.1:1', rampMs: 0 },
    normalizeRunOptions({ simulators: 3, totalClients: 10 }).distributions[0]
  )
  assert.deepEqual(parts.map((p) => p.clients), [4, 3, 3], 'split by the one partition of simulate --workers')
  for (const [input, message] of /** @type {[Record<string, unknown>, RegExp][]} */ ([
    [{ clients: 8, totalClients: 8 }, /--total-clients cannot go with --clients: both say how many clients run/],
    [{ simulators: 4, totalClients: 3 }, /--total-clients 3 is fewer than --simulators 4/]
  ])) assert.throws(() => normalizeRunOptions(input), message)
})

test('--duration is the whole run: a bare one with a ramp is refused with both readings; --total-duration and --hold say which', () => {
  const none = { rounds: 'none', simulators: 1 }
  assert.throws(() => normalizeRunOptions({ ...none, duration: '5m', ramp: '30s' }), (error) => {
    const text = String(error)
    assert.match(text, /--duration 5m with --ramp 30 s has two readings: hold the clients 5m after the ramp, 330 s in all \(the old reading: --hold 5m\)/)
    assert.match(text, /or 5m in all, the ramp included, held 270 s after the ramp \(the new one: --total-duration 5m\)/)
    return true
  })
  // The ramp by default is the reference server's pingInterval (25 s), or the target's, read from it.
  assert.throws(
    () => normalizeRunOptions({ ...none, duration: '60s' }),
    /--duration 60s with the ramp \(25 s: the reference server's pingInterval by default\) has two readings: .*85 s in all/
  )
  assert.throws(
    () => normalizeRunOptions({ ...none, duration: '60s', target: 'http://127.0.0.1:1' }),
    /--duration 60s with the ramp \(the server's pingInterval by default\) has two readings/
  )
  const length = (/** @type {Record<string, unknown>} */ input) => { const o = normalizeRunOptions({ ...none, ...input }); return [o.durationMs, o.holdMs] }
  assert.deepEqual(length({ duration: '60s', ramp: '0' }), [60000, null], 'with --ramp 0 both readings are one')
  assert.deepEqual(length({ totalDuration: '60s', ramp: '30s' }), [60000, null])
  assert.deepEqual(length({ hold: '60s', ramp: '30s' }), [null, 60000])
  for (const [input, message] of /** @type {[Record<string, unknown>, RegExp][]} */ ([
    [{ hold: '5s', totalDuration: '5s' }, /--hold cannot go with --total-duration: both say how long the run lasts/],
    [{ rounds: '1x100', hold: '5s' }, /--hold is for a run without rounds/],
    [{}, /--duration is required without rounds: how long the run lasts, such as --total-duration 5m \(the ramp included\) or --hold 5m/]
  ])) assert.throws(() => normalizeRunOptions({ ...none, ...input }), message, JSON.stringify(input))
})
