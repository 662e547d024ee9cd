/**
 * The run's shape on the second-by-second charts (charts-live.js): its --phases steps and a
 * capacity search's steps shaded (a step by its verdict), server restarts as lines, reconnect
 * storms shaded from their first drop until the clients were back, and each threshold as a
 * flat line coloured by how it stands. Browser-safe like charts-live.js (the page imports it as
 * it is): no imports but chart-config.js.
 */
import { band, line, tint } from './chart-config.js'

/**
 * @typedef {{ type: 'second', t: number } & Record<string, any>} Second
 * @typedef {{ kind: 'phase' | 'step' | 'restart' | 'storm', at: number, endAt?: number, label: string, ok?: boolean | null }} ShapeMark
 *   a stretch (phase, step, storm: at → endAt) or a moment (restart) of the run, as the stream's `mark` events carry it
 */

/** Fewest clients dropped in one second for the charts to call it a storm (unless all of them dropped), as the simulators do. */
export const STORM_MIN_DROPS = 5

const COLORS = {
  phase: ['#4e79a7', '#76b7b2'],
  pass: '#59a14f',
  fail: '#e15759',
  step: '#bab0ac',
  storm: '#e15759',
  restart: '#9c2a1c'
}

/** Seconds before a drop whose peak count is what a storm's clients must be back to (the simulators' seconds are not aligned). */
const BEFORE_SECONDS = 3

/**
 * Reconnect storms read from the seconds: a second that drops at least STORM_MIN_DROPS clients
 * (or every one connected) opens one, and it lasts until as many are connected as at the peak
 * of the few seconds before it.
 * @param {Second[]} seconds
 * @returns {ShapeMark[]}
 */
export function stormsOf (seconds) {
  /** @type {ShapeMark[]} */
  const storms = []
  /** @type {{ at: number, before: number, dropped: number } | null} */
  let open = null
  /** @type {number[]} */
  const recent = []
  for (const s of seconds) {
    const before = Math.max(0, ...recent)
    const drops = s.clients?.disconnects ?? 0
    const connected = s.clients?.connected ?? 0
    if (open) {
      open.dropped += drops
      if (connected >= open.before) {
        storms.push({ kind: 'storm', at: open.at, endAt: s.t, label: `storm: ${open.dropped} dropped` })
        open = null
      }
    } else if (drops > 0 && (drops >= STORM_MIN_DROPS || drops >= before)) {
      open = { at: s.t - 1000, before, dropped: drops }
    }
    recent.push(connected)
    if (recent.length > BEFORE_SECONDS) recent.shift()
  }
  if (open && seconds.length) {
    storms.push({ kind: 'storm', at: open.at, endAt: seconds[seconds.length - 1].t, label: `storm: ${open.dropped} dropped, not all back` })
  }
  return storms
}

/**
 * The shape's datasets, drawn the same on every chart over the seconds: stretches on the
 * hidden band axis behind the lines, moments as vertical lines across the chart.
 * @param {ShapeMark[]} shape the stream's marks and the storms read from the seconds
 * @param {(t: number) => number} x epoch ms → the charts' x
 * @returns {Record<string, any>[]}
 */
export function shapeDatasets (shape, x) {
  /** @type {Record<string, any>[]} */
  const sets = []
  const stretches = (/** @type {ShapeMark[]} */ list, /** @type {string} */ label, /** @type {string} */ fill) => {
    if (list.length === 0) return
    const data = list.flatMap((m) => {
      const a = x(m.at)
      const b = x(m.endAt ?? m.at)
      return [{ x: a, y: 0 }, { x: a, y: 1 }, { x: b, y: 1 }, { x: b, y: 0 }]
    })
    sets.push({ ...band(label, data, fill), stepped: false, ioswarmShape: list.map((m) => m.label) })
  }
  const phases = shape.filter((m) => m.kind === 'phase')
  for (const k of [0, 1]) {
    const these = phases.filter((_, i) => i % 2 === k)
    stretches(these, `phases: ${these.map((m) => m.label).join(', ')}`.slice(0, 60), tint(COLORS.phase[k], 0.1))
  }
  const steps = shape.filter((m) => m.kind === 'step')
  for (const [verdict, fill] of /** @type {const} */ ([[true, COLORS.pass], [false, COLORS.fail], [null, COLORS.step]])) {
    const these = steps.filter((m) => (m.ok ?? null) === verdict)
    const judged = verdict === true ? 'passed' : verdict === false ? 'failed' : 'not judged'
    stretches(these, `steps ${judged}: ${these.map((m) => m.label).join(', ')}`.slice(0, 70), tint(fill, 0.14))
  }
  const storms = shape.filter((m) => m.kind === 'storm')
  stretches(storms, storms.map((m) => m.label).join(', ').slice(0, 60), tint(COLORS.storm, 0.18))
  for (const m of shape.filter((m) => m.kind === 'restart')) {
    const at = x(m.at)
    const style = { yAxisID: 'band', borderDash: [6, 3], borderWidth: 2, order: 0, ioswarmBand: true, ioswarmShape: [m.label] }
    sets.push(line(m.label, [{ x: at, y: 0 }, { x: at, y: 1 }], COLORS.restart, style))
  }
  return sets
}

/**
 * A threshold as a flat line over the seconds drawn, green while it passes, red while it
 * fails, grey before its first reading; its label says which.
 * @param {{ expression: string, value: number }} threshold
 * @param {{ ok: boolean | null }} now how it stands (charts-live.js thresholdsNow)
 * @param {number} x0
 * @param {number} x1
 */
export function thresholdLine (threshold, now, x0, x1) {
  const state = now.ok === null ? 'no reading yet' : now.ok ? 'passing' : 'failing'
  const stroke = now.ok === null ? '#8c8c8c' : now.ok ? COLORS.pass : COLORS.fail
  return line(`${threshold.expression} (${state})`, [{ x: x0, y: threshold.value }, { x: x1, y: threshold.value }], stroke,
    { borderDash: [2, 3], borderWidth: 1.5, ioswarmThreshold: { expression: threshold.expression, ok: now.ok } })
}
