import { test } from 'node:test'
import assert from 'node:assert/strict'
import { partitionOf, simulatorOptions } from '../../runner/distribution.js'
import { normalizeRunOptions } from '../../runner/options.js'
import { normalizeSimOptions } from '../../simulator/index.js'

/** @param {Record<string, unknown>} input */
function optionsFor (input) {
  const options = normalizeRunOptions({ simulators: 1, clients: 50, ...input })
  return simulatorOptions({ options, url: 'http://127.0.0.1:3000', rampMs: 500 }, options.distributions[0], 0)
}

test('local simulators get the simulate options given to run, normalised by the simulator\'s own normaliser', () => {
  const options = optionsFor({ engine: 'lean', wsClient: 'builtin', maxOpenMessages: '7', keepMessages: '3', transport: 'websocket:1,polling:1', keepAlive: false })
  assert.deepEqual(options, {
    ...normalizeSimOptions({ url: 'http://127.0.0.1:3000', clients: 50, ramp: '500ms', engine: 'lean', wsClient: 'builtin', maxOpenMessages: 7, keepMessages: 3, transport: 'websocket:1,polling:1', keepAlive: false, maxPayload: 1_000_000 }),
    emitters: { count: 50 }, // --emitters 100 % of the run's local clients, this simulator's slice
    id: '1x50-sim1',
    // The local simulators share the host's source addresses (--source-address): a slice of the port range each.
    sourcePortSlice: { index: 0, count: 1 }
  })
  assert.equal(options.maxOpenMessages, 7)
  assert.equal(options.keepAlive, false)
  assert.equal(optionsFor({ engine: 'lean' }).wsClient, 'ws')
  assert.equal(optionsFor({ engine: 'sio' }).wsClient, null)
})

test('each local simulator\'s clients keep their index in the whole run (--client-offset)', () => {
  const options = normalizeRunOptions({ simulators: 3, clients: 40, auth: '{"n":{{i}}}' })
  const offsets = [0, 1, 2].map((i) => simulatorOptions({ options, url: 'http://127.0.0.1:3000', rampMs: 500 }, options.distributions[0], i).clientOffset)
  assert.deepEqual(offsets, [0, 40, 80])
  // A share of emitters is exact over the run (25 % of 3 × 5 clients: 4, not 1 + 1 + 1 rounded per simulator).
  const shared = normalizeRunOptions({ simulators: 3, clients: 5, emitters: '25%' })
  const counts = [0, 1, 2].map((i) => simulatorOptions({ options: shared, url: 'http://127.0.0.1:3000', rampMs: 500 }, shared.distributions[0], i).emitters)
  assert.equal(counts.reduce((sum, e) => sum + ('count' in e ? e.count : NaN), 0), 4)
  assert.equal(simulatorOptions({ options, url: 'http://127.0.0.1:3000', rampMs: 500 }, options.distributions[0], 1).auth, '{"n":{{i}}}')
})

test('the local simulators are the parts of one swarm; --simulators 0 (all of them elsewhere) has none', () => {
  const options = normalizeRunOptions({ simulators: 3, clients: 5, emitters: '25%' })
  const parts = partitionOf({ options, url: 'http://127.0.0.1:3000', rampMs: 500 }, options.distributions[0])
  assert.deepEqual(parts.map((p) => [p.clients, p.clientOffset]), [[5, 0], [5, 5], [5, 10]])
  const remote = normalizeRunOptions({ simulators: 0, expectSimulators: 2, clients: 5, redis: 'redis://127.0.0.1:6379' })
  assert.deepEqual(partitionOf({ options: remote, url: 'http://127.0.0.1:3000', rampMs: 500 }, remote.distributions[0]), [])
})
