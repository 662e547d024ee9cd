import assert from 'node:assert/strict'
import test from 'node:test'
import { createRunMetrics } from '../../../../results/metrics/run-metrics.js'

/** @param {number} dropped @param {number} back @param {(number | null)[]} backMs p50, p90, p99, p100 @returns {any} */
const storm = (dropped, back, [p50, p90, p99, p100]) => ({
  startedAt: 1, dropped, back, reasons: {}, errors: {}, attempts: dropped, backMs: { p50, p90, p99, p100 }, endedMs: p100
})

/** @param {any} storms @returns {any} */
const final = (storms) => ({ clients: { target: 10, connected: 10, failed: 0, errors: {}, disconnects: {}, storms }, health: {}, clock: {}, endedAt: 1 })

test('storms from the final reports: how many, dropped, not back, the slowest time back per share', async () => {
  const m = createRunMetrics({ run: 'r' })
  m.observeFinals([
    final({ list: [storm(100, 100, [200, 900, 1500, 2000]), storm(10, 8, [50, 300, null, null])], more: 1 }),
    final(undefined),
    final({ list: [{ ...storm(40, 40, [100, 400, 3000, 3500]), recovered: 30, replayed: 60, lost: 25 }], more: 0 })
  ])
  const text = await m.registry.metrics()
  assert.match(text, /^ioswarm_storms\{run="r",distribution=""\} 4$/m, 'three listed, one more counted')
  assert.match(text, /^ioswarm_storm_clients_dropped\{.*\} 150$/m)
  assert.match(text, /^ioswarm_storm_clients_not_back\{.*\} 2$/m)
  assert.match(text, /^ioswarm_storm_sessions_recovered\{.*\} 30$/m, 'storms of older simulators have none')
  assert.match(text, /^ioswarm_storm_deliveries_lost\{.*\} 25$/m)
  assert.match(text, /^ioswarm_storm_back_seconds\{quantile="0.5",.*\} 0.2$/m)
  assert.match(text, /^ioswarm_storm_back_seconds\{quantile="0.99",.*\} 3$/m)
  assert.match(text, /^ioswarm_storm_back_seconds\{quantile="1",.*\} 3.5$/m)
})

test('no storm: zero storms and no time-back series', async () => {
  const m = createRunMetrics({ run: 'r' })
  m.observeFinals([final({ list: [], more: 0 })])
  const text = await m.registry.metrics()
  assert.match(text, /^ioswarm_storms\{.*\} 0$/m)
  assert.doesNotMatch(text, /^ioswarm_storm_back_seconds\{/m)
})
