import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { messageCharts, orderMessages } from '../../../../results/report/charts/charts-messages.js'

/** @returns {import('../../../../lib/schema/result-schema.js').RunResult} */
const small = () => JSON.parse(readFileSync(new URL('../../../fixtures/run-small.json', import.meta.url), 'utf8'))

test('orderMessages sorts by round and sequence, then sentAt, messages without them last', () => {
  const m = small().distributions[0].messages
  const loose = { ...m[0], id: 'content:abc', round: null, seq: null }
  const ordered = orderMessages([m[7], loose, m[2], m[0]])
  assert.deepEqual(ordered.map((x) => x.id), ['1.1', '1.3', '2.3', 'content:abc'])
})

test('relative delay has a line per statistic, the simulator floor, and a shaded band per round', () => {
  const d = small().distributions[0]
  const [relative] = messageCharts(d, 'd1')
  const datasets = relative.config?.data.datasets
  assert.deepEqual(
    datasets.map((/** @type {{ label: string }} */ s) => s.label),
    ['p50', 'p90', 'p99', 'max', 'simulator floor', 'round 1 (5 × 1000 ms)', 'round 2 (5 × 500 ms)']
  )
  assert.deepEqual(datasets[4].data, d.messages.map((m) => m.floor?.cpuMs))
  assert.ok(datasets[4].data[2] > datasets[4].data[0] * 10, 'the saturated simulator\'s drains stand out')
  assert.deepEqual(datasets[5].data, [1, 1, 1, 1, 1, null, null, null, null, null])
  assert.deepEqual(relative.config?.data.labels.slice(4, 6), ['1.5', '2.1'])
  assert.equal(relative.points, 50)
  assert.match(relative.caption, /Dashed: the simulator floor/)
})

test('results of simulators without a floor draw the delays alone', () => {
  const d = small().distributions[0]
  const [relative] = messageCharts({ ...d, messages: d.messages.map(({ floor, ...m }) => m) }, 'd1')
  assert.deepEqual(
    relative.config?.data.datasets.slice(0, 5).map((/** @type {{ label: string }} */ s) => s.label),
    ['p50', 'p90', 'p99', 'max', 'round 1 (5 × 1000 ms)']
  )
  assert.equal(relative.points, 40)
  assert.doesNotMatch(relative.caption, /floor/)
})

test('absolute latency spans p50 − u to p99 + u and says when no message carried sentAt', () => {
  const d = small().distributions[0]
  const [, absolute] = messageCharts(d, 'd1')
  const [lower, upper] = absolute.config?.data.datasets
  const m = d.messages[0]
  assert.equal(lower.data[0], Math.round((m.absolute?.p50 ?? 0) * 1000 - 400) / 1000)
  assert.equal(upper.data[0], Math.round((m.absolute?.p99 ?? 0) * 1000 + 400) / 1000)
  assert.equal(upper.fill, '-1')
  const without = { ...d, messages: d.messages.map((x) => ({ ...x, absolute: null, sentAt: null })) }
  const [, none] = messageCharts(without, 'd1')
  assert.equal(none.config, null)
  assert.equal(none.note, 'no data: no message carried sentAt, so no absolute latency')
})

test('missing per message and the connect-time curve carry the numbers of the result', () => {
  const d = small().distributions[0]
  const [, , missing, connect] = messageCharts(d, 'd1')
  assert.deepEqual(missing.config?.data.datasets[0].data, [0, 0, 0, 0, 0, 0, 0, 1, 0, 0])
  assert.match(missing.caption, /^1 of 10000 expected deliveries never arrived/)
  assert.deepEqual(connect.config?.data.datasets[0].data, d.connectTime.curve.map((p) => ({ x: p.percentile, y: p.ms })))
})

test('many rounds or messages keep the chart readable: no legend entry per round, no dots', () => {
  const d = small().distributions[0]
  const many = { ...d, messages: Array.from({ length: 80 }, (_, k) => ({ ...d.messages[0], id: `${k % 8 + 1}.${k}`, round: k % 8 + 1, seq: k })) }
  const [relative] = messageCharts(many, 'd1')
  const datasets = relative.config?.data.datasets
  assert.equal(datasets.filter((/** @type {{ ioswarmBand?: boolean }} */ s) => s.ioswarmBand).length, 8)
  const bands = datasets.filter((/** @type {{ ioswarmBand?: boolean }} */ s) => s.ioswarmBand)
  assert.ok(bands.every((/** @type {{ ioswarmNoLegend?: boolean }} */ s) => s.ioswarmNoLegend))
  assert.equal(datasets[0].pointRadius, 0)
  assert.equal(relative.config?.options.plugins.legend.display, true)
})

test('the connect-time chart says how fast the server accepted handshakes, when that was measured', () => {
  const d = small().distributions[0]
  const [, , , before] = messageCharts(d, 'd1')
  assert.doesNotMatch(before.caption, /handshake accepted/, 'older results have no accept time')
  assert.match(before.caption, /max 29\.0ms \(TLS p50 1\.90ms, p99 6\.40ms\)$/, 'the TLS handshake beside the connect time')
  const [, , , plain] = messageCharts(small().distributions[1], 'd2')
  assert.doesNotMatch(plain.caption, /TLS/, 'no TLS time without TLS (or in older results)')
  const [, , , after] = messageCharts({ ...d, acceptTime: { count: 500, mean: 30, min: 5, max: 90, p50: 25, p90: 60, p99: 80 } }, 'd1')
  assert.match(after.caption, /; handshake accepted \(Engine\.IO open\) p50 25(\.0)?ms, p99 80(\.0)?ms, max 90(\.0)?ms$/)
})
