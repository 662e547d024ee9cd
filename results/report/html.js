/**
 * The HTML side of reports: escaping, JSON data blocks, tables, and the page shell that
 * inlines Chart.js so a report is one file that opens without a network.
 *
 * Every string from a result goes through escapeHtml (markup) or jsonForScript (data);
 * a result file comes from a run whose names, ids and event names anyone could choose.
 */
import { createHash } from 'node:crypto'
import { existsSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { STYLE } from './style.js'
import { drawCharts } from './browser.js'

/**
 * @typedef {object} ChartSpec one chart: a Chart.js config, or a note saying why there is no data
 * @property {string} name unique in the page, the canvas's data-chart attribute
 * @property {string} title
 * @property {string} caption what the chart is over
 * @property {Record<string, any> | null} config Chart.js config (plain JSON), null when there is no data
 * @property {number} points data points in the config (what the page must draw)
 * @property {string | null} note shown instead of the chart when there is no data
 */

/**
 * Escapes text for HTML element content and quoted attribute values.
 * @param {unknown} value
 */
export function escapeHtml (value) {
  return String(value ?? '').replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
}

/**
 * JSON for a `<script type="application/json">` block: `<`, `>` and `&` become \u escapes so
 * no `</script>` or `<!--` in data can end the block, and U+2028/2029 so the text stays valid JS.
 * @param {unknown} value
 */
export function jsonForScript (value) {
  return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
}

/** Text cells longer than this may wrap; shorter ones keep to one line. */
const WRAP_CHARS = 32

/**
 * A table. Cells are text (escaped here); numbers are right-aligned.
 * @param {string[]} header
 * @param {(string | number)[][]} rows
 * @param {{ rowClasses?: (string | undefined)[], fit?: boolean }} [opts] a class per row ('warn', 'pass', 'fail'); fit: text cells
 *   wrap at their spaces, so the table fits its box instead of scrolling sideways (the overview)
 */
export function htmlTable (header, rows, { rowClasses = [], fit = false } = {}) {
  // Numbers align right; short text stays on one line, long text (health, URLs) wraps.
  const cell = (/** @type {string | number} */ c) => typeof c === 'number' || /^[-+]?[\d.,]+\s?(ms|s|%|KiB|MiB|GiB)?$/.test(String(c))
    ? `<td class="num">${escapeHtml(c)}</td>`
    : `<td${String(c).length > WRAP_CHARS ? ' class="wrap"' : ''}>${escapeHtml(c)}</td>`
  const body = rows.map((r, i) => `<tr${rowClasses[i] ? ` class="${escapeHtml(rowClasses[i])}"` : ''}>${r.map(cell).join('')}</tr>`)
  return `<div class="table-wrap${fit ? ' fit' : ''}"><table><thead><tr>${header.map((h) => `<th>${escapeHtml(h)}</th>`).join('')}</tr></thead>` +
    `<tbody>${body.join('')}</tbody></table></div>`
}

/**
 * A chart card: a canvas named by data-chart, or the note that replaces it when there is no data.
 * @param {ChartSpec} spec
 */
export function chartCard (spec) {
  const figure = spec.config
    ? `<div class="canvas-box"><canvas data-chart="${escapeHtml(spec.name)}" role="img" aria-label="${escapeHtml(spec.title)}"></canvas></div>`
    : `<p class="no-data" data-chart="${escapeHtml(spec.name)}">${escapeHtml(spec.note ?? 'no data')}</p>`
  return `<figure class="chart"><figcaption><h3>${escapeHtml(spec.title)}</h3><p>${escapeHtml(spec.caption)}</p></figcaption>${figure}</figure>`
}

/**
 * Charts of one section: a card for each chart with data, and one line after them naming what
 * the run did not measure and why, instead of a card of "no data" for each.
 * @param {ChartSpec[]} specs
 */
export function chartCards (specs) {
  const cards = specs.filter((s) => s.config).map(chartCard).join('\n')
  const missing = specs.filter((s) => !s.config).map((s) => {
    const why = (s.note ?? 'no data').replace(/^no data: /, '')
    return `<span class="no-data" data-chart="${escapeHtml(s.name)}">${escapeHtml(s.title)} (${escapeHtml(why)})</span>`
  })
  const line = missing.length ? `<p class="not-measured">Not measured: ${missing.join('; ')}</p>` : ''
  return `<div class="charts">${cards}</div>${line}`
}

/** @type {{ source: string, hash: string } | null} */
let chartLibrary = null

/** Chart.js's UMD build, read once from the installed package (4.x ships both names). */
function chartLibrarySource () {
  if (!chartLibrary) {
    const dist = dirname(createRequire(import.meta.url).resolve('chart.js'))
    const file = ['chart.umd.min.js', 'chart.umd.js'].map((f) => join(dist, f)).find((f) => existsSync(f)) ?? join(dist, 'chart.umd.js')
    const source = readFileSync(file, 'utf8')
    chartLibrary = { source, hash: sha256(source) }
  }
  return chartLibrary
}

/** @param {string} text */
function sha256 (text) {
  return `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`
}

/**
 * The whole page. Scripts run only by hash (CSP), so markup that slipped through escaping
 * could not run script or load anything from the network.
 * @param {{ title: string, body: string, charts: ChartSpec[] }} page
 * @returns {string}
 */
export function htmlPage ({ title, body, charts }) {
  const library = chartLibrarySource()
  const draw = `(${drawCharts.toString()})(window.Chart, document, window)`
  const csp = `default-src 'none'; script-src ${library.hash} ${sha256(draw)}; style-src ${sha256(STYLE)}; img-src data:`
  const data = charts.map((c) => ({ name: c.name, config: c.config, points: c.points }))
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${escapeHtml(csp)}">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
${body}
<script type="application/json" id="ioswarm-charts">${jsonForScript(data)}</script>
<script>${library.source}</script>
<script>${draw}</script>
</body>
</html>
`
}
