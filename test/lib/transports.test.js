import { test } from 'node:test'
import assert from 'node:assert/strict'
import { CLIENT_MODES, MODE_NAMES, WIRE_NAMES, WIRE_NONE, modeShape, perTransport, totalOf, wireName, wireNumber, wireOf } from '../../lib/transports.js'
import { samplesCsv } from '../../results/files/csv.js'
import { connectionCharts } from '../../results/report/charts/charts-time.js'
import { transports as leanTransports } from '../../simulator/engines/lean/transports.js'
import { WIRE } from '../../simulator/engines/lean/client.js'
import { parseTransportMix } from '../../lib/values/parsers.js'

test('wire transports and client modes: every mode uses known wire transports; the lean engine has a module for each', () => {
  assert.deepEqual(WIRE_NAMES, ['websocket', 'polling'])
  assert.deepEqual(MODE_NAMES, ['websocket', 'polling', 'upgrade'])
  for (const mode of MODE_NAMES) for (const wire of CLIENT_MODES[mode]) assert.ok(WIRE_NAMES.includes(wire), `${mode}: ${wire}`)
  assert.deepEqual(Object.keys(leanTransports).sort(), [...WIRE_NAMES].sort())
  assert.deepEqual(modeShape('upgrade'), { startsPolling: true, upgrades: true })
  assert.deepEqual(modeShape('websocket'), { startsPolling: false, upgrades: false })
  assert.deepEqual(parseTransportMix('upgrade:1,websocket:3').map((m) => m.transport), ['upgrade', 'websocket'])
})

test('per-transport records, totals and names from a library\'s transport name', () => {
  assert.deepEqual(perTransport(() => 0), { websocket: 0, polling: 0 })
  assert.equal(totalOf({ websocket: 3, polling: 4 }), 7)
  assert.equal(totalOf({ websocket: null, polling: null }), 0)
  assert.equal(wireOf('polling'), 'polling')
  assert.equal(wireOf('websocket'), 'websocket')
  assert.equal(wireOf('webtransport'), 'websocket', 'another persistent transport counts as a persistent connection')
})

test('CSV columns and chart series follow the list of wire transports', () => {
  const header = samplesCsv([]).split('\n')[0].split(',')
  for (const name of WIRE_NAMES) assert.ok(header.includes(name), `samples.csv has a ${name} column`)
  const d = /** @type {any} */ ({
    name: 'd',
    startedAt: 0,
    simulators: 1,
    clients: { connected: 3, target: 3 },
    timeline: [{ t: 1000, simulator: 's', connected: 3, byTransport: { websocket: 1, polling: 2 } }],
    server: [],
    health: []
  })
  const [stacked] = connectionCharts(d, 'x')
  const datasets = /** @type {any} */ (stacked).config.data.datasets
  assert.deepEqual(datasets.map((/** @type {any} */ s) => s.label), WIRE_NAMES)
})

test('one numbering of wire transports: the tracker\'s (lib) and the lean engine\'s clients agree, and names round-trip', () => {
  assert.equal(WIRE_NONE, 0)
  for (const name of WIRE_NAMES) {
    assert.ok(wireNumber(name) > WIRE_NONE, name)
    assert.equal(wireName(wireNumber(name)), name)
    assert.equal(leanTransports[name].wire, wireNumber(name), `lean ${name}`)
  }
  assert.deepEqual([WIRE.NONE, WIRE.WEBSOCKET, WIRE.POLLING], [WIRE_NONE, wireNumber('websocket'), wireNumber('polling')])
  assert.equal(wireNumber('webtransport'), wireNumber('websocket'), 'an unknown persistent transport counts as the first persistent one')
})
