/**
 * Opens a generated report in the Debian Chromium (never a browser downloaded by npm) and
 * collects what a test needs: points drawn per chart next to points in the data, console and
 * page errors, requests that left file://, dialogs (an alert means injected script ran).
 * Shared by the report's browser tests and the runner's end-to-end report test.
 */
import { existsSync } from 'node:fs'
import { pathToFileURL } from 'node:url'
import { chromium } from 'playwright-core'

export const CHROMIUM_PATH = '/usr/bin/chromium'

/**
 * Why browser tests cannot run here, or null when they can. Under CI=true a missing
 * browser is a failure, not a skip.
 * @returns {string | null}
 */
export function chromiumMissing () {
  if (existsSync(CHROMIUM_PATH)) return null
  const reason = `SKIPPED: no Chromium at ${CHROMIUM_PATH}; install the Debian package: apt-get install -y chromium`
  if (process.env.CI === 'true') throw new Error(`CI=true and ${reason}`)
  process.stderr.write(`\n*** ${reason} ***\n\n`)
  return reason
}

/** Launches headless Chromium with no network-facing background services. */
export function launchChromium () {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [
      '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-quic', '--no-first-run', '--disable-component-update', '--disable-sync'
    ]
  })
}

/**
 * @typedef {object} PageCheck
 * @property {Record<string, number>} drawn points each chart drew (window.__ioswarmCharts)
 * @property {Record<string, number>} expected points each chart's data had (window.__ioswarmChartPoints)
 * @property {string[]} notes chart names shown as a "no data" note
 * @property {string[]} errors console errors and uncaught page errors
 * @property {string[]} requests URLs requested other than the file itself
 * @property {string[]} dialogs messages of alert/confirm/prompt dialogs
 * @property {number} images img elements in the page
 * @property {string[]} headings the text of every h3, in page order
 * @property {Record<string, string[]>} tables by an h3 heading (the first of that name), the text of each cell of the tables after it, up to the next heading
 * @property {{ scrollWidth: number, clientWidth: number } | null} overview the overview table's box (null: no overview): scrollWidth > clientWidth means a sideways scroll
 * @property {number} pageWidth the page's scrollWidth
 */

/**
 * Opens a report file, waits for its charts, screenshots it, and reports what happened.
 * @param {import('playwright-core').Browser} browser
 * @param {string} file absolute path of the HTML report
 * @param {string} [screenshot] PNG path for a full-page screenshot
 * @param {{ width?: number }} [opts] the window's width in CSS pixels
 * @returns {Promise<PageCheck>}
 */
export async function checkReport (browser, file, screenshot, { width = 1300 } = {}) {
  const page = await browser.newPage({ viewport: { width, height: 900 } })
  try {
    /** @type {Pick<PageCheck, 'errors' | 'requests' | 'dialogs'>} */
    const seen = { errors: [], requests: [], dialogs: [] }
    const url = pathToFileURL(file).href
    page.on('console', (m) => { if (m.type() === 'error') seen.errors.push(m.text()) })
    page.on('pageerror', (e) => seen.errors.push(e.message))
    page.on('request', (r) => { if (r.url() !== url) seen.requests.push(r.url()) })
    page.on('dialog', (d) => { seen.dialogs.push(d.message()); d.dismiss().catch(() => {}) })
    await page.goto(url)
    await page.waitForFunction(() => /** @type {any} */ (globalThis).__ioswarmCharts !== undefined, null, { timeout: 15000 })
    const state = await page.evaluate(() => {
      const w = /** @type {any} */ (globalThis)
      return {
        drawn: w.__ioswarmCharts,
        expected: w.__ioswarmChartPoints,
        notes: [...w.document.querySelectorAll('.no-data[data-chart]')].map((el) => el.getAttribute('data-chart')),
        images: w.document.querySelectorAll('img').length,
        headings: [...w.document.querySelectorAll('h3')].map((el) => el.textContent),
        overview: (({ scrollWidth, clientWidth } = {}) => (scrollWidth === undefined ? null : { scrollWidth, clientWidth }))(
          w.document.querySelector('#overview .table-wrap') ?? undefined),
        pageWidth: w.document.documentElement.scrollWidth,
        tables: Object.fromEntries([...w.document.querySelectorAll('section > h3')].reverse().map((h) => {
          // Every table after the heading until the next one (notes may come between).
          const cells = []
          for (let el = h.nextElementSibling; el && !el.matches('h3, h2'); el = el.nextElementSibling) {
            if (el.matches('div.table-wrap')) cells.push(...[...el.querySelectorAll('td')].map((td) => td.textContent))
          }
          return [h.textContent, cells]
        }))
      }
    })
    if (screenshot) await page.screenshot({ path: screenshot, fullPage: true })
    return { ...state, ...seen }
  } finally {
    await page.close()
  }
}
