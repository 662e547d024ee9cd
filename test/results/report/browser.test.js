import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { buildAnyReport, buildCompareReport, buildReport } from '../../../results/report/index.js'
import { checkReport, chromiumMissing, launchChromium } from './browser-harness.js'

const ARTIFACTS = fileURLToPath(new URL('../../.artifacts/', import.meta.url))
/** @param {string} name @returns {import('../../../lib/schema/result-schema.js').RunResult} */
const fixture = (name) => JSON.parse(readFileSync(new URL(`../../fixtures/${name}`, import.meta.url), 'utf8'))

const KINDS = [
  'connected-transport', 'connected-simulator', 'connected-node', 'storm-transport', 'relative-delay', 'absolute-latency', 'missing', 'connect-time',
  'server-load', 'server-memory', 'health-loop', 'health-cpu'
]
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

  await t.test('the overview table fits a 1,400-pixel window: no sideways scroll, plain or hostile, run or simulate', async () => {
    for (const name of ['run-small', 'run-hostile', 'run-sparse', 'sim-chat', 'sim-workers']) {
      const file = writeArtifact(`overview-${name}`, buildAnyReport(fixture(`${name}.json`)))
      const page = await checkReport(browser, file, undefined, { width: 1400 })
      assert.ok(page.overview, `${name}: an overview table`)
      assert.ok(page.overview.scrollWidth <= 1400, `${name}: overview scrollWidth ${page.overview.scrollWidth} <= 1400`)
      assert.ok(
        page.overview.scrollWidth <= page.overview.clientWidth,
        `${name}: overview ${page.overview.scrollWidth} px in a box of ${page.overview.clientWidth} px`
      )
      assert.ok(page.pageWidth <= 1400, `${name}: page ${page.pageWidth} px wide`)
    }
  })

  await t.test('simulate results (one process, --workers): every chart with data drew all its points', async () => {
    for (const name of ['sim-chat', 'sim-workers']) {
      const file = writeArtifact(`report-${name}`, buildAnyReport(fixture(`${name}.json`)))
      const page = await checkReport(browser, file, `${ARTIFACTS}report-${name}.png`)
      assertCleanPage(page)
      const charts = KINDS.map((k) => `d1-${k}`)
      assert.deepEqual(Object.keys(page.drawn).sort(), [...charts].sort())
      for (const chart of charts) {
        if (page.notes.includes(chart)) assert.equal(page.expected[chart], 0, `${chart}: a note only without data`)
        else assert.ok(page.drawn[chart] > 0 && page.drawn[chart] === page.expected[chart], `${chart}: drew ${page.drawn[chart]} of ${page.expected[chart]}`)
      }
      for (const chart of ['d1-connected-transport', 'd1-relative-delay', 'd1-absolute-latency', 'd1-connect-time', 'd1-health-loop', 'd1-health-cpu']) {
        assert.ok(!page.notes.includes(chart), `${chart} has data`)
      }
      assert.deepEqual(
        page.notes.filter((n) => n.startsWith('d1-server')).sort(),
        ['d1-server-load', 'd1-server-memory'],
        'simulate probes no server: its charts say so'
      )
      const total = name === 'sim-chat' ? ['1169/1170', '1'] : ['1139/1140', '1']
      const deliveries = page.tables['Delivery by namespace, room and event']
      assert.deepEqual(deliveries.slice(4, 6), total, `${name}: every line, the rolled-up ones too`)
      assert.ok(page.tables['Emits, acks and joins'].includes('120'))
    }
  })

  await t.test('comparison across kinds: a run, a simulate result and a capacity search on one page', async () => {
    const results = [fixture('run-small.json'), fixture('sim-chat.json'), fixture('capacity-small.json')]
    const file = writeArtifact('compare-kinds', buildCompareReport(results, { labels: ['run', 'sim', 'search'] }))
    const page = await checkReport(browser, file, `${ARTIFACTS}compare-kinds.png`)
    assertCleanPage(page)
    assert.deepEqual(Object.keys(page.drawn).sort(), ['compare-avg', 'compare-capacity', 'compare-p99'])
    assert.equal(page.expected['compare-p99'], 2 * 2 + 1, 'two series × 2 rounds, and the simulate result\'s all messages')
    assert.ok(page.drawn['compare-p99'] >= page.expected['compare-p99'], 'Chart.js places a bar per series and label, empty ones too')
    assert.equal(page.drawn['compare-capacity'], page.expected['compare-capacity'])
    assert.ok(page.drawn['compare-capacity'] > 0)
  })

  await t.test('comparison: both charts drew a bar per series and round', async () => {
    const file = writeArtifact('compare', buildCompareReport([fixture('run-small.json'), fixture('run-hostile.json')], { labels: ['base', 'hostile'] }))
    const page = await checkReport(browser, file, `${ARTIFACTS}compare.png`)
    assertCleanPage(page)
    assert.deepEqual(Object.keys(page.drawn).sort(), ['compare-avg', 'compare-p99'])
    for (const name of ['compare-avg', 'compare-p99']) assert.equal(page.drawn[name], 8, `${name}: 4 series × 2 rounds`)
  })
})
