/**
 * Charts per message for one distribution: relative delay percentiles with the simulators' own
 * floor, absolute latency with
 * its clock uncertainty, missing deliveries; and the connect-time distribution. Messages are
 * categories on x (their ids), shaded by round so round boundaries show.
 */
import { formatMs, formatTlsBeside } from '../../../lib/text/format.js'
import { STAT_COLORS, axis, bandAxis, chartConfig, color, line, spec, tint } from './chart-config.js'
import { windowCharts } from './charts-windows.js'

/**
 * @typedef {import('../../../lib/schema/result-schema.js').DistributionResult} DistributionResult
 * @typedef {import('../../../lib/schema/result-schema.js').RunMessage} RunMessage
 * @typedef {import('../html.js').ChartSpec} ChartSpec
 */

/** Soft, clearly different shades for neighbouring rounds. */
const ROUND_SHADES = ['rgba(78, 121, 167, 0.12)', 'rgba(242, 142, 43, 0.14)', 'rgba(89, 161, 79, 0.13)', 'rgba(176, 122, 161, 0.14)']

/** More rounds than this are shaded without a legend entry each: the legend would bury the lines. */
const ROUND_LEGEND_MAX = 6
/** More messages than this are drawn as lines without dots. */
const DOTS_MAX = 60

/** Long ids (content hashes) are cut on the axis; the table below the charts has them whole. */
const LABEL_MAX = 24

/**
 * Messages in send order: by round and sequence when they carry them, else by sentAt.
 * @param {RunMessage[]} messages
 */
export function orderMessages (messages) {
  const key = (/** @type {number | null} */ v) => v ?? Number.MAX_SAFE_INTEGER
  return messages
    .map((m, i) => ({ m, i }))
    .sort((a, b) => key(a.m.round) - key(b.m.round) || key(a.m.seq) - key(b.m.seq) || key(a.m.sentAt) - key(b.m.sentAt) || a.i - b.i)
    .map(({ m }) => m)
}

/**
 * One full-height bar dataset per round, tinted, behind the lines: the legend names the rounds.
 * @param {RunMessage[]} ordered
 * @param {DistributionResult['rounds']} rounds
 */
function roundBands (ordered, rounds) {
  const numbers = [...new Set(ordered.map((m) => m.round))]
  return numbers.map((round, i) => {
    const plan = rounds.find((r) => r.round === round)
    return {
      type: 'bar',
      label: round === null ? 'outside rounds' : `round ${round}${plan ? ` (${plan.count} × ${plan.intervalMs} ms)` : ''}`,
      data: ordered.map((m) => (m.round === round ? 1 : null)),
      yAxisID: 'band',
      backgroundColor: ROUND_SHADES[i % ROUND_SHADES.length],
      borderWidth: 0,
      grouped: false,
      barPercentage: 1,
      categoryPercentage: 1,
      order: 10,
      ioswarmBand: true,
      ioswarmNoLegend: numbers.length > ROUND_LEGEND_MAX
    }
  })
}

/** @param {RunMessage[]} ordered */
const dots = (ordered) => (ordered.length > DOTS_MAX ? 0 : 2)

/** @param {RunMessage[]} ordered */
function labels (ordered) {
  return ordered.map((m) => (m.id.length > LABEL_MAX ? `${m.id.slice(0, LABEL_MAX - 1)}…` : m.id))
}

const NO_MESSAGE = 'no data: no message reached any simulator of this distribution'
const X_MESSAGES = { ticks: { autoSkip: true, maxRotation: 60 } }

/**
 * @param {DistributionResult} d
 * @param {string} prefix chart name prefix, unique per distribution
 * @returns {ChartSpec[]}
 */
export function messageCharts (d, prefix) {
  // In time windows (no rounds): the same charts per window, never a point per line.
  if (d.windows) return [...windowCharts(d, prefix), connectTimeChart(d, prefix)]
  const ordered = orderMessages(d.messages)
  const bands = roundBands(ordered, d.rounds)
  return [relativeChart(d, prefix, ordered, bands), absoluteChart(prefix, ordered, bands), missingChart(prefix, ordered), connectTimeChart(d, prefix)]
}

/**
 * @param {DistributionResult} d @param {string} prefix
 * @param {RunMessage[]} ordered @param {ReturnType<typeof roundBands>} bands
 */
function relativeChart (d, prefix, ordered, bands) {
  const stats = /** @type {const} */ (['p50', 'p90', 'p99', 'max'])
  const withFloor = ordered.some((m) => m.floor)
  const floor = withFloor
    ? [line('simulator floor', ordered.map((m) => m.floor?.cpuMs ?? null), FLOOR_COLOR, { pointRadius: dots(ordered), borderDash: [5, 4] })]
    : []
  const config = chartConfig('line', {
    labels: labels(ordered),
    datasets: [
      ...stats.map((stat) => {
        const values = ordered.map((m) => (m.relative.count > 0 ? m.relative[stat] : null))
        return line(stat, values, STAT_COLORS[stat], { pointRadius: dots(ordered) })
      }),
      ...floor,
      ...bands
    ]
  }, { x: axis('message id (round.seq)', { ...X_MESSAGES, offset: true }), y: axis('delay after first receipt (ms)', { beginAtZero: true }), band: bandAxis() })
  return spec(`${prefix}-relative-delay`, 'Relative delay per message',
    `each client's delay after the first client of its simulator got the message; merged over ${d.simulators} simulators` +
    (withFloor
      ? '. Dashed: the simulator floor, the most CPU a simulator spent draining the message ' +
        '(near max: the simulator may have made the spread; far below: the server or network did)'
      : ''),
    config, NO_MESSAGE)
}

