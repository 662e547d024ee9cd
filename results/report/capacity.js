/**
 * The report of a capacity search (`ioswarm capacity`): the answer, one chart of p50 / p99
 * relative delay and missing deliveries against clients with the SLO lines, and the steps.
 * A pure function of the CapacityResult, like buildReport.
 */
import { stepLevel } from '../../lib/schema/capacity-schema.js'
import { formatBusy, formatMs } from '../../lib/text/format.js'
import { formatDate } from '../text/summary.js'
import { METRICS, parseThresholdOf } from '../thresholds/thresholds.js'
import { axis, chartConfig, color, line, spec, STAT_COLORS } from './charts/chart-config.js'
import { chartCard, escapeHtml, htmlPage, htmlTable } from './html.js'
import { actionsTable } from './charts/charts-actions.js'
import { liveSection } from './live.js'

/**
 * @typedef {import('../../lib/schema/capacity-schema.js').CapacityResult} CapacityResult
 * @typedef {import('../../lib/schema/capacity-schema.js').CapacityStep} CapacityStep
 */

const VERDICT_COLORS = { pass: '#59a14f', fail: '#e15759', inconclusive: '#9c755f' }
const MISSING_COLOR = '#b07aa1'
const ACK_COLOR = '#76b7b2'
const SLO_COLOR = '#e15759'

/**
 * p50 and p99 (ms, left axis) and missing deliveries (right axis) against clients, one point
 * per measured step coloured by its verdict, and a dashed line per relative-delay or missing SLO.
 * @param {CapacityResult} result
 * @returns {import('./html.js').ChartSpec}
 */
export function capacityChart (result) {
  const measured = result.steps.filter((s) => s.limitedBy !== 'limit').sort((a, b) => stepLevel(a) - stepLevel(b))
  const colors = measured.map((s) => VERDICT_COLORS[s.verdict])
  const xs = measured.map(stepLevel)
  const span = xs.length ? [Math.min(...xs), Math.max(...xs)] : [0, 0]
  /** @param {(s: CapacityStep) => number | null} pick */
  const points = (pick) => measured.map((s) => ({ x: stepLevel(s), y: pick(s) }))
  const windowed = result.steps.some((s) => s.windowed)
  const acks = result.steps.some((s) => s.windowed?.ack)
  const x = result.vary === 'emit-rate' ? 'messages a second' : 'clients'
  const marked = { pointRadius: 4, pointBackgroundColor: colors, pointBorderColor: colors }
  const sloLines = result.slo.flatMap((expression) => {
    const axisId = sloAxis(expression)
    if (axisId === null) return []
    const { value } = parseThresholdOf(expression, '--slo')
    return [line(`SLO ${expression}`, span.map((x) => ({ x, y: value })), SLO_COLOR, { borderDash: [6, 4], yAxisID: axisId, pointRadius: 0 })]
  })
  const config = chartConfig('line', {
    datasets: [
      line('relative p50', points((s) => s.relative.p50), STAT_COLORS.p50, marked),
      line('relative p99', points((s) => s.relative.p99), STAT_COLORS.p99, marked),
      ...(acks ? [line('ack p99', points((s) => s.windowed?.ack?.p99 ?? null), ACK_COLOR, marked)] : []),
      line('missing deliveries', points((s) => s.missing), MISSING_COLOR, { ...marked, yAxisID: 'missing', borderDash: [2, 3] }),
      ...sloLines
    ]
  }, {
    x: axis(x, { type: 'linear' }),
    y: axis(`${acks ? 'delay' : 'relative delay'} (ms), worst ${windowed ? 'window' : 'round'} of the step`, { beginAtZero: true }),
    missing: axis('missing deliveries', { position: 'right', beginAtZero: true, grid: { drawOnChartArea: false } })
  })
  const swarm = `${result.swarm.transport} (${result.swarm.engine}), ${result.swarm.simulators} simulators`
  return spec('capacity-delay', `Delay and missing deliveries against ${x}`,
    `one point per measured step (green pass, red fail, brown inconclusive: the simulators limited it); dashed red: the SLO; ${swarm}`,
    config, 'no data: no step was measured')
}

/**
 * The axis an SLO's line goes on, read as --slo reads it (results/thresholds/thresholds.js): every delay
 * SLO (p50 … max, mean, avg, abs.*) on the delay axis in ms, a count of missing deliveries on
 * theirs; null for the rest (a %, connected, failed) and for what this version cannot read.
 * @param {string} expression
 * @returns {'y' | 'missing' | null}
 */
function sloAxis (expression) {
  let slo
  try {
    slo = parseThresholdOf(expression, '--slo')
  } catch {
    return null
  }
  if (METRICS[slo.metric].kind === 'delay') return 'y'
  return slo.metric === 'missing' && slo.unit === 'count' ? 'missing' : null
}

/**
 * The steps in the order they ran.
 * @param {CapacityResult} result
 */
