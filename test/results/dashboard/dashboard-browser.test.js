/**
 * The dashboard page in Debian's Chromium (headless) during a real run (the reference server on
 * port 0, 2 × 15 clients, up to 60 messages 600 ms apart): its `data-metric="connected"` grows with the
 * run, the delay chart gets points, the page draws without errors and loads nothing from
 * elsewhere; a page opened without the token has its buttons off; its Stop button ends the run
 * early with the results kept; the run's shape is drawn on its charts (the reference server
 * restarted at 10 s: its line and the storm it causes; the threshold's line, passing). A screenshot is written to a
 * temporary path (IOSWARM_DASHBOARD_SCREENSHOT to choose it) and its path printed.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { BIN, runCli } from '../../helpers/cli.js'
import { waitFor } from '../../helpers/wait.js'
import { chromiumMissing, launchChromium } from '../report/browser-harness.js'

test('the dashboard page follows a real run in Chromium', { timeout: 240000 }, async (t) => {
  const missing = chromiumMissing()
  if (missing) return t.skip(missing)
  const out = await mkdtemp(path.join(tmpdir(), 'ioswarm-dashboard-page-'))
  t.after(() => rm(out, { recursive: true, force: true }))
  const browser = await launchChromium()
  t.after(() => browser.close())
  const run = runCli(t, [BIN, 'run', '--simulators', '2', '--clients-per-simulator', '15', '--rounds', '60x600', '--ping-interval', '2s', '--assert', 'p99<5s',
    '--restart-server-at', '10s', '--out', out, '--dashboard', '0'])
  let url = ''
  await waitFor(() => (url = /dashboard: (http:\S+)/.exec(run.output().stderr)?.[1] ?? ''), { timeoutMs: 60000, message: 'the dashboard line' })
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
  /** @type {string[]} */
  const errors = []
  /** @type {string[]} */
  const elsewhere = []
  const origin = new URL(url).origin
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()) })
  page.on('pageerror', (e) => errors.push(e.message))
  page.on('request', (r) => { if (!r.url().startsWith(origin)) elsewhere.push(r.url()) })
  await page.goto(url)
  const connected = async () => Number(await page.locator('[data-metric="connected"]').textContent())
  /** @type {number[]} */
  const seen = []
  await waitFor(
    async () => {
      seen.push(await connected())
      return seen.at(-1) === 30
    },
    { timeoutMs: 60000, intervalMs: 200, message: 'data-metric connected at 30' }
  )
  // The figure grew while the page watched, or (a page that opened late, on a loaded host) its history shows the growth.
  const series = await page.evaluate(() => /** @type {number[]} */ (/** @type {any} */ (globalThis).__ioswarmLive.connected))
  assert.ok(
    seen[0] < 30 || (series[0] < 30 && series.at(-1) === 30),
    `the count grew as the clients connected: page ${seen.filter((n, i) => n !== seen[i - 1])}, series ${series}`
  )
  const delayPoints = async () => page.evaluate(() => /** @type {any} */ (globalThis).__ioswarmLive.points['live-delay'] ?? 0)
  await waitFor(async () => (await delayPoints()) > 0, { timeoutMs: 60000, intervalMs: 200, message: 'points on the delay chart' })
  const first = await delayPoints()
  await waitFor(async () => (await delayPoints()) > first, { timeoutMs: 20000, intervalMs: 200, message: 'the delay chart growing' })
  assert.ok(Number(await page.locator('[data-metric="p99"]').textContent()) > 0)
  assert.match(String(await page.locator('[data-threshold="p99<5s"]').textContent()), /passing/, 'the threshold as it stands')
  assert.equal(await page.locator('button[data-action="stop"]').isDisabled(), false, 'with the token the buttons are on')
  // The run's shape as Chart.js drew it: the restart's line and its storm on the clients chart, the threshold on the delays'.
  const labels = (/** @type {string} */ name) => page.evaluate((n) => {
    const g = /** @type {any} */ (globalThis)
    const chart = g.Chart.getChart(g.document.querySelector(`canvas[data-chart="${n}"]`))
    return /** @type {string[]} */ (chart ? chart.data.datasets.map((/** @type {any} */ d) => d.label) : [])
  }, name)
  // The restart's mark comes once the server is back; the storm's shading as soon as the clients drop.
  const shaped = async () => {
    const drawn = await labels('live-connected')
    return drawn.some((l) => /^storm: /.test(l)) && drawn.some((l) => /^server restart \(SIGTERM/.test(l))
  }
  await waitFor(shaped, { timeoutMs: 60000, intervalMs: 200, message: 'the restart\'s line and its storm shaded on the clients chart' })
  assert.ok((await labels('live-delay')).includes('p99<5s (passing)'), `the threshold's line: ${await labels('live-delay')}`)

  const viewer = await browser.newPage()
  await viewer.goto(new URL('/', url).href)
  assert.equal(await viewer.locator('button[data-action="stop"]').isDisabled(), true, 'without the token the buttons are off')
  await viewer.close()

  const shot = process.env.IOSWARM_DASHBOARD_SCREENSHOT ?? path.join(tmpdir(), `ioswarm-dashboard-${process.pid}.png`)
  await page.screenshot({ path: shot })
  process.stderr.write(`dashboard screenshot: ${shot}\n`)

  // Stop from the page: the run ends early, its results kept, the action in result.json.
  await page.locator('button[data-action="stop"]').click()
  await waitFor(async () => /done/.test(String(await page.locator('#action-result').textContent())), { timeoutMs: 30000, message: 'the stop answered' })
  const done = await run
  assert.equal(done.code, 0, done.stderr)
  const result = JSON.parse(await readFile(path.join(out, 'result.json'), 'utf8'))
  assert.deepEqual(result.actions.map((/** @type {any} */ a) => [a.action, a.by, a.ok]), [['stop', 'api', true]])
  assert.ok(result.distributions[0].rounds[0].messages < 60, 'stopped before its 60 messages')
  await waitFor(() => page.locator('#ended').isVisible(), { timeoutMs: 10000, message: 'the page says the run is over' })
  assert.match(String(await page.locator('#ended').textContent()), /result\.json/)
  assert.deepEqual(errors, [])
  assert.deepEqual(elsewhere, [], 'the page loads everything from the dashboard itself')
})
