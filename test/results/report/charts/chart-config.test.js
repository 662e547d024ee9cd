import { test } from 'node:test'
import assert from 'node:assert/strict'
import { band, chartConfig, countPoints, line, spec, tint } from '../../../../results/report/charts/chart-config.js'

test('countPoints counts readings, not nulls and not shading', () => {
  const config = chartConfig('line', {
    datasets: [line('a', [1, null, 3], '#000000'), line('b', [{ x: 0, y: 1 }, { x: 1, y: null }], '#000000'), band('saturated', [{ x: 0, y: 1 }], '#000000')]
  }, {})
  assert.equal(countPoints(config), 3)
})

test('spec keeps a config with readings and replaces one without by its note', () => {
  const full = spec('d1-a', 'A', 'caption', chartConfig('line', { datasets: [line('a', [1], '#000000')] }, {}), 'no data: x')
  assert.equal(full.points, 1)
  assert.equal(full.note, null)
  assert.ok(full.config)
  const empty = spec('d1-b', 'B', 'caption', chartConfig('line', { datasets: [line('a', [null], '#000000')] }, {}), 'no data: x')
  assert.deepEqual([empty.points, empty.config, empty.note], [0, null, 'no data: x'])
})

test('tint turns a hex colour into rgba', () => {
  assert.equal(tint('#4e79a7', 0.5), 'rgba(78, 121, 167, 0.5)')
})

test('configs are plain JSON (they travel to the page in a JSON block)', () => {
  const config = chartConfig('line', { datasets: [line('a', [1], '#000000'), band('b', [{ x: 0, y: 1 }], '#000000')] }, { x: { type: 'linear' } })
  assert.deepEqual(JSON.parse(JSON.stringify(config)), config)
})