function stepsTable (result) {
  const rate = result.vary === 'emit-rate'
  const acks = result.steps.some((s) => s.windowed?.ack)
  const rows = result.steps.map((s) => [
    s.step, s.phase, ...(rate ? [s.windowed?.emitRate ?? '-', s.windowed?.emitsPerSecond ?? '-'] : []), s.clients, s.connected,
    formatMs(s.relative.p50), formatMs(s.relative.p99), formatMs(s.relative.max), ...(acks ? [formatMs(s.windowed?.ack?.p99 ?? null)] : []),
    `${s.missing}/${s.expected}`, formatBusy(s.floor?.busyMax), `${s.simulators.reduce((sum, x) => sum + x.saturatedSeconds, 0)} s`,
    `${s.limits.fdsPerSimulator}/${s.limits.fdLimit}`, s.verdict, s.why
  ])
  const head = ['step', 'phase', ...(rate ? ['messages/s', 'sent/s'] : []), 'clients', 'connected', 'p50', 'p99', 'max', ...(acks ? ['ack p99'] : []),
    'missing', 'busiest', 'saturated', 'fds/sim', 'verdict', 'why']
  return htmlTable(head, rows,
    { rowClasses: result.steps.map((s) => (s.verdict === 'pass' ? 'pass' : s.verdict === 'fail' ? 'fail' : 'warn')) })
}

/**
 * @param {CapacityResult} result
 * @param {{ generatedAt?: number, live?: import('./live.js').LiveEvents | null }} [opts] generatedAt: epoch ms shown as the report's date (omitted when not
 *   given); live: the search's stream (--dashboard), drawn second by second as the dashboard drew it, each step shaded by its verdict
 * @returns {string}
 */
export function buildCapacityReport (result, { generatedAt, live = null } = {}) {
  const chart = capacityChart(result)
  const liveSpecs = live ? liveSection(live) : null
  const found = result.outcome === 'found' || result.outcome === 'max'
  const facts = [
    ['target', `${result.target.url}${result.target.reference ? ' (reference server)' : ''}`],
    ['swarm', `${result.swarm.simulators} simulators, ${result.swarm.transport}, ${result.swarm.engine} engine`],
    ['SLO', result.slo.join(', ')],
    ['search', `${result.steps.length} steps in ${Math.round(result.durationMs / 1000)} s`],
    ['tool', `${result.tool.name} ${result.tool.version} on ${result.host.hostname}`],
    ...(generatedAt === undefined ? [] : [['report generated', formatDate(generatedAt)]])
  ]
  const unit = result.vary === 'emit-rate' ? 'messages/s' : 'clients'
  const headline = found ? `${result.outcome === 'max' ? '≥ ' : ''}${result.capacity} ${unit}` : result.outcome
  const advice = result.advice.length ? `<ul>${result.advice.map((a) => `<li>${escapeHtml(a)}</li>`).join('')}</ul>` : ''
  const actions = actionsTable(result.actions, result.run.startedAt)
  const body = [
    `<header class="top"><div class="inner"><div>
<h1>${escapeHtml(result.run.name)}</h1>
<p class="sub">ioswarm capacity ${escapeHtml(result.run.id)} · ${escapeHtml(formatDate(result.run.startedAt))}</p>
<dl class="facts">${facts.map(([k, v]) => `<dt>${escapeHtml(k)}</dt><dd>${escapeHtml(v)}</dd>`).join('')}</dl>
</div><div class="verdict ${found ? 'pass' : 'fail'}">${escapeHtml(headline)}</div></div></header>`,
    '<main>',
    `<section id="answer"><h2>Answer</h2><p>${escapeHtml(result.answer)}</p>${advice}</section>`,
    `<section id="charts"><h2>Steps</h2><div class="charts">${chartCard(chart)}</div>${stepsTable(result)}${actions}</section>`,
    liveSpecs?.html ?? '',
    '</main>'
  ].join('\n')
  return htmlPage({ title: `ioswarm capacity: ${result.run.name}`, body, charts: [chart, ...(liveSpecs?.charts ?? [])] })
}

/**
 * Capacity searches side by side (`ioswarm report --compare`): relative p99 against clients,
 * one line per search over its measured steps, and the answers.
 * @param {CapacityResult[]} results
 * @param {string[]} labels one per result
 * @returns {{ chart: import('./html.js').ChartSpec, table: string }}
 */
export function compareCapacities (results, labels) {
  const config = chartConfig('line', {
    datasets: results.map((r, i) => {
      const measured = r.steps.filter((s) => s.limitedBy !== 'limit').sort((a, b) => stepLevel(a) - stepLevel(b))
      return line(labels[i], measured.flatMap((s) => (s.relative.p99 === null ? [] : [{ x: stepLevel(s), y: s.relative.p99 }])), color(i), { pointRadius: 4 })
    })
  }, { x: axis('clients', { type: 'linear' }), y: axis('relative delay p99 (ms), worst round of the step', { beginAtZero: true }) })
  const caption = `one line per capacity search, a point per measured step; ${results.length} searches`
  const chart = spec('compare-capacity', 'p99 relative delay against clients', caption, config, 'no data: no step of any search was measured')
  const table = htmlTable(['search', 'target', 'SLO', 'outcome', 'capacity', 'steps', 'answer'], results.map((r, i) => [
    labels[i], r.target.url, r.slo.join(', '), r.outcome, r.capacity ?? '-', r.steps.length, r.answer
  ]), { rowClasses: results.map((r) => (r.outcome === 'found' || r.outcome === 'max' ? 'pass' : 'fail')) })
  return { chart, table }
}
