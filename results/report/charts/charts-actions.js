/**
 * The steering actions of a run (stop, clients, emit rate, stop after a step: the dashboard,
 * its HTTP API, Ctrl-C) in its report: a dashed vertical line at each action's time on every
 * chart over time, and a table of them all, done or refused.
 */
import { formatDate } from '../../text/summary.js'
import { escapeHtml, htmlTable } from '../html.js'
import { bandAxis, line, secondsSince } from './chart-config.js'

/**
 * @typedef {import('../../../lib/schema/result-schema.js').SteeringAction} SteeringAction
 * @typedef {import('../html.js').ChartSpec} ChartSpec
 */

/** Done actions are drawn dark, refused ones light: both happened, only one changed the run. */
const DONE_COLOR = '#333333'
const REFUSED_COLOR = '#bab0ac'

/**
 * What an action changed, in a few words: `clients 4000`, `emit-rate 5/s`, `stop`.
 * @param {SteeringAction} a
 */
export function actionLabel (a) {
  return a.value === null ? a.action : `${a.action} ${a.value}`
}

/**
 * Each chart over time (an x axis of seconds since the distribution started) with a vertical
 * line per action inside the distribution's span, drawn on the hidden 0..1 axis the shading
 * uses, so it spans the chart whatever its values. Charts of another kind come back as they were.
 * @param {ChartSpec[]} charts
 * @param {readonly SteeringAction[] | undefined} actions
 * @param {{ startedAt: number, endedAt: number }} span the distribution's
 * @returns {ChartSpec[]}
 */
export function markActions (charts, actions, span) {
  const inside = (actions ?? []).filter((a) => a.at >= span.startedAt && a.at <= span.endedAt)
  if (inside.length === 0) return charts
  return charts.map((chart) => {
    const config = /** @type {any} */ (chart.config)
    if (!config || !isOverTime(config)) return chart
    const marks = inside.map((a) => {
      const x = secondsSince(a.at, span.startedAt)
      const label = `${a.ok ? '' : 'refused: '}${actionLabel(a)} (${a.by})`
      return line(label, [{ x, y: 0 }, { x, y: 1 }], a.ok ? DONE_COLOR : REFUSED_COLOR, { yAxisID: 'band', borderDash: [5, 4], order: 0, ioswarmBand: true })
    })
    const scales = config.options.scales.band ? config.options.scales : { ...config.options.scales, band: bandAxis() }
    const data = { ...config.data, datasets: [...config.data.datasets, ...marks] }
    return { ...chart, caption: `${chart.caption}; dashed: steering actions`, config: { ...config, data, options: { ...config.options, scales } } }
  })
}

/** @param {any} config */
function isOverTime (config) {
  const x = config.options?.scales?.x
  return x?.type === 'linear' && /^seconds since/.test(String(x.title?.text ?? ''))
}

/**
 * The table of a run's actions, in order: when (and seconds since the run started), what,
 * who asked, done or why refused. Empty text when there were none.
 * @param {readonly SteeringAction[] | undefined} actions
 * @param {number} startedAt the run's start (epoch ms)
 */
export function actionsTable (actions, startedAt) {
  if (!actions || actions.length === 0) return ''
  const rows = actions.map((a) => [
    formatDate(a.at), `${secondsSince(a.at, startedAt)} s`, a.action, a.value === null ? '' : String(a.value), a.by,
    a.ok ? `done${a.message ? `: ${a.message}` : ''}` : `refused: ${a.message ?? ''}`
  ])
  const rowClasses = actions.map((a) => (a.ok ? undefined : 'warn'))
  const table = htmlTable(['time', 'since start', 'action', 'value', 'by', 'outcome'], rows, { rowClasses, fit: true })
  return `<h3 id="actions">Steering actions</h3>${table}` +
    `<p class="muted">${escapeHtml(`${actions.filter((a) => a.ok).length} of ${actions.length} done; each is a dashed line on the charts over time`)}</p>`
}
