import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { buildCapacityReport, capacityChart } from '../../../results/report/capacity.js'
import { checkReport, chromiumMissing, launchChromium } from './browser-harness.js'

const ARTIFACTS = fileURLToPath(new URL('../../.artifacts/', import.meta.url))
/** @returns {import('../../../lib/schema/capacity-schema.js').CapacityResult} a real search: 30 clients found, steps passing and failing */
const fixture = () => JSON.parse(readFileSync(new URL('../../fixtures/capacity-small.json', import.meta.url), 'utf8'))

test('the capacity chart: p50, p99 and missing against clients, one point per measured step coloured by verdict, the SLO as lines', () => {
  const result = fixture()
  const chart = capacityChart(result)
  assert.equal(chart.name, 'capacity-delay')
  const datasets = /** @type {Record<string, any>} */ (chart.config).data.datasets
  assert.deepEqual(
    datasets.map((/** @type {{ label: string }} */ d) => d.label),
    ['relative p50', 'relative p99', 'missing deliveries', 'SLO p99<200ms', 'SLO missing=0']
  )
  const clients = result.steps.map((s) => s.clients).sort((a, b) => a - b)
  assert.deepEqual(datasets[1].data.map((/** @type {{ x: number }} */ p) => p.x), clients, 'x = clients, in order')
  assert.deepEqual(datasets[3].data.map((/** @type {{ y: number }} */ p) => p.y), [200, 200], 'the SLO across the clients measured')
  assert.equal(datasets[4].yAxisID, 'missing')
  const colors = datasets[1].pointBackgroundColor
  const sorted = [...result.steps].sort((a, b) => a.clients - b.clients)
  assert.deepEqual(colors.map((/** @type {string} */ c) => c === '#59a14f'), sorted.map((s) => s.verdict === 'pass'))
  assert.equal(chart.points, 3 * result.steps.length + 4)
})

test('every delay SLO gets its line (p90, mean, avg, abs.*, in s too), read as --slo reads it; a share, a count of clients or an unknown metric none', () => {
  const result = {
    ...fixture(),
    slo: ['p90<150ms', 'mean<=0.1s', 'avg<80', 'abs.p99<300ms', 'abs.max<1s', 'missing<1%', 'missing<=5', 'failed=0', 'connected>=99%', 'future.metric<1']
  }
  const datasets = /** @type {Record<string, any>} */ (capacityChart(result).config).data.datasets.slice(3)
  assert.deepEqual(datasets.map((/** @type {{ label: string, yAxisID: string, data: { y: number }[] }} */ d) => [d.label, d.yAxisID, d.data[0].y]), [
    ['SLO p90<150ms', 'y', 150],
    ['SLO mean<=0.1s', 'y', 100],
    ['SLO avg<80', 'y', 80],
    ['SLO abs.p99<300ms', 'y', 300],
    ['SLO abs.max<1s', 'y', 1000],
    ['SLO missing<=5', 'missing', 5]
  ])
})

test('the page: the answer, the advice, every step; a name from the user is escaped', () => {
  const result = fixture()
  const html = buildCapacityReport({ ...result, outcome: 'inconclusive', capacity: null, advice: ['add simulator processes: --simulators 4'] })
  assert.match(html, /<h1>capacity &#60;b&#62;fixture&#60;\/b&#62;<\/h1>/)
  assert.ok(!html.includes('<b>fixture</b>'))
  assert.match(html, /<div class="verdict fail">inconclusive<\/div>/)
  assert.match(html, /<li>add simulator processes: --simulators 4<\/li>/)
  assert.equal((html.match(/<tr class="(pass|fail|warn)">/g) ?? []).length, result.steps.length)
  assert.match(buildCapacityReport(result), /<div class="verdict pass">30 clients<\/div>/)
})

test('the capacity report draws its chart in headless Chromium', { skip: chromiumMissing() ?? false }, async (t) => {
  const browser = await launchChromium()
  t.after(() => browser.close())
  mkdirSync(ARTIFACTS, { recursive: true })
  const file = `${ARTIFACTS}capacity-small.html`
  writeFileSync(file, buildCapacityReport(fixture(), { generatedAt: Date.now() }))
  const page = await checkReport(browser, file, `${ARTIFACTS}capacity-small.png`)
  assert.deepEqual(page.errors, [])
  assert.deepEqual(page.requests, [])
  assert.deepEqual(page.notes, [])
  assert.equal(page.drawn['capacity-delay'], page.expected['capacity-delay'])
  assert.ok(page.drawn['capacity-delay'] > 0)
})
