/**
 * Second-by-second charts of a run, from the live stream's `second` events (results/dashboard/):
 * the one chart code of the live dashboard and of report.html. It runs in Node (the report
 * builds its configs from a result's seconds) and in the browser (the dashboard's page imports
 * this file, chart-config.js and charts-shape.js as they are), so it imports nothing else.
 */
import { STAT_COLORS, axis, band, bandAxis, chartConfig, color, countPoints, line, spec, tint } from './chart-config.js'
import { shapeDatasets, stormsOf, thresholdLine } from './charts-shape.js'

export { stormsOf } from './charts-shape.js'

/**
 * @typedef {{ type: 'second', t: number } & Record<string, any>} Second a `second` event (results/dashboard/second-fold.js)
 * @typedef {{ at: number, label: string }} Mark an action or another moment drawn on every chart
 * @typedef {{ at: number, window: Record<string, any> }} WindowEvent a `window` event: a window merged over the simulators as it closed
 * @typedef {{ expression: string, metric: string, op: string, value: number }} Threshold an --assert or --slo as parsed
 * @typedef {import('./charts-shape.js').ShapeMark} ShapeMark
 * @typedef {{ row?: string | null, node?: string | null, marks?: Mark[], windows?: WindowEvent[], startMs?: number, thresholds?: Threshold[],
 *   shape?: ShapeMark[] }} LiveChartOptions shape: the run's phases, capacity steps and restarts (the stream's `mark` events); storms are read from the seconds
 */

/** Threshold metrics drawn as lines on a chart, and how a second reads them. */
const THRESHOLD_READS = /** @type {Record<string, { chart: string, read: (s: Second) => number | null | undefined }>} */ ({
  p50: { chart: 'live-delay', read: (s) => s.delivery?.relative?.p50 },
  p99: { chart: 'live-delay', read: (s) => s.delivery?.relative?.p99 },
  max: { chart: 'live-delay', read: (s) => s.delivery?.relative?.max },
  'abs.p99': { chart: 'live-delay', read: (s) => s.delivery?.absolute?.p99 },
  'ack.p50': { chart: 'live-ack', read: (s) => s.traffic?.ack?.p50 },
  'ack.p99': { chart: 'live-ack', read: (s) => s.traffic?.ack?.p99 },
  missing: { chart: 'live-deliveries', read: (s) => s.totals?.missing }
})

/**
 * How each threshold stands now: on the newest second that has its figure (delays), or the
 * run's total so far (missing); the verdict of record is the run's, at its end.
 * @param {Second[]} seconds
 * @param {Threshold[]} thresholds
 * @returns {{ expression: string, value: number | null, ok: boolean | null }[]}
 */
export function thresholdsNow (seconds, thresholds) {
  return thresholds.map((t) => {
    const read = THRESHOLD_READS[t.metric]?.read
    const value = read ? [...seconds].reverse().map(read).find((v) => v !== null && v !== undefined) ?? null : null
    return { expression: t.expression, value, ok: value === null ? null : compare(value, t.op, t.value) }
  })
}

/** @param {number} a @param {string} op @param {number} b */
function compare (a, op, b) {
  return op === '<' ? a < b : op === '<=' ? a <= b : op === '>' ? a > b : op === '>=' ? a >= b : a === b
}

/** Simulators drawn one by one (more: the busiest, as the stream names them). */
const MAX_SIMULATOR_LINES = 12

/**
 * A bounded list of seconds: past `max`, every other second of the older half is dropped, so a
 * page left open for hours keeps the whole run at a coarser grain and the last minutes whole.
 * @template T
 * @param {T[]} list
 * @param {number} max
 * @returns {T[]}
 */
export function thinSeconds (list, max) {
  if (list.length <= max) return list
  const half = Math.floor(list.length / 2)
  const older = list.slice(0, half).filter((_, i) => i % 2 === 0)
  return [...older, ...list.slice(half)]
}

/**
 * The rows (namespace, room, event) and nodes the seconds name, busiest first: what a page offers to select.
 * @param {Second[]} seconds
 */
export function breakdownKeys (seconds) {
  /** @type {Map<string, number>} */
  const rows = new Map()
  /** @type {Map<string, number>} */
  const nodes = new Map()
  for (const s of seconds) {
    for (const r of s.rows ?? []) rows.set(r.key, (rows.get(r.key) ?? 0) + r.messages)
    for (const [name, n] of Object.entries(s.clients?.byNode ?? {})) nodes.set(name, Math.max(nodes.get(name) ?? 0, Number(n)))
  }
  const order = (/** @type {Map<string, number>} */ m) => [...m].sort((a, b) => b[1] - a[1]).map(([k]) => k)
  return { rows: order(rows), nodes: order(nodes) }
}

/**
 * Every live chart's spec (import('../html.js').ChartSpec), in page order.
 * @param {Second[]} seconds
 * @param {LiveChartOptions} [options]
 */
