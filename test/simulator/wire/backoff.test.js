import { test } from 'node:test'
import assert from 'node:assert/strict'
import { backoffDelayMs, RECONNECT_DEFAULTS } from '../../../simulator/wire/backoff.js'

test("socket.io-client's defaults: 1 s doubling to 5 s, ±50 %", () => {
  assert.deepEqual(RECONNECT_DEFAULTS, { minMs: 1000, maxMs: 5000, jitter: 0.5 })
  const noJitter = { ...RECONNECT_DEFAULTS, jitter: 0 }
  assert.deepEqual([0, 1, 2, 3, 50].map((a) => backoffDelayMs(a, Math.random, noJitter)), [1000, 2000, 4000, 5000, 5000])
  // rand 0.05: floor(0.5) = 0 is even → shorter by floor(0.05 × 0.5 × 1000) = 25 ms
  assert.equal(backoffDelayMs(0, () => 0.05), 975)
  // rand 0.15: floor(1.5) = 1 is odd → longer by 75 ms
  assert.equal(backoffDelayMs(0, () => 0.15), 1075)
  for (let k = 0; k < 200; k++) {
    const ms = backoffDelayMs(0)
    assert.ok(ms >= 500 && ms <= 1500, String(ms))
  }
})
