/**
 * Charts over time for one distribution: connected clients (per transport and per
 * simulator), the server's load and memory, and each simulator's own health with its
 * saturated stretches shaded.
 */
import { WIRE_NAMES } from '../../../lib/transports.js'
import { axis, band, bandAxis, chartConfig, color, line, secondsAxis, secondsSince, spec, tint } from './chart-config.js'
import { phaseTimeBands } from './charts-windows.js'

/**
 * @typedef {import('../../../lib/schema/result-schema.js').DistributionResult} DistributionResult
 * @typedef {import('../html.js').ChartSpec} ChartSpec
 * @typedef {import('../../../lib/transports.js').ByTransport} ByTransport
 */

/** A simulator that missed this many seconds of samples stops counting in the totals: it is gone. */
const CARRY_SECONDS = 2

/**
 * Total connected per transport, second by second. Each simulator samples on its own clock,
 * so its last value is carried over a short gap; beyond that it counts as gone (stale).
 * Seconds count from the distribution's start (negative for samples taken before it).
 * @param {DistributionResult} d
 * @returns {({ second: number } & ByTransport)[]}
 */
export function connectedPerSecond (d) {
  return /** @type {({ second: number } & ByTransport)[]} */ (/** @type {unknown} */ (sumPerSecond(d, (p) => p.byTransport, WIRE_NAMES)))
}

/**
 * Counts of the simulators' samples summed second by second (connectedPerSecond's rule: a
 * simulator's last sample carried over a gap of up to CARRY_SECONDS, then it counts as gone).
 * @param {DistributionResult} d
 * @param {(p: DistributionResult['timeline'][number]) => Readonly<Record<string, number>> | undefined} read a sample's counts (undefined: none in it)
 * @param {readonly string[]} keys the counts summed
 * @returns {({ second: number } & Record<string, number>)[]}
 */
export function sumPerSecond (d, read, keys) {
  /** @type {Map<string, Map<number, Readonly<Record<string, number>>>>} */
  const bySimulator = new Map()
  let first = Infinity
  let last = -Infinity
  for (const p of d.timeline) {
    const second = Math.floor((p.t - d.startedAt) / 1000)
    const counts = read(p)
    if (!bySimulator.has(p.simulator)) bySimulator.set(p.simulator, new Map())
    if (counts) bySimulator.get(p.simulator)?.set(second, counts)
    first = Math.min(first, second)
    last = Math.max(last, second)
  }
  const length = d.timeline.length ? last - first + 1 : 0
  const zeros = Object.fromEntries(keys.map((k) => [k, 0]))
  const totals = Array.from({ length }, (_, i) => /** @type {{ second: number } & Record<string, number>} */ ({ second: first + i, ...zeros }))
  for (const seconds of bySimulator.values()) {
    /** @type {Readonly<Record<string, number>> | undefined} */
    let carried
    let carriedAt = -Infinity
    for (const total of totals) {
      const now = seconds.get(total.second)
      if (now) { carried = now; carriedAt = total.second }
      if (!carried || total.second - carriedAt > CARRY_SECONDS) continue
      for (const name of keys) total[name] += carried[name] ?? 0
    }
  }
  return totals
}

/**
 * @param {DistributionResult} d
 * @param {string} prefix chart name prefix, unique per distribution
 * @returns {ChartSpec[]}
 */
