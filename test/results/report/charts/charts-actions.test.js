import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { actionsTable, markActions } from '../../../../results/report/charts/charts-actions.js'
import { buildReport, distributionCharts } from '../../../../results/report/index.js'

/** @returns {import('../../../../lib/schema/result-schema.js').RunResult} */
const fixture = () => JSON.parse(readFileSync(new URL('../../../fixtures/run-small.json', import.meta.url), 'utf8'))

test('each chart over time gets a dashed line per action inside the distribution; other charts stay as they were', () => {
  const result = fixture()
  const d = result.distributions[0]
  const at = d.startedAt + 2500
  /** @type {import('../../../../lib/schema/result-schema.js').SteeringAction[]} */
  const actions = [
    { type: 'action', at, action: 'clients', value: 40, by: 'dashboard', ok: true },
    { type: 'action', at: at + 1000, action: 'emit-rate', value: 'fast', by: 'api', ok: false, message: '--emit-rate must be a rate' },
    { type: 'action', at: d.endedAt + 60000, action: 'stop', value: null, by: 'api', ok: true }
  ]
  const before = distributionCharts(d, 0)
  const marked = markActions(before, actions, d)
  assert.equal(marked.length, before.length)
  let overTime = 0
  for (const [k, chart] of marked.entries()) {
    const config = /** @type {any} */ (chart.config)
    if (!config || !/^seconds since/.test(config.options.scales.x?.title?.text ?? '')) {
      assert.equal(chart, before[k], `${chart.name} unchanged`)
      continue
    }
    overTime++
    const marks = config.data.datasets.slice(/** @type {any} */ (before[k].config).data.datasets.length)
    assert.deepEqual(marks.map((/** @type {any} */ s) => [s.label, s.data]), [
      ['clients 40 (dashboard)', [{ x: 2.5, y: 0 }, { x: 2.5, y: 1 }]],
      ['refused: emit-rate fast (api)', [{ x: 3.5, y: 0 }, { x: 3.5, y: 1 }]]
    ], `${chart.name}: the stop after the distribution is not on it`)
    assert.ok(config.options.scales.band, 'drawn against the hidden 0..1 axis')
    assert.equal(chart.points, before[k].points, 'the marks are no readings')
  }
  assert.ok(overTime >= 2, `${overTime} charts over time`)
})

test('the report lists every action, done or refused, and marks none when there were none', () => {
  const result = fixture()
  assert.equal(actionsTable(undefined, 0), '')
  assert.doesNotMatch(buildReport(result), /Steering actions/)
  const at = result.distributions[0].startedAt + 1000
  const html = buildReport({ ...result, actions: [{ type: 'action', at, action: 'stop', value: null, by: 'signal', ok: true }] })
  assert.match(html, /<h3 id="actions">Steering actions<\/h3>/)
  assert.match(html, /<td>stop<\/td><td><\/td><td>signal<\/td><td>done<\/td>/)
  assert.match(html, /stop \(signal\)/)
})
