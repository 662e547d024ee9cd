import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { compareCharts, compareSeries, compareTables } from '../../../results/report/compare.js'

/** @param {string} name @returns {import('../../../lib/schema/result-schema.js').RunResult} */
const fixture = (name) => JSON.parse(readFileSync(new URL(`../../fixtures/${name}`, import.meta.url), 'utf8'))

test('each distribution of each run is a series, labelled by run label and distribution', () => {
  const series = compareSeries([fixture('run-small.json'), fixture('run-sparse.json')], ['base'])
  assert.deepEqual(series.map((s) => s.label), ['base 2x500', 'base 4x250', 'fixture sparse 2x500', 'fixture sparse 4x250'])
  assert.deepEqual(series[0].rounds[1], {
    round: 2,
    plan: '5 × 500 ms',
    messages: 5,
    avgMs: 7.33,
    meanMs: 7.48,
    p99Ms: 22.8,
    maxMs: 37.4,
    missing: 1,
    expected: 5000
  })
  assert.equal(series[3].rounds[0].avgMs, null, 'a round where nothing arrived has no delay, not 0')
})

test('the charts are grouped bars by round; rounds missing from a run are gaps', () => {
  const small = fixture('run-small.json')
  const short = fixture('run-small.json')
  short.distributions = short.distributions.slice(0, 1).map((d) => ({ ...d, rounds: d.rounds.slice(0, 1) }))
  const [avg, p99] = compareCharts(compareSeries([small, short], ['a', 'b']))
  assert.equal(avg.config?.type, 'bar')
  assert.deepEqual(avg.config?.data.labels, ['round 1', 'round 2'])
  assert.deepEqual(p99.config?.data.datasets[2].data, [18.3, null])
  assert.equal(p99.points, 5, '2 series × 2 rounds + 1 series × 1 round')
})

test('the tables list every run and every series round', () => {
  const runs = [fixture('run-small.json'), fixture('run-hostile.json')]
  const tables = compareTables(runs, [], compareSeries(runs, []))
  assert.equal((tables.numbers.match(/<tr>/g) ?? []).length, 1 + 8)
  assert.equal((tables.runs.match(/<tr>/g) ?? []).length, 1 + 2)
  assert.doesNotMatch(tables.runs + tables.numbers, /<script>|<img/)
})

test('the runs table shows a run\'s label, name and id once each when they are the same text', () => {
  const run = JSON.parse(readFileSync(new URL('../../fixtures/run-small.json', import.meta.url), 'utf8'))
  const same = { ...run, run: { ...run.run, name: run.run.id } }
  const { runs } = compareTables([same], [], compareSeries([same], []))
  assert.equal(runs.split(run.run.id).length - 1, 1, runs)
  assert.doesNotMatch(runs, /<th>label<\/th>|<th>id<\/th>/)
})

test('capacity searches compare as p99 against clients with their answers; rounds only when a run or simulate result is there', async () => {
  const { buildCompareReport } = await import('../../../results/report/index.js')
  const search = JSON.parse(readFileSync(new URL('../../fixtures/capacity-small.json', import.meta.url), 'utf8'))
  const html = buildCompareReport([search, { ...search, run: { ...search.run, name: 'second' } }], { labels: ['a'] })
  assert.match(html, /data-chart="compare-capacity"/)
  assert.doesNotMatch(html, /data-chart="compare-avg"|<h2>Delay per round<\/h2>/)
  assert.ok(html.includes('<td>a</td>') && html.includes('<td>second</td>'), 'a label, else the search\'s name')
  assert.match(html, /ioswarm comparison: 2 results, 0 series/)
})
