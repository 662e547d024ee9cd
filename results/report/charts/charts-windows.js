/**
 * A distribution in time windows (a run without rounds): the per-message charts become
 * per-window charts, under the same names (relative delay, absolute latency with the emits'
 * ack time, missing with the deliveries), and the rounds table a windows table. A chat run
 * has thousands of lines: it is drawn and listed by window, never a row per line.
 */
import { formatMs } from '../../../lib/text/format.js'
import { STAT_COLORS, axis, band, bandAxis, chartConfig, color, line, secondsSince, spec, tint } from './chart-config.js'
import { htmlTable } from '../html.js'

/**
 * @typedef {import('../../../lib/schema/result-schema.js').DistributionResult} DistributionResult
 * @typedef {import('../../../lib/schema/result-schema.js').WindowResult} WindowResult
 * @typedef {import('../html.js').ChartSpec} ChartSpec
 */

/** More windows than this are drawn as lines without dots. */
const DOTS_MAX = 60
const NO_WINDOW = 'no data: no simulator reported a window'

/** @param {number} at epoch ms */
const clockTime = (at) => new Date(at).toISOString().slice(11, 19)

/**
 * Each window's label on a per-window axis: its start (UTC).
 * @param {WindowResult[]} windows
 */
export const labelsOf = (windows) => windows.map((w) => clockTime(w.startAt))

/**
 * The point radius of a per-window line: dots while the windows are few enough to tell apart.
 * @param {WindowResult[]} windows
 */
export const dots = (windows) => (windows.length > DOTS_MAX ? 0 : 2)

/** The x axis of every per-window chart. */
export const X_WINDOWS = axis('window start (UTC)', { ticks: { autoSkip: true, maxRotation: 0 }, offset: true })

/** Two tints in turn, so neighbouring phases stand apart. */
const PHASE_TINTS = [tint('#9c755f', 0.14), tint('#76b7b2', 0.2)]

/**
 * --phases: a shaded band per step over the windows whose middle fell in it, named in the
 * legend (`phase 2: hold 12`), so every per-window chart shows where the profile changed.
 * @param {DistributionResult} d
 * @param {WindowResult[]} windows
 */
export function phaseBands (d, windows) {
  return (d.phases ?? []).map((s, n) => band(phaseName(s, n),
    windows.map((w) => (w.phase?.index === n + 1 ? 1 : 0)), PHASE_TINTS[n % PHASE_TINTS.length]))
}

/**
 * --phases on a chart over seconds since the distribution started: each step shaded from its
 * start to its end (as the simulators ran it), named in the legend.
 * @param {DistributionResult} d
 */
export function phaseTimeBands (d) {
  return (d.phases ?? []).map((s, n) => {
    const span = [{ x: secondsSince(s.startMs, d.startedAt), y: 1 }, { x: secondsSince(s.endMs, d.startedAt), y: 1 }]
    return band(phaseName(s, n), span, PHASE_TINTS[n % PHASE_TINTS.length])
  })
}

/**
 * `phase 2: hold 12`, `phase 3: ramp 12→0`.
 * @param {import('../../../lib/schema/result-schema.js').PhaseStep} s
 * @param {number} n 0-based
 */
const phaseName = (s, n) => `phase ${n + 1}: ${s.kind === 'hold' ? `hold ${s.to}` : `ramp ${s.from}→${s.to}`}`

/** A caption's note of the phases, when there are any. */
const phasesNote = (/** @type {DistributionResult} */ d) => (d.phases?.length ? `; shaded: the ${d.phases.length} steps of --phases` : '')

/**
 * The per-window charts of a windowed distribution, named as the per-message ones.
 * @param {DistributionResult} d
 * @param {string} prefix
 * @returns {ChartSpec[]}
 */
