import { test } from 'node:test'
import assert from 'node:assert/strict'
import { customWindowCharts } from '../../../../results/report/charts/charts-custom.js'
import { countPoints } from '../../../../results/report/charts/chart-config.js'

const delay = (/** @type {number} */ p99, count = 3) => ({ count, min: 1, max: p99, mean: p99 / 2, p50: p99 / 2, p90: p99, p99 })
/**
 * A windowed distribution whose windows hold the given custom figures (one entry per window).
 * @param {({ timings?: Record<string, ReturnType<typeof delay>>, counts?: Record<string, number> } | undefined)[]} figures
 */
const windowed = (figures) => /** @type {any} */ ({
  windows: figures.map((custom, k) => ({
    startAt: k * 1000, endAt: (k + 1) * 1000, ...(custom ? { custom: { timings: {}, counts: {}, refused: 0, refusedNames: [], ...custom } } : {})
  }))
})

test('custom figure charts: none without custom figures in the windows; ' +
  'a timing\'s p50 and p99 per window (gaps where a window has none), a count per window', () => {
  assert.deepEqual(customWindowCharts(windowed([undefined, undefined]), 'd1'), [])
  assert.deepEqual(customWindowCharts(/** @type {any} */ ({}), 'd1'), [], 'no windows (rounds)')
  const [timings, counts] = customWindowCharts(
    windowed([{ timings: { join_lobby: delay(40) }, counts: { joined: 2 } }, undefined, { counts: { constructor: 1, joined: 3 } }]),
    'd1'
  )
  assert.equal(timings.name, 'd1-custom-timings')
  assert.deepEqual(
    timings.config?.data.datasets.map((/** @type {any} */ d) => [d.label, d.data]),
    [['join_lobby p50', [20, null, null]], ['join_lobby p99', [40, null, null]]]
  )
  assert.equal(timings.points, 2)
  assert.equal(counts.name, 'd1-custom-counts')
  // The most counted first; a name read from JSON is data (a window without `constructor` has 0 of it, never a prototype's function).
  assert.deepEqual(counts.config?.data.datasets.map((/** @type {any} */ d) => [d.label, d.data]), [['joined', [2, 0, 3]], ['constructor', [0, 0, 1]]])
  assert.equal(counts.points, countPoints(/** @type {any} */ (counts.config)))
})

test('custom figure charts: at most 6 names drawn, the most recorded first; the caption says how many more the table lists', () => {
  const counts = Object.fromEntries(Array.from({ length: 9 }, (_, k) => [`c${k}`, k + 1]))
  const [chart] = customWindowCharts(windowed([{ counts }]), 'd2')
  assert.deepEqual(chart.config?.data.datasets.map((/** @type {any} */ d) => d.label), ['c8', 'c7', 'c6', 'c5', 'c4', 'c3'])
  assert.match(chart.caption, /the 6 with the most records shown, 3 more in the custom figures table$/)
})
