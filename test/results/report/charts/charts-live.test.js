/**
 * The run's shape on the second-by-second charts (charts-live.js, charts-shape.js): phases and
 * capacity steps shaded (a step by its verdict), restarts as lines, storms read from the
 * seconds, thresholds as lines coloured by how they stand; on every chart that has readings,
 * on the page and in report.html alike (the report's section is built by the same module).
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { liveCharts, stormsOf } from '../../../../results/report/charts/charts-live.js'
import { liveEventsOf, liveSection } from '../../../../results/report/live.js'
import { phaseMarks } from '../../../../lib/input/phase-profile.js'
import { parseThresholdOf } from '../../../../results/index.js'

const T0 = 1_700_000_000_000
/** Ten clients, all dropped in the sixth second, half back in the seventh, all in the eighth. */
const CONNECTED = [0, 10, 10, 10, 10, 0, 5, 10, 10, 10]
const seconds = CONNECTED.map((connected, i) => ({
  type: /** @type {const} */ ('second'),
  t: T0 + (i + 1) * 1000,
  clients: { connected, byTransport: { websocket: connected }, bySimulator: { s1: connected }, connects: 0, errors: 0, disconnects: i === 5 ? 10 : 0 },
  delivery: { received: 10, missing: 0, relative: { p50: 2, p99: 3, max: 10, count: 10 } },
  traffic: { emits: { sent: 0, acked: 0, timedOut: 0, failed: 0 } },
  health: { worstLoopMs: 1, maxCpu: 5, saturated: 0 },
  totals: { missing: 0 }
}))
const shape = [
  ...phaseMarks([{ kind: 'ramp', durationMs: 3000, to: 10 }, { kind: 'hold', durationMs: 7000 }], T0),
  { type: 'mark', kind: 'step', at: T0, endAt: T0 + 4000, label: 'step 1: 10 clients: pass', ok: true },
  { type: 'mark', kind: 'step', at: T0 + 4000, endAt: T0 + 9000, label: 'step 2: 20 clients: fail', ok: false },
  { type: 'mark', kind: 'restart', at: T0 + 5500, label: 'server restart (SIGTERM, down 80 ms)' }
]
const thresholds = [parseThresholdOf('p99<5ms', '--assert'), parseThresholdOf('max<1ms', '--assert')]

/** @param {any} spec the labels of the shape drawn on a chart */
const shapeOf = (spec) => spec.config.data.datasets.flatMap((/** @type {any} */ d) => d.ioswarmShape ?? [])

test('storms are read from the seconds: from the drop until as many are connected as before', () => {
  assert.deepEqual(stormsOf(seconds), [{ kind: 'storm', at: T0 + 5000, endAt: T0 + 8000, label: 'storm: 10 dropped' }])
  const never = seconds.slice(0, 7)
  assert.deepEqual(stormsOf(never).map((s) => [s.endAt, s.label]), [[T0 + 7000, 'storm: 10 dropped, not all back']])
  assert.deepEqual(stormsOf(seconds.slice(0, 5)), [], 'no drop, no storm')
})

test('every chart with readings carries the phases, the steps by verdict, the restart and the storm', () => {
  const charts = liveCharts(seconds, {
    shape: /** @type {any} */ (shape),
    thresholds: [...thresholds, parseThresholdOf('ack.p99<100ms', '--assert')],
    startMs: T0
  })
  const drawn = charts.filter((c) => c.config)
  assert.ok(drawn.length >= 4, drawn.map((c) => c.name).join())
  const expected = [
    '1: ramp to 10', '2: hold', 'step 1: 10 clients: pass', 'step 2: 20 clients: fail',
    'server restart (SIGTERM, down 80 ms)', 'storm: 10 dropped'
  ]
  for (const c of drawn) assert.deepEqual(shapeOf(c).sort(), [...expected].sort(), c.name)
  const connected = /** @type {any} */ (drawn.find((c) => c.name === 'live-connected')).config.data.datasets
  const steps = connected.filter((/** @type {any} */ d) => /^steps /.test(d.label))
  assert.deepEqual(steps.map((/** @type {any} */ d) => d.label.split(':')[0]), ['steps passed', 'steps failed'], 'a step is shaded by its verdict')
  assert.notEqual(steps[0].backgroundColor, steps[1].backgroundColor)
  const restart = connected.find((/** @type {any} */ d) => d.label.startsWith('server restart'))
  assert.deepEqual(restart.data.map((/** @type {any} */ p) => p.x), [5.5, 5.5], 'the restart is a line at its second')
  // A chart without readings shows its note: neither the shape nor a threshold makes it a chart.
  assert.equal(charts.find((c) => c.name === 'live-ack')?.config, null)
})

test('thresholds are lines on their chart, coloured and labelled by how they stand', () => {
  const delay = /** @type {any} */ (liveCharts(seconds, { thresholds, startMs: T0 }).find((c) => c.name === 'live-delay'))
  const lines = delay.config.data.datasets.filter((/** @type {any} */ d) => d.ioswarmThreshold)
  assert.deepEqual(lines.map((/** @type {any} */ d) => [d.label, d.data.map((/** @type {any} */ p) => p.y)]), [
    ['p99<5ms (passing)', [5, 5]], ['max<1ms (failing)', [1, 1]]
  ])
  assert.notEqual(lines[0].borderColor, lines[1].borderColor)
  const connected = /** @type {any} */ (liveCharts(seconds, { thresholds, startMs: T0 }).find((c) => c.name === 'live-connected'))
  assert.equal(connected.config.data.datasets.some((/** @type {any} */ d) => d.ioswarmThreshold), false, 'a delay threshold is not drawn on the clients chart')
})

test('report.html\'s section draws the same shape from the events log', () => {
  const events = [{ type: 'hello', thresholds }, ...seconds, ...shape, { type: 'end' }]
  const section = liveSection(liveEventsOf(/** @type {any} */ (events)))
  const connected = section?.charts.find((c) => c.name === 'live-connected')
  assert.ok(connected?.config)
  assert.ok(shapeOf(connected).includes('server restart (SIGTERM, down 80 ms)'))
  assert.ok(shapeOf(connected).includes('step 2: 20 clients: fail'))
  assert.ok(section?.charts.find((c) => c.name === 'live-delay')?.config?.data.datasets.some((/** @type {any} */ d) => d.label === 'max<1ms (failing)'))
})
