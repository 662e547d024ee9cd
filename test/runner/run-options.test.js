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
  assert.equal(normalizeRunOptions({ otlp: 'http://collector:4318' }).otlp, 'http://collector:4318/v1/metrics', 'the OTLP/HTTP metrics path added to a bare URL')
  assert.equal(normalizeRunOptions({ otlp: 'https://o.example/otlp/v1/metrics', otlpInterval: '2s' }).otlpIntervalMs, 2000)
  assert.throws(() => normalizeRunOptions({ otlp: 'collector:4318' }), /--otlp must be an http/)
})

test('run --phases: implies --rounds none, lasts the profile, splits its largest target over --simulators; refused with the flags it replaces', () => {
  const phased = normalizeRunOptions({ target: 'http://127.0.0.1:1', phases: 'ramp 2s to 12, hold 3s, ramp 2s to 0', simulators: '5' })
  assert.deepEqual([phased.rounds, phased.roundsImplied, phased.durationMs, phased.windowMs], [[], true, 7000, 7000])
  assert.deepEqual(phased.distributions, [{ name: '5x3', simulators: 5, clients: 3 }])
  assert.equal(normalizeRunOptions({ phases: 'ramp 1s to 4, hold 2s', window: '1s' }).rounds.length, 0, 'the reference server too: no broadcaster')
  const refused = /** @type {[Record<string, unknown>, RegExp][]} */ ([
    [{ phases: 'ramp 1s to 4, jump 2s' }, /--phases step 2 must be "ramp DURATION to CLIENTS" or "hold DURATION"/],
    [{ phases: 'ramp 1s to 4', rounds: '10x1000' }, /--phases is for a run without rounds: broadcast --rounds need a fixed swarm/],
    [{ phases: 'ramp 1s to 4', duration: '5s' }, /--phases cannot go with --duration/],
    [{ phases: 'ramp 1s to 4', clients: '10' }, /--phases cannot go with --clients/],
    [{ phases: 'ramp 1s to 4', ramp: '1s' }, /--phases cannot go with --ramp/],
    [{ phases: 'ramp 1s to 4', distributions: '2x2' }, /--phases cannot go with --distributions/],
    [{ phases: 'ramp 1s to 4, hold 1s', window: '5s' }, /--window 5s is longer than --phases' total 2s/]
  ])
  for (const [input, message] of refused) assert.throws(() => normalizeRunOptions(input), message, JSON.stringify(input))
  assert.equal(normalizeRunOptions({ phases: 'ramp 1s to 4', rounds: 'none' }).durationMs, 1000)
})

test('--max-clients is the whole swarm\'s room: at least --simulators × --clients, split over the simulators as the clients are', () => {
  assert.throws(() => normalizeRunOptions({ simulators: 2, clients: 3, maxClients: 5 }), /--max-clients is the room of the whole swarm: at least --simulators × --clients \(6\), got 5/)
  const options = normalizeRunOptions({ simulators: 2, clients: 3, maxClients: 9 })
  const parts = partitionOf({ options, url: 'http://127.0.0.1:1', rampMs: 0 }, options.distributions[0])
  assert.deepEqual(parts.map((p) => [p.clients, p.maxClients]), [[3, 5], [3, 4]])
})
