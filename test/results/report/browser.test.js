import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { buildCompareReport, buildReport } from '../../../results/report/index.js'
import { checkReport, chromiumMissing, launchChromium } from './browser-harness.js'

const ARTIFACTS = fileURLToPath(new URL('../../.artifacts/', import.meta.url))
/** @param {string} name @returns {import('../../../lib/schema.js').RunResult} */
const fixture = (name) => JSON.parse(readFileSync(new URL(`../../fixtures/${name}`, import.meta.url), 'utf8'))

const KINDS = ['connected-transport', 'connected-simulator', 'storm-transport', 'relative-delay', 'absolute-latency', 'missing', 'connect-time',
  'server-load', 'server-memory', 'health-loop', 'health-cpu']
const ALL_CHARTS = ['d1', 'd2'].flatMap((d) => KINDS.map((k) => `${d}-${k}`))
const SCENARIO_TABLES = ['Delivery by namespace, room and event', 'Emits, acks and joins', 'Clients per namespace']

/** @param {string} name @param {string} html */
function writeArtifact (name, html) {
  mkdirSync(ARTIFACTS, { recursive: true })
  const file = `${ARTIFACTS}${name}.html`
  writeFileSync(file, html)
  return file
}

/** @param {import('./browser-harness.js').PageCheck} page */
function assertCleanPage (page) {
  assert.deepEqual(page.errors, [], 'no console or page errors')
  assert.deepEqual(page.requests, [], 'nothing loaded from anywhere but the file')
  assert.deepEqual(page.dialogs, [], 'no injected script ran')
  assert.equal(page.images, 0)
}

test('reports draw every chart in headless Chromium', { skip: chromiumMissing() ?? false }, async (t) => {
  const browser = await launchChromium()
  t.after(() => browser.close())

  await t.test('run report: every chart drew all its points', async () => {
    const file = writeArtifact('report-small', buildReport(fixture('run-small.json'), { generatedAt: Date.now() }))
    const page = await checkReport(browser, file, `${ARTIFACTS}report-small.png`)
    assertCleanPage(page)
    assert.deepEqual(Object.keys(page.drawn).sort(), [...ALL_CHARTS].sort(), 'the full list of charts')
    for (const name of ALL_CHARTS) {
      assert.ok(page.drawn[name] > 0, `${name} drew points`)
      assert.equal(page.drawn[name], page.expected[name], `${name} drew every point of its data`)
    }
    assert.deepEqual(page.notes, [])
    for (const heading of SCENARIO_TABLES) assert.ok(page.headings.includes(heading), heading)
    const deliveries = page.tables['Delivery by namespace, room and event']
    assert.deepEqual(deliveries.slice(15, 23), ['/chat', 'room-7', 'chat', '5', '199/200', '1', '3', '0'], 'the first room, by traffic')
    assert.ok(deliveries.includes('(5 other rooms)'))
    assert.ok(page.tables['Emits, acks and joins'].includes('room full ×4'))
    assert.ok(page.tables['Clients per namespace'].includes('unauthorized ×4'))
  })

  await t.test('hostile strings stay text: no script, no image, no error', async () => {
    const file = writeArtifact('report-hostile', buildReport(fixture('run-hostile.json')))
    const page = await checkReport(browser, file, `${ARTIFACTS}report-hostile.png`)
    assertCleanPage(page)
    for (const name of ALL_CHARTS) assert.ok(page.drawn[name] > 0, `${name} drew points`)
    // Room, namespace and event names, join and refusal reasons and hook errors from a server or a scenario: shown as text.
    const deliveries = page.tables['Delivery by namespace, room and event']
    assert.ok(deliveries.includes('room-7</td><script>alert(15)</script>'))
    assert.ok(deliveries.includes('/<b>chat</b>') && deliveries.includes('<img src=x onerror=alert(13)>'))
    const scenario = page.tables['Emits, acks and joins']
    assert.ok(scenario.includes('<img src=x onerror=alert(16)> ×4') && scenario.includes('</script><script>alert(17)</script>'))
    assert.ok(page.tables['Clients per namespace'].includes('"><img src=x onerror=alert(18)> ×4'))
  })

  await t.test('sparse run: charts with data draw, charts without show their note', async () => {
    const file = writeArtifact('report-sparse', buildReport(fixture('run-sparse.json')))
    const page = await checkReport(browser, file, `${ARTIFACTS}report-sparse.png`)
    assertCleanPage(page)
    assert.deepEqual(Object.keys(page.drawn).sort(), [...ALL_CHARTS].sort())
    for (const name of ALL_CHARTS) {
      if (page.expected[name] > 0) assert.ok(page.drawn[name] > 0, `${name} had data and drew it`)
      else assert.ok(page.notes.includes(name), `${name} has no data and says so`)
    }
    assert.ok(page.notes.length > 0 && page.notes.length < ALL_CHARTS.length)
  })

  await t.test('comparison: both charts drew a bar per series and round', async () => {
    const file = writeArtifact('compare', buildCompareReport([fixture('run-small.json'), fixture('run-hostile.json')], { labels: ['base', 'hostile'] }))
    const page = await checkReport(browser, file, `${ARTIFACTS}compare.png`)
    assertCleanPage(page)
    assert.deepEqual(Object.keys(page.drawn).sort(), ['compare-avg', 'compare-p99'])
    for (const name of ['compare-avg', 'compare-p99']) assert.equal(page.drawn[name], 8, `${name}: 4 series × 2 rounds`)
  })
})