/** The simulator floor's line: dark and dashed, apart from the delay statistics. */
const FLOOR_COLOR = '#3d4752'

/**
 * p50 and p99 with a band from p50 − u to p99 + u, u being the clock offset's uncertainty.
 * @param {string} prefix @param {RunMessage[]} ordered @param {ReturnType<typeof roundBands>} bands
 */
function absoluteChart (prefix, ordered, bands) {
  const withAbsolute = ordered.filter((m) => m.absolute && m.absolute.count > 0).length
  const abs = (/** @type {(a: NonNullable<RunMessage['absolute']>) => number} */ f) =>
    ordered.map((m) => (m.absolute && m.absolute.count > 0 ? Math.round(f(m.absolute) * 1000) / 1000 : null))
  const grey = 'rgba(93, 107, 122, 0.3)'
  const config = chartConfig('line', {
    labels: labels(ordered),
    datasets: withAbsolute === 0
      ? []
      : [
          line('p50 − uncertainty', abs((a) => Math.max(0, a.p50 - a.uncertaintyMs)), grey, { borderWidth: 0, ioswarmNoLegend: true }),
          line('p50 − u … p99 + u', abs((a) => a.p99 + a.uncertaintyMs), grey, { borderWidth: 0, fill: '-1', backgroundColor: 'rgba(93, 107, 122, 0.16)' }),
          line('p50', abs((a) => a.p50), STAT_COLORS.p50, { pointRadius: dots(ordered) }),
          line('p99', abs((a) => a.p99), STAT_COLORS.p99, { pointRadius: dots(ordered) }),
          ...bands
        ]
  }, { x: axis('message id (round.seq)', { ...X_MESSAGES, offset: true }), y: axis('latency (ms)', { beginAtZero: true }), band: bandAxis() })
  return spec(`${prefix}-absolute-latency`, 'Absolute latency per message',
    'from the sender\'s sentAt to receipt, corrected by measured clock offsets; the band spans p50 to p99 widened by the offset uncertainty u ' +
    `(${withAbsolute} of ${ordered.length} messages carried sentAt)`,
    config, ordered.length ? 'no data: no message carried sentAt, so no absolute latency' : NO_MESSAGE)
}

/**
 * @param {string} prefix @param {RunMessage[]} ordered
 */
function missingChart (prefix, ordered) {
  const missing = ordered.reduce((sum, m) => sum + m.missing, 0)
  const expected = ordered.reduce((sum, m) => sum + m.expected, 0)
  const config = chartConfig('bar', {
    labels: labels(ordered),
    datasets: [{ label: 'missing deliveries', data: ordered.map((m) => m.missing), backgroundColor: '#e15759' }]
  }, { x: axis('message id (round.seq)', X_MESSAGES), y: axis('clients that never got it', { beginAtZero: true, suggestedMax: 1, ticks: { precision: 0 } }) })
  return spec(`${prefix}-missing`, 'Missing deliveries per message',
    `${missing} of ${expected} expected deliveries never arrived (clients connected when the message came)`, config, NO_MESSAGE)
}

/**
 * @param {DistributionResult} d
 * @param {string} prefix
 */
function connectTimeChart (d, prefix) {
  const c = d.connectTime
  const config = chartConfig('line', {
    datasets: [line('connect time', c.curve.map((p) => ({ x: p.percentile, y: p.ms })), color(0),
      { pointRadius: 2, fill: 'origin', backgroundColor: tint(color(0), 0.12) })]
  }, { x: axis('percentile of clients', { type: 'linear', min: 0, max: 100 }), y: axis('attempt → connected (ms)', { beginAtZero: true }) })
  // The server's part of it: attempt → Engine.IO open (the handshake accepted), when measured.
  const a = d.acceptTime
  const accepted = a?.count ? `; handshake accepted (Engine.IO open) p50 ${formatMs(a.p50)}, p99 ${formatMs(a.p99)}, max ${formatMs(a.max)}` : ''
  const caption = c.count
    ? `${c.count} connections: p50 ${formatMs(c.p50)}, p99 ${formatMs(c.p99)}, max ${formatMs(c.max)}${formatTlsBeside(d.tlsTime)}${accepted}`
    : 'attempt → connected, per percentile of clients'
  return spec(`${prefix}-connect-time`, 'Connect time distribution', caption, config,
    c.count ? 'no data: the result has no connect-time curve' : 'no data: no client connected')
}
