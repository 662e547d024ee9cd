/**
 * The report's "second by second" section: the live dashboard's charts (charts/charts-live.js,
 * the same module and the same `second` events), from the run's stream or its events.ndjson,
 * with the steering actions marked and listed.
 */
import { escapeHtml, chartCards, htmlTable } from './html.js'
import { liveCharts } from './charts/charts-live.js'

/**
 * @typedef {object} LiveEvents a run's stream events, by kind
 * @property {import('./charts/charts-live.js').Second[]} seconds
 * @property {import('./charts/charts-live.js').WindowEvent[]} [windows]
 * @property {{ at: number, action: string, value?: unknown, by?: string, ok?: boolean, message?: string }[]} [actions]
 * @property {import('./charts/charts-live.js').Threshold[]} [thresholds] the run's --assert or --slo, drawn on their charts
 * @property {import('./charts/charts-live.js').ShapeMark[]} [shape] the run's phases, capacity steps and restarts, drawn on every chart
 */

/**
 * Events of a stream sorted into what the charts read.
 * @param {Iterable<{ type: string } & Record<string, any>>} events
 * @returns {LiveEvents}
 */
export function liveEventsOf (events) {
  /** @type {LiveEvents & { windows: any[], actions: any[], shape: any[] }} */
  const live = { seconds: [], windows: [], actions: [], shape: [] }
  for (const e of events) {
    if (e.type === 'second') live.seconds.push(/** @type {any} */ (e))
    else if (e.type === 'window') live.windows.push(e)
    else if (e.type === 'action') live.actions.push(e)
    else if (e.type === 'mark') live.shape.push(e)
    else if (e.type === 'hello' && Array.isArray(e.thresholds)) live.thresholds = e.thresholds
  }
  return live
}

/**
 * @param {LiveEvents} live
 * @returns {{ html: string, charts: import('./html.js').ChartSpec[] } | null}
 */
export function liveSection (live) {
  if (live.seconds.length === 0) return null
  const actions = live.actions ?? []
  const marks = actions.filter((a) => a.ok !== false).map((a) => ({ at: a.at, label: `${a.action}${a.value !== undefined ? ` ${a.value}` : ''}` }))
  const charts = liveCharts(live.seconds, { marks, windows: live.windows ?? [], thresholds: live.thresholds ?? [], shape: live.shape ?? [] })
  const startMs = live.seconds[0].t
  const table = actions.length
    ? `<h3>Actions</h3>${htmlTable(['at (s)', 'action', 'value', 'by', 'result'], actions.map((a) => [
      Math.round((a.at - startMs) / 100) / 10, a.action, a.value === undefined ? '' : String(a.value), a.by ?? '',
      a.ok === false ? `refused: ${a.message ?? ''}` : 'done'
    ]))}`
    : ''
  const html = `<section id="live">
<h2>Second by second</h2>
<p class="sub">${escapeHtml(`${live.seconds.length} seconds as the live dashboard drew them (all simulators merged each second)`)}</p>
${table}
${chartCards(charts)}
</section>`
  return { html, charts }
}