export function liveCharts (seconds, options = {}) {
  const startMs = options.startMs ?? seconds[0]?.t ?? 0
  const x = (/** @type {number} */ t) => Math.round((t - startMs) / 100) / 10
  /** @param {(s: Second) => number | null | undefined} read */
  const pts = (read) => seconds.map((s) => ({ x: x(s.t), y: read(s) ?? null }))
  const marks = marksBand(options.marks ?? [], x, seconds)
  const x0 = seconds.length ? x(seconds[0].t) : 0
  const x1 = seconds.length ? x(seconds[seconds.length - 1].t) : 0
  // The thresholds as flat lines over the seconds drawn, coloured by how each stands now.
  const standing = thresholdsNow(seconds, options.thresholds ?? [])
  /** @param {string} name */
  const limits = (name) => (options.thresholds ?? []).flatMap((t, i) => (THRESHOLD_READS[t.metric]?.chart === name && name !== 'live-deliveries'
    ? [thresholdLine(t, standing[i], x0, x1)]
    : []))
  const shape = shapeDatasets([...(options.shape ?? []), ...stormsOf(seconds)], x)
  /** @param {string} name @param {string} title @param {string} caption @param {Record<string, any>[]} datasets @param {string} yTitle @param {string} note @param {Record<string, any>} [y] */
  const chart = (name, title, caption, datasets, yTitle, note, y = {}) => {
    // A chart without a reading shows its note: neither a threshold nor the shape make it one.
    const own = countPoints({ data: { datasets } }) > 0 ? [...datasets, ...limits(name)] : datasets
    return spec(name, title, caption, chartConfig('line', { datasets: [...own, ...marks, ...shape] },
      { x: axis('seconds since the run started', { type: 'linear' }), y: axis(yTitle, { beginAtZero: true, ...y }), band: bandAxis() }), note)
  }
  const sims = Object.keys(seconds.at(-1)?.clients?.bySimulator ?? {}).slice(0, MAX_SIMULATOR_LINES)
  const keys = breakdownKeys(seconds)
  const transports = [...new Set(seconds.flatMap((s) => Object.keys(s.clients?.byTransport ?? {})))].sort()
  const row = options.row ?? keys.rows[0] ?? null
  const node = options.node ?? null
  const rowOf = (/** @type {Second} */ s) => (s.rows ?? []).find((/** @type {any} */ r) => r.key === row)
  return [
    chart('live-connected', 'Clients connected', 'by the transport in use, all simulators merged; the server\'s own count where it reports one', [
      ...transports.map((name, k) => line(name, pts((s) => s.clients?.byTransport?.[name] ?? 0), color(k),
        { fill: k === 0 ? 'origin' : '-1', backgroundColor: tint(color(k), 0.3) })),
      line('server', pts((s) => s.server?.connected), '#333333', { borderDash: [4, 3] })
    ], 'connected clients', 'no simulator has reported yet'),
    chart('live-connects', 'Connects, errors and disconnects a second', 'all simulators merged', [
      line('connects', pts((s) => s.clients?.connects), color(4)),
      line('connect errors', pts((s) => s.clients?.errors), color(2)),
      line('disconnects', pts((s) => s.clients?.disconnects), color(1))
    ], 'per second', 'no simulator has reported yet'),
    chart('live-delay', 'Delivery delay a second', 'relative delay (after each simulator\'s first receipt) of the messages closed in that second, ' +
      'HDR-merged; absolute p99 dashed (the largest of the second\'s reports)', [
      ...(/** @type {const} */ (['p50', 'p99', 'max'])).map((k) => line(`relative ${k}`, pts((s) => s.delivery?.relative?.[k]), STAT_COLORS[k])),
      line('absolute p99', pts((s) => s.delivery?.absolute?.p99), STAT_COLORS.p99, { borderDash: [5, 4] })
    ], 'ms', 'no message has closed yet'),
    chart('live-window-delay', 'Delivery delay a window', 'relative delay p50/p99/max of each window (--window), at its end, merged over the simulators', [
      ...(/** @type {const} */ (['p50', 'p99', 'max'])).map((k) => line(`window ${k}`, (options.windows ?? [])
        .map((w) => ({ x: x(w.window.endAt ?? w.at), y: w.window.relative?.count ? w.window.relative[k] : null })), STAT_COLORS[k], { pointRadius: 3 }))
    ], 'ms', 'no window has closed yet (runs without rounds close one each --window)'),
    chart('live-deliveries', 'Deliveries a second', 'received, missing, misdelivered, duplicated and echoed copies of the messages closed in that second', [
      line('received', pts((s) => s.delivery?.received), color(0)),
      line('missing', pts((s) => s.delivery?.missing), color(2)),
      line('misdelivered', pts((s) => s.delivery?.misdelivered), color(6)),
      line('duplicated', pts((s) => s.delivery?.duplicates), color(8)),
      line('echo', pts((s) => s.delivery?.echo), color(9))
    ], 'deliveries', 'no message has closed yet'),
    chart('live-emits', 'Emits a second', 'the clients\' emits (--emit, a scenario\'s) and what came of them', [
      line('sent', pts((s) => s.traffic?.emits?.sent), color(0)),
      line('acked', pts((s) => s.traffic?.emits?.acked), color(4)),
      line('timed out', pts((s) => s.traffic?.emits?.timedOut), color(1)),
      line('failed', pts((s) => s.traffic?.emits?.failed), color(2))
    ], 'emits', 'the clients emit nothing'),
    chart('live-ack', 'Ack and reply latency', 'emit → ack and emit → reply, p50 and p99 (upper bound of the 1-2-5 bucket)', [
      line('ack p50', pts((s) => s.traffic?.ack?.p50), STAT_COLORS.p50),
      line('ack p99', pts((s) => s.traffic?.ack?.p99), STAT_COLORS.p99),
      line('reply p99', pts((s) => s.traffic?.reply?.p99), STAT_COLORS.max, { borderDash: [5, 4] })
    ], 'ms', 'no emit was acked yet'),
    chart('live-custom', 'The scenario\'s own figures', 'ctx.count totals a second, ctx.timing p99 (ms, dashed)', customLines(seconds, pts),
      'per second / ms', 'the scenario records nothing'),
    chart('live-health', 'Health', 'the simulators\' worst event-loop delay p99 and busiest CPU; the server\'s where a probe reports it', [
      line('simulator loop delay p99 (ms)', pts((s) => s.health?.worstLoopMs), color(2)),
      line('simulator CPU % (busiest)', pts((s) => s.health?.maxCpu), color(0)),
      line('server CPU %', pts((s) => s.server?.cpu), color(4), { borderDash: [5, 4] }),
      line('server loop delay p99 (ms)', pts((s) => s.server?.loopMs), color(1), { borderDash: [5, 4] }),
      line('simulators saturated', pts((s) => s.health?.saturated), color(6))
    ], 'ms / %', 'no simulator has reported yet'),
    chart('live-simulators', 'Connected per simulator', 'each simulator\'s clients (the busiest 12)',
      sims.map((id, k) => line(id, pts((s) => s.clients?.bySimulator?.[id]), color(k))), 'connected clients', 'no simulator has reported yet'),
    chart('live-row', `Delivery of ${row ?? 'a row'}`, 'the selected namespace, room and event: relative delay p99 and max (ms), missing deliveries', [
      line('p99 (ms)', pts((s) => rowOf(s)?.p99), STAT_COLORS.p99),
      line('max (ms)', pts((s) => rowOf(s)?.max), STAT_COLORS.max),
      line('missing', pts((s) => rowOf(s)?.missing), color(2), { borderDash: [5, 4] })
    ], 'ms / deliveries', 'no message has closed yet'),
    chart('live-nodes', 'Connected per node', '--node-from: which node of the deployment serves how many clients',
      (node ? [node] : keys.nodes.slice(0, MAX_SIMULATOR_LINES)).map((name, k) => line(name, pts((s) => s.clients?.byNode?.[name]), color(k))),
      'connected clients', 'no node is known (--node-from)')
  ]
}

