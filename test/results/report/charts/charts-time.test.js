import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { connectedPerSecond, connectionCharts, healthCharts, serverCharts, workerCpuLines } from '../../../../results/report/charts/charts-time.js'
import { nodeChart } from '../../../../results/report/charts/charts-nodes.js'

/** @returns {import('../../../../lib/schema/result-schema.js').RunResult} */
const small = () => JSON.parse(readFileSync(new URL('../../../fixtures/run-small.json', import.meta.url), 'utf8'))

/** @param {string} simulator @param {number} t @param {number} websocket */
const point = (simulator, t, websocket) => ({
  t, connected: websocket, byTransport: { websocket, polling: 0 }, connects: 0, disconnects: 0, errors: 0, messages: 0, simulator
})

test('connectedPerSecond sums simulators, bridges sampling jitter, drops a simulator gone for good', () => {
  const d = { ...small().distributions[0], startedAt: 0 }
  // a: samples at 0.9 s, then 2.1 s (nothing in second 1: jitter); b: stops after second 1.
  d.timeline = [
    point('a', 900, 10), point('a', 2100, 20), point('a', 3000, 20), point('a', 4000, 20), point('a', 5000, 20),
    point('b', 0, 5), point('b', 1000, 5)
  ]
  assert.deepEqual(connectedPerSecond(d).map((p) => p.websocket), [15, 15, 25, 25, 20, 20])
  d.timeline = [point('a', -1500, 3), point('a', 0, 4)]
  assert.deepEqual(connectedPerSecond(d), [
    { second: -2, websocket: 3, polling: 0 }, { second: -1, websocket: 3, polling: 0 }, { second: 0, websocket: 4, polling: 0 }
  ])
  d.timeline = []
  assert.deepEqual(connectedPerSecond(d), [])
})

test('the stale simulator of the fixture drops out of the totals, and every simulator has its line', () => {
  const d = small().distributions[1]
  const totals = connectedPerSecond(d)
  assert.equal(totals[10].websocket + totals[10].polling, 998)
  assert.equal(totals[23].websocket + totals[23].polling, 998 - 250)
  const [, perSimulator] = connectionCharts(d, 'd2')
  assert.deepEqual(perSimulator.config?.data.datasets.map((/** @type {{ label: string }} */ s) => s.label), d.simulatorList.map((s) => s.id))
})

test('server charts say why they are empty without server samples', () => {
  const d = { ...small().distributions[0], server: [] }
  for (const chart of serverCharts(d, 'd1')) {
    assert.equal(chart.config, null)
    assert.equal(chart.note, 'no server samples (target was not the reference server and no probe was attached)')
  }
})

test('health charts shade exactly the saturated seconds of the saturated simulator', () => {
  const d = small().distributions[0]
  const [loop] = healthCharts(d, 'd1')
  const bands = loop.config?.data.datasets.filter((/** @type {{ ioswarmBand?: boolean }} */ s) => s.ioswarmBand)
  assert.equal(bands.length, 1)
  assert.equal(bands[0].label, '2x500-sim-1 saturated')
  assert.deepEqual(bands[0].data.filter((/** @type {{ y: number }} */ p) => p.y === 1).map((/** @type {{ x: number }} */ p) => p.x), [10, 11, 12])
  assert.match(loop.caption, /saturated \(1 of 2\)/)
})

test('a clustered server gets a CPU line per worker beside the total', () => {
  const sample = (/** @type {number} */ t, /** @type {number[]} */ cpus) => ({
    t,
    loopDelayP50Ms: 0,
    loopDelayP99Ms: 1,
    loopDelayMaxMs: 1,
    elu: 0.1,
    cpuPct: cpus.reduce((a, b) => a + b, 0),
    rssBytes: 1,
    heapUsedBytes: 1,
    connected: 2,
    byTransport: { websocket: 2, polling: 0 },
    workers: cpus.map((cpuPct, i) => ({
      worker: i + 1, t, loopDelayP50Ms: 0, loopDelayP99Ms: 1, loopDelayMaxMs: 1, elu: 0.1, cpuPct, rssBytes: 1, heapUsedBytes: 1
    }))
  })
  const lines = workerCpuLines([sample(1000, [10, 20]), sample(2000, [30, 5])], (s) => s.t / 1000)
  assert.deepEqual(lines.map((l) => l.label), ['worker 1 CPU %', 'worker 2 CPU %'])
  assert.deepEqual(lines[1].data, [{ x: 1, y: 20 }, { x: 2, y: 5 }])
  assert.deepEqual(workerCpuLines([{ ...sample(1000, []), workers: undefined }], (s) => s.t), [], 'no lines for a single process')
})

test('clients per node (--node-from): stacked per second as the transports are, a band per node, a note without nodes', () => {
  const d = small().distributions[0]
  const chart = nodeChart(d, 'd1')
  const datasets = /** @type {{ label: string, data: { x: number, y: number }[] }[]} */ (/** @type {any} */ (chart.config)?.data.datasets)
  assert.deepEqual(datasets.map((s) => s.label), ['node-1', 'node-2', 'node-3'])
  const totals = connectedPerSecond(d)
  assert.deepEqual(
    totals.map((p, k) => datasets.reduce((n, s) => n + s.data[k].y, 0)),
    totals.map((p) => p.websocket + p.polling),
    'every connected client on one node, each second'
  )
  const none = nodeChart({ ...d, timeline: d.timeline.map(({ byNode: _, ...p }) => p) }, 'd1')
  assert.equal(none.config, null)
  assert.match(String(none.note), /no --node-from/)
})