export function connectionCharts (d, prefix) {
  const totals = connectedPerSecond(d)
  const stacked = chartConfig('line', {
    datasets: [
      ...WIRE_NAMES.map((name, k) => line(name, totals.map((p) => ({ x: p.second, y: p[name] })), color(k),
        { fill: k === 0 ? 'origin' : '-1', backgroundColor: tint(color(k), 0.35) }))
    ]
  }, { x: secondsAxis(), y: axis('connected clients', { stacked: true, beginAtZero: true }) })
  const simulators = [...new Set(d.timeline.map((p) => p.simulator))]
  // --phases: the profile's steps shaded behind the lines.
  const phases = phaseTimeBands(d)
  const perSimulator = chartConfig('line', {
    datasets: [...simulators.map((id, i) => {
      const points = d.timeline.filter((p) => p.simulator === id).map((p) => ({ x: secondsSince(p.t, d.startedAt), y: p.connected }))
      return line(id, points, color(i))
    }), ...phases]
  }, { x: secondsAxis(), y: axis('connected clients', { beginAtZero: true }), ...(phases.length ? { band: bandAxis() } : {}) })
  const noTimeline = 'no data: no simulator reported a timeline'
  return [
    spec(`${prefix}-connected-transport`, 'Connected clients by transport',
      `all ${d.simulators} simulators, stacked, by the transport in use; a simulator that stops reporting stops counting ` +
      `(${d.clients.connected} of ${d.clients.target} connected at the end)`, stacked, noTimeline),
    spec(`${prefix}-connected-simulator`, 'Connected clients per simulator',
      `one line per simulator: its ramp, bursts of disconnects, and where it stopped reporting${phases.length ? '; shaded: the steps of --phases' : ''}`,
      perSimulator, noTimeline)
  ]
}

/** Seconds shown before the first storm and after the last one is over. */
const STORM_MARGIN_SECONDS = 5

/**
 * Connected clients per transport across the distribution's reconnect storms: the seconds
 * from just before the first drop until just after the last client was back (or the end of
 * the timeline), each storm shaded from its first drop until its last dropped client was back.
 * Storms of several simulators (one restart) overlap into one shaded stretch.
 * @param {DistributionResult} d
 * @param {string} prefix
 * @returns {ChartSpec}
 */
export function stormChart (d, prefix) {
  const storms = d.clients.storms ?? []
  const title = 'Connected clients by transport across reconnect storms'
  if (storms.length === 0) return spec(`${prefix}-storm-transport`, title, '', null, 'no reconnect storm in this run')
  const totals = connectedPerSecond(d)
  const lastSecond = totals.at(-1)?.second ?? 0
  const spans = storms.map((s) => {
    const from = (s.startedAt - d.startedAt) / 1000
    return { from, to: s.endedMs === null ? lastSecond : from + s.endedMs / 1000 }
  })
  const first = Math.min(...spans.map((s) => s.from)) - STORM_MARGIN_SECONDS
  const last = Math.max(...spans.map((s) => s.to)) + STORM_MARGIN_SECONDS
  const shown = totals.filter((p) => p.second >= Math.floor(first) && p.second <= Math.ceil(last))
  const inStorm = (/** @type {number} */ x) => (spans.some((s) => x + 1 > s.from && x <= s.to) ? 1 : 0)
  const config = chartConfig('line', {
    datasets: [
      ...WIRE_NAMES.map((name, k) => line(name, shown.map((p) => ({ x: p.second, y: p[name] })), color(k),
        { fill: k === 0 ? 'origin' : '-1', backgroundColor: tint(color(k), 0.35) })),
      band('storm', shown.map((p) => ({ x: p.second, y: inStorm(p.second) })), tint('#e15759', 0.16))
    ]
  }, { x: secondsAxis(), y: axis('connected clients', { stacked: true, beginAtZero: true }), band: bandAxis() })
  const dropped = storms.reduce((n, s) => n + s.dropped, 0)
  const recovered = storms.reduce((n, s) => n + (s.recovered ?? 0), 0)
  const lost = storms.reduce((n, s) => n + (s.lost ?? 0), 0)
  const caption = `${storms.length} storm${storms.length === 1 ? '' : 's'} (one per simulator that saw it), ` +
    `shaded from the first drop until the last dropped client was back: ${dropped} clients dropped, ${recovered} sessions recovered, ` +
    `${lost} gap deliveries lost; one sample per simulator per second, stacked by the transport in use`
  return spec(`${prefix}-storm-transport`, title, caption, config, 'no data: no simulator reported a timeline across the storms')
}

/**
 * One CPU line per worker of a clustered server (`serve --cluster K`), beside the total.
 * @param {DistributionResult['server']} samples
 * @param {(s: { t: number }) => number} x
 */
export function workerCpuLines (samples, x) {
  const workers = [...new Set(samples.flatMap((s) => (s.workers ?? []).map((w) => w.worker)))].sort((a, b) => a - b)
  return workers.map((worker, k) => line(`worker ${worker} CPU %`, samples.flatMap((s) => {
    const w = s.workers?.find((v) => v.worker === worker)
    return w ? [{ x: x(s), y: w.cpuPct }] : []
  }), color(3 + k), { borderDash: [2, 2] }))
}