export function windowCharts (d, prefix) {
  const windows = d.windows ?? []
  const labels = labelsOf(windows)
  const seconds = windows.length ? (windows[0].endAt - windows[0].startAt) / 1000 : 0
  const stats = /** @type {const} */ (['p50', 'p90', 'p99', 'max'])
  const bands = phaseBands(d, windows)
  const shaded = bands.length ? { band: bandAxis() } : {}
  const relative = chartConfig('line', {
    labels,
    datasets: [
      ...stats.map((stat) => {
        const values = windows.map((w) => (w.relative.count > 0 ? w.relative[stat] : null))
        return line(stat, values, STAT_COLORS[stat], { pointRadius: dots(windows) })
      }),
      ...bands
    ]
  }, { x: X_WINDOWS, y: axis('delay after first receipt (ms)', { beginAtZero: true }), ...shaded })
  const acked = windows.some((w) => w.emits.ackTime.count > 0)
  const latency = chartConfig('line', {
    labels,
    datasets: [
      line('delivery p50', windows.map((w) => (w.absolute.count > 0 ? w.absolute.p50 : null)), STAT_COLORS.p50, { pointRadius: dots(windows) }),
      line('delivery p99', windows.map((w) => (w.absolute.count > 0 ? w.absolute.p99 : null)), STAT_COLORS.p99, { pointRadius: dots(windows) }),
      ...(acked
        ? [
            line('ack p50', windows.map((w) => (w.emits.ackTime.count > 0 ? w.emits.ackTime.p50 : null)), color(4),
              { pointRadius: dots(windows), borderDash: [5, 4] }),
            line('ack p99', windows.map((w) => (w.emits.ackTime.count > 0 ? w.emits.ackTime.p99 : null)), color(5),
              { pointRadius: dots(windows), borderDash: [5, 4] })
          ]
        : []),
      ...bands
    ]
  }, { x: X_WINDOWS, y: axis('latency (ms)', { beginAtZero: true }), ...shaded })
  const missing = chartConfig('bar', {
    labels,
    datasets: [
      { label: 'missing deliveries', data: windows.map((w) => w.missing), backgroundColor: '#e15759', yAxisID: 'y' },
      line('deliveries', windows.map((w) => w.received), color(0), { yAxisID: 'deliveries', pointRadius: dots(windows) }),
      line('connected', windows.map((w) => w.clients.connected), color(6), { yAxisID: 'deliveries', pointRadius: dots(windows), borderDash: [2, 2] }),
      ...bands
    ]
  }, {
    ...shaded,
    x: X_WINDOWS,
    y: axis('clients that never got a message', { beginAtZero: true, suggestedMax: 1, ticks: { precision: 0 } }),
    deliveries: axis('deliveries, clients connected', { position: 'right', beginAtZero: true, grid: { display: false } })
  })
  const missed = windows.reduce((s, w) => s + w.missing, 0)
  const expected = windows.reduce((s, w) => s + w.expected, 0)
  return [
    spec(`${prefix}-relative-delay`, 'Relative delay per window',
      `each client's delay after the first client of its simulator got the message, over the messages first seen in each ${seconds} s window; ` +
      `merged over ${d.simulators} simulators${phasesNote(d)}`, relative, NO_WINDOW),
    spec(`${prefix}-absolute-latency`, 'Latency per window: delivery and ack',
      `delivery: sender's sentAt → receipt, clock-corrected${acked ? '; ack (dashed): emit → ack of the clients\' own emits' : ''}; ` +
      `per ${seconds} s window${phasesNote(d)}`, latency,
      windows.length ? 'no data: no message carried sentAt and no emit was acked' : NO_WINDOW),
    spec(`${prefix}-missing`, 'Missing deliveries and deliveries per window',
      `${missed} of ${expected} expected deliveries never arrived (clients connected when the message came); ` +
      `the lines: deliveries in each window and clients connected at its end (dotted)${phasesNote(d)}`, missing, NO_WINDOW)
  ]
}

/**
 * A row per window: clients, messages and deliveries, missing, delays, emits and acks, the worst simulator health.
 * @param {DistributionResult} d
 */
export function windowsTable (d) {
  const windows = d.windows ?? []
  const phased = windows.some((w) => w.phase)
  const rows = windows.map((w) => [
    `${clockTime(w.startAt)}–${clockTime(w.endAt)}`, ...(phased ? [w.phase ? `${w.phase.index} ${w.phase.kind}` : ''] : []), w.clients.connected,
    `+${w.clients.connects} −${w.clients.drops}${w.clients.closed ? ` (${w.clients.closed} closed)` : ''}`, w.messages, w.received, w.missing,
    w.misdelivered + w.duplicates, formatMs(w.relative.count ? w.relative.p50 : null), formatMs(w.relative.count ? w.relative.p99 : null),
    formatMs(w.absolute.count ? w.absolute.p99 : null), `${w.emits.acked}/${w.emits.sent}`,
    formatMs(w.emits.ackTime.count ? w.emits.ackTime.p50 : null), formatMs(w.emits.ackTime.count ? w.emits.ackTime.p99 : null),
    formatMs(w.health.loopDelayP99MaxMs), w.health.saturatedSeconds
  ])
  const header = ['window (UTC)', ...(phased ? ['phase'] : []), 'connected', 'connects', 'messages', 'deliveries', 'missing', 'wrong copies',
    'rel p50', 'rel p99', 'abs p99', 'acked/sent', 'ack p50', 'ack p99', 'sim loop p99', 'saturated s']
  return htmlTable(header, rows, { rowClasses: windows.map((w) => (w.missing > 0 || w.health.saturatedSeconds > 0 ? 'warn' : undefined)) })
}
