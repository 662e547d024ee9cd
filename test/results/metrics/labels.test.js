import assert from 'node:assert/strict'
import test from 'node:test'
import client from 'prom-client'
import { boundedGaugeSetter, createLabelBound, OTHER_LABEL } from '../../../results/metrics/labels.js'

test('the first max values keep their label, every later one is "other"', () => {
  const bound = createLabelBound(3)
  assert.deepEqual(['a', 'b', 'a', 'c', 'd', 'e', 'b'].map((v) => bound.value(v)), ['a', 'b', 'a', 'c', OTHER_LABEL, OTHER_LABEL, 'b'])
  assert.deepEqual(bound.stats(), { admitted: 3, folded: 2 })
})

test('10,000 distinct values make at most max + 1 label values', () => {
  const bound = createLabelBound(50)
  const labels = new Set(Array.from({ length: 10000 }, (_, i) => bound.value(`room-${i}`)))
  assert.equal(labels.size, 51)
  assert.ok(labels.has(OTHER_LABEL))
})

test('a value spelled "other" cannot take a slot of its own; bad bounds are refused', () => {
  const bound = createLabelBound(2)
  assert.equal(bound.value(OTHER_LABEL), OTHER_LABEL)
  assert.equal(bound.stats().admitted, 0)
  assert.throws(() => createLabelBound(0), RangeError)
})

test('a gauge past the bound: "other" is the sum (or the largest) of the folded values, each counted once however often set', async () => {
  const registry = new client.Registry()
  const gauge = new client.Gauge({ name: 'x_clients', help: 'x', labelNames: ['simulator', 'transport'], registers: [registry] })
  const peak = new client.Gauge({ name: 'x_rss', help: 'x', labelNames: ['simulator'], registers: [registry] })
  const bound = createLabelBound(1)
  const clients = boundedGaugeSetter(gauge, 'simulator', bound, 'sum')
  const rss = boundedGaugeSetter(peak, 'simulator', bound, 'max')
  for (const [sim, n] of /** @type {const} */ ([['a', 5], ['b', 7], ['c', 3], ['b', 6]])) {
    clients(sim, { transport: 'websocket' }, n)
    rss(sim, {}, n * 10)
  }
  clients('c', { transport: 'polling' }, 2)
  const values = (await gauge.get()).values.map((v) => [v.labels.simulator, v.labels.transport, v.value])
  assert.deepEqual(values, [['a', 'websocket', 5], [OTHER_LABEL, 'websocket', 9], [OTHER_LABEL, 'polling', 2]])
  assert.deepEqual((await peak.get()).values.map((v) => [v.labels.simulator, v.value]), [['a', 50], [OTHER_LABEL, 60]])
})