/**
 * @param {DistributionResult} d
 * @param {string} prefix
 * @returns {ChartSpec[]}
 */
export function serverCharts (d, prefix) {
  const x = (/** @type {{ t: number }} */ s) => secondsSince(s.t, d.startedAt)
  const load = chartConfig('line', {
    datasets: [
      line(d.server.some((s) => s.workers) ? 'CPU % total' : 'CPU % of one core', d.server.map((s) => ({ x: x(s), y: s.cpuPct })), color(0)),
      line('event-loop delay p99 (ms)', d.server.map((s) => ({ x: x(s), y: s.loopDelayP99Ms })), color(2), { yAxisID: 'y1' }),
      ...workerCpuLines(d.server, x)
    ]
  }, {
    x: secondsAxis(),
    y: axis('CPU %', { beginAtZero: true }),
    y1: axis('event-loop delay p99 (ms)', { position: 'right', beginAtZero: true, grid: { drawOnChartArea: false } })
  })
  const memory = chartConfig('line', {
    datasets: [
      line('RSS (MiB)', d.server.map((s) => ({ x: x(s), y: Math.round(s.rssBytes / 2 ** 20) })), color(6)),
      line('connections', d.server.map((s) => ({ x: x(s), y: s.connected })), color(4), { yAxisID: 'y1' }),
      ...WIRE_NAMES.map((name, k) => line(name, d.server.map((s) => ({ x: x(s), y: s.byTransport[name] })), color(k), { yAxisID: 'y1', borderDash: [4, 3] }))
    ]
  }, {
    x: secondsAxis(),
    y: axis('RSS (MiB)', { beginAtZero: true }),
    y1: axis('connections', { position: 'right', beginAtZero: true, grid: { drawOnChartArea: false } })
  })
  const note = 'no server samples (target was not the reference server and no probe was attached)'
  return [
    spec(`${prefix}-server-load`, 'Server CPU and event-loop delay', 'the server under test, sampled every second', load, note),
    spec(`${prefix}-server-memory`, 'Server memory and connections', 'RSS, and connections the server counts, by transport', memory, note)
  ]
}

/**
 * @param {DistributionResult} d
 * @param {string} prefix
 * @returns {ChartSpec[]}
 */
export function healthCharts (d, prefix) {
  const simulators = [...new Set(d.health.map((h) => h.simulator))]
  const x = (/** @type {{ t: number }} */ h) => secondsSince(h.t, d.startedAt)
  const bands = simulators
    .map((id) => d.health.filter((h) => h.simulator === id))
    .filter((samples) => samples.some((h) => h.saturated))
    .map((samples) => band(`${samples[0].simulator} saturated`, samples.map((h) => ({ x: x(h), y: h.saturated ? 1 : 0 })), tint('#e15759', 0.16)))
  /** @param {'loopDelayP99Ms' | 'cpuPct'} field */
  const lines = (field) => simulators.map((id, i) => line(id, d.health.filter((h) => h.simulator === id).map((h) => ({ x: x(h), y: h[field] })), color(i)))
  const saturated = bands.length
    ? `shaded where a simulator was saturated (${bands.length} of ${simulators.length}): its numbers there may be its own`
    : 'no simulator was saturated'
  const note = 'no data: no simulator reported its health'
  return [
    spec(`${prefix}-health-loop`, 'Simulators: event-loop delay p99', `each simulator's own event loop; ${saturated}`,
      chartConfig('line', { datasets: [...lines('loopDelayP99Ms'), ...bands] },
        { x: secondsAxis(), y: axis('event-loop delay p99 (ms)', { beginAtZero: true }), band: bandAxis() }), note),
    spec(`${prefix}-health-cpu`, 'Simulators: CPU', `each simulator's CPU, % of one core; ${saturated}`,
      chartConfig('line', { datasets: [...lines('cpuPct'), ...bands] },
        { x: secondsAxis(), y: axis('CPU % of one core', { beginAtZero: true }), band: bandAxis() }), note)
  ]
}
