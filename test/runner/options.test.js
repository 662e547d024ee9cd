import { test } from 'node:test'
import assert from 'node:assert/strict'
import { normalizeRunOptions } from '../../runner/options.js'
import { DEFAULT_MAX_PAYLOAD_BYTES } from '../../simulator/index.js'

test('the simulators\' payload limit: the simulator default, raised for big --size, or as given', () => {
  assert.equal(normalizeRunOptions({}).maxPayloadBytes, DEFAULT_MAX_PAYLOAD_BYTES)
  assert.equal(normalizeRunOptions({ size: '100000' }).maxPayloadBytes, DEFAULT_MAX_PAYLOAD_BYTES)
  // Two messages of 5 MB and their fields: a polling response may carry more than one.
  assert.equal(normalizeRunOptions({ size: '5000000' }).maxPayloadBytes, 2 * (5000000 + 1024))
  assert.equal(normalizeRunOptions({ size: '5000000', maxPayload: '20MB' }).maxPayloadBytes, 20e6)
  assert.throws(() => normalizeRunOptions({ size: '5000000', maxPayload: '5MB' }), /--max-payload 5000000 is smaller than one message of --size 5000000/)
})
