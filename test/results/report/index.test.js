import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { buildCompareReport, buildReport } from '../../../results/report/index.js'

/** @param {string} name @returns {import('../../../lib/schema/result-schema.js').RunResult} */
const fixture = (name) => JSON.parse(readFileSync(new URL(`../../fixtures/${name}`, import.meta.url), 'utf8'))

const KINDS = [
  'connected-transport', 'connected-simulator', 'connected-node', 'storm-transport', 'relative-delay', 'absolute-latency', 'missing', 'connect-time',
  'server-load', 'server-memory', 'health-loop', 'health-cpu'
]
const EXPECTED_CHARTS = ['d1', 'd2'].flatMap((d) => KINDS.map((k) => `${d}-${k}`))

/** The page without the inlined Chart.js: what the report itself wrote. */
const own = (/** @type {string} */ html) => html.replace(/<script>\/\*![\s\S]*?<\/script>/, '')
/** @param {string} html */
const chartData = (html) => JSON.parse(/<script type="application\/json" id="ioswarm-charts">([\s\S]*?)<\/script>/.exec(html)?.[1] ?? 'null')
/** @param {string} html */
const chartNames = (html) => [...html.matchAll(/data-chart="([^"]+)"/g)].map((m) => m[1])

test('a run report has every chart, each with data, and every table', () => {
  const html = buildReport(fixture('run-small.json'), { generatedAt: Date.UTC(2024, 5, 2) })
  assert.deepEqual(chartNames(html), EXPECTED_CHARTS)
  const data = chartData(html)
  assert.deepEqual(data.map((/** @type {{ name: string }} */ c) => c.name), EXPECTED_CHARTS)
  for (const c of data) assert.ok(c.points > 0 && c.config, `${c.name} has data`)
  const headers = ['<th>sims × clients</th>', '<th>clients reached</th>', '<th>clock offset</th>', '<th>option</th>', '<th>fact</th>', '<th>abs p99</th>']
  for (const header of headers) {
    assert.ok(html.includes(header), header)
  }
  assert.match(html, /report generated<\/dt><dd>2024-06-02 00:00:00 UTC/)
  // --login and TLS in the first distribution only; the second has neither (as an older result).
  const [first, second] = html.split('<section id="dist-2">')
  const num = (/** @type {string[]} */ values) => values.map((v) => `<td class="num">${v}</td>`).join('')
  assert.ok(first.includes('<th>re-logins (after a refusal)</th>'))
  assert.ok(
    first.includes(`<tr class="warn"><td>POST /login</td>${num(['1006', '1002', '2', '4', '10.5ms', '15.5ms', '15.5ms'])}<td>HTTP 503 ×4</td></tr>`),
    'the logins row'
  )
  assert.doesNotMatch(second, /Logins/)
  assert.match(html, /<td class="wrap">28\.5ms \(TLS p50 1\.90ms, p99 6\.40ms\)<\/td>/, 'the overview: TLS beside connect p99')
  assert.equal(html.match(/\(TLS p50/g)?.length, 2, 'the overview row and the connect-time chart of the first distribution only')
  assert.match(html, /4x250-sim-4 stopped reporting before the end \(stale\)/)
  assert.match(html, /2x500-sim-1 was saturated for 3 s/)
  assert.match(html, /<div class="verdict none">no thresholds<\/div>/)
})

test('a run published by --publish shows its requests\' answers and latency under its rounds, apart from delivery', () => {
  const run = fixture('run-small.json')
  const publish = {
    request: 'POST http://127.0.0.1:8080/pub/<news>',
    requests: 10,
    ok: 9,
    byStatus: { 201: 9, 503: 1 },
    unanswered: 0,
    requestMs: { p50: 1.5, p99: 4, max: 4 }
  }
  const page = own(buildReport({ ...run, distributions: [{ ...run.distributions[0], publish }, run.distributions[1]] }))
  assert.match(
    page,
    new RegExp(/<p class="sub publish">publish POST http:\/\/127\.0\.0\.1:8080\/pub\/&#60;news&#62;: 10 /.source +
      /requests, 9 × 201, 1 × 503; request p50 1\.50ms p99 4\.00ms max 4\.00ms \(apart from delivery\)<\/p>/.source)
  )
  assert.equal(page.match(/class="sub publish"/g)?.length, 1, 'only the distribution that published')
})

test('the same result gives the same page (no clock read without generatedAt)', (t) => {
  const run = fixture('run-small.json')
  // Two builds a year, a day, an hour and a second apart on the clock: a date read anywhere in the page differs.
  t.mock.timers.enable({ apis: ['Date'], now: Date.parse('2026-01-01T00:00:00Z') })
  const first = buildReport(run)
  t.mock.timers.tick((366 * 24 * 3600 + 3601) * 1000)
  assert.equal(buildReport(run), first)
})

test('the verdict in the header follows the thresholds', () => {
  const run = fixture('run-small.json')
  const failed = buildReport({
    ...run,
    thresholds: [{ expression: 'p99<1ms', ok: false, actual: 'p99 24.6ms' }, { expression: 'missing<5', ok: true, actual: 'missing 1' }]
  })
  assert.match(failed, /<div class="verdict fail">FAIL: 1 of 2 thresholds<\/div>/)
  assert.match(failed, /<tr class="fail"><td>FAIL<\/td><td>p99&#60;1ms<\/td>/)
  assert.match(buildReport({ ...run, thresholds: [{ expression: 'p99<1s', ok: true, actual: 'x' }] }), /verdict pass">PASS: 1 of 1/)
})

test('hostile names, ids and options come out escaped in markup and intact in data', () => {
  const run = fixture('run-hostile.json')
  const html = buildReport(run)
  const page = own(html)
  assert.doesNotMatch(page, /<script>alert/i)
  assert.doesNotMatch(page, /<img/i)
  assert.doesNotMatch(page, /<!--/)
  // No attribute named onerror anywhere a browser would read one: every "onerror=" is inside escaped text.
  for (const m of page.matchAll(/onerror=/g)) assert.match(page.slice(m.index - 30, m.index), /&#60;img src=x $/)
  assert.equal((page.match(/<script/g) ?? []).length, (page.match(/<\/script>/g) ?? []).length, 'every script tag is closed by its own end tag')
  const data = chartData(html)
  const relative = data.find((/** @type {{ name: string }} */ c) => c.name === 'd1-relative-delay')
  assert.equal(relative.config.data.labels[0].slice(0, 10), '1.1</scrip', 'labels keep the raw id (cut to fit)')
  const perSimulator = data.find((/** @type {{ name: string }} */ c) => c.name === 'd1-connected-simulator')
  assert.equal(perSimulator.config.data.datasets[0].label, run.distributions[0].simulatorList[0].id)
  assert.ok(html.includes(escapeText(run.run.name)), 'run name shown as text')
  // Connect error and disconnect reasons (a server's text) are table cells, escaped.
  assert.equal((page.match(/<h3>Connect errors and disconnects<\/h3>/g) ?? []).length, 2, 'a reasons table per distribution')
  assert.ok(page.includes('<td>&#60;img src=x onerror=alert(10)&#62;</td><td class="num">2</td>'))
  assert.ok(page.includes('<td>__proto__</td><td class="num">1</td>'))
  assert.doesNotMatch(page, /<svg/)
  assert.doesNotMatch(own(buildReport(fixture('run-small.json'))), /Connect errors and disconnects/, 'no table for a result without reasons')
})

test('a run without server samples or messages leaves those charts out and names them, with why, in one line', () => {
  const html = buildReport(fixture('run-sparse.json'))
  const data = chartData(html)
  assert.deepEqual(data.map((/** @type {{ name: string }} */ c) => c.name), EXPECTED_CHARTS)
  const empty = data.filter((/** @type {{ points: number }} */ c) => c.points === 0).map((/** @type {{ name: string }} */ c) => c.name)
  assert.deepEqual(empty, ['d1-server-load', 'd1-server-memory', ...KINDS.map((k) => `d2-${k}`)])
  for (const name of empty) {
    assert.match(html, new RegExp(`<span class="no-data" data-chart="${name}">`))
    assert.doesNotMatch(html, new RegExp(`<canvas data-chart="${name}"`), `${name}: no empty panel`)
  }
  assert.equal((html.match(/<p class="not-measured">Not measured: /g) ?? []).length, 2, 'one line per distribution')
  assert.match(html, /no server samples \(target was not the reference server and no probe was attached\)/)
  assert.match(html, /no message reached any simulator of this distribution/)
  assert.doesNotMatch(own(html).replace(/<script type="application\/json"[\s\S]*?<\/script>/, ''), /undefined|NaN|\[object/)
})

test('the comparison has one series per distribution of each run, both charts and the table', () => {
  const small = fixture('run-small.json')
  const hostile = fixture('run-hostile.json')
  const html = buildCompareReport([small, hostile], { labels: ['base'] })
  assert.deepEqual(chartNames(html), ['compare-avg', 'compare-p99'])
  const [avg, p99] = chartData(html)
  const labels = [`base ${small.distributions[0].name}`, `base ${small.distributions[1].name}`,
    `${hostile.run.name} ${hostile.distributions[0].name}`, `${hostile.run.name} ${hostile.distributions[1].name}`]
  assert.deepEqual(avg.config.data.datasets.map((/** @type {{ label: string }} */ d) => d.label), labels)
  assert.deepEqual(avg.config.data.labels, ['round 1', 'round 2'])
  assert.deepEqual(avg.config.data.datasets[0].data, small.distributions[0].rounds.map((r) => r.avgOfAverages.relativeMs))
  assert.deepEqual(p99.config.data.datasets[1].data, small.distributions[1].rounds.map((r) => r.relative.p99))
  assert.equal((html.match(/<td>base 2x500<\/td>/g) ?? []).length, 2, 'a table row per round of the series')
  assert.doesNotMatch(own(html), /<script>alert|<img/)
})

/** @param {string} text */
function escapeText (text) {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
}