/**
 * @param {Second[]} seconds
 * @param {(read: (s: Second) => number | null | undefined) => { x: number, y: number | null }[]} pts
 */
function customLines (seconds, pts) {
  const counts = new Set()
  const timings = new Set()
  for (const s of seconds) {
    for (const k of Object.keys(s.traffic?.counts ?? {})) counts.add(k)
    for (const k of Object.keys(s.traffic?.timings ?? {})) timings.add(k)
  }
  return [
    ...[...counts].slice(0, 6).map((k, i) => line(`count ${k}`, pts((s) => s.traffic?.counts?.[k] ?? 0), color(i))),
    ...[...timings].slice(0, 6).map((k, i) => line(`timing ${k} p99`, pts((s) => s.traffic?.timings?.[k]?.p99), color(i + 6), { borderDash: [5, 4] }))
  ]
}

/**
 * Marks (actions) as thin shaded bands across the chart, one second wide, labelled once.
 * @param {Mark[]} marks
 * @param {(t: number) => number} x
 * @param {Second[]} seconds
 */
function marksBand (marks, x, seconds) {
  if (marks.length === 0 || seconds.length === 0) return []
  /** @type {{ x: number, y: number }[]} */
  const data = []
  for (const m of [...marks].sort((a, b) => a.at - b.at)) {
    const at = x(m.at)
    data.push({ x: at - 0.5, y: 0 }, { x: at - 0.5, y: 1 }, { x: at + 0.5, y: 1 }, { x: at + 0.5, y: 0 })
  }
  return [{ ...band(`actions: ${marks.map((m) => m.label).join(', ')}`.slice(0, 80), data, tint('#b07aa1', 0.45)), stepped: false }]
}
