import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { createHistogram, encode, recordMs, summarize } from '../../../lib/measure/histogram.js'
import { buildDistribution } from '../../../results/merge/aggregate.js'
import { mergeSimResults } from '../../../results/merge/sim-merge.js'
import { formatNodes } from '../../../results/text/node-lines.js'
import { formatRunSummary } from '../../../results/text/summary.js'
import { evaluateThresholds, parseThreshold, thresholdHelp } from '../../../results/thresholds/thresholds.js'
import { formatSimSummary } from '../../../simulator/reporting/summary-text.js'
import { finalReport, simResult } from '../make-reports.js'

/**
 * @param {[string, number, number][]} rows name, connected, moved
 * @returns {import('../../../lib/schema/result-schema.js').NodeReport}
 */
function nodeReport (rows) {
  const h = createHistogram()
  recordMs(h, 3)
  const relative = { ...summarize(h), histogram: encode(h) }
  const nodes = rows.map(([name, connected, moved]) => ({
    name, connected, connects: connected + moved, drops: moved, moved, received: connected * 2, missing: 0, relative
  }))
  return { from: 'event:node', nodes, unknown: 0, moved: rows.reduce((n, r) => n + r[2], 0), imbalance: null }
}

/**
 * @param {string} id
 * @param {import('../../../lib/schema/result-schema.js').NodeReport} [nodes]
 * @returns {import('../../../lib/schema/result-schema.js').SimResult}
 */
function withNodes (id, nodes) {
  const byNode = nodes ? { byNode: Object.fromEntries(nodes.nodes.map((n) => [n.name, n.connected])) } : {}
  const timeline = [{ t: 1000, connected: 6, byTransport: { websocket: 6, polling: 0 }, connects: 0, disconnects: 0, errors: 0, messages: 0, ...byNode }]
  return simResult(id, { timeline, ...(nodes ? { nodes } : {}) })
}

test('--workers: the workers\' node reports merge into the simulator\'s, and their timelines by node', () => {
  const merged = mergeSimResults([withNodes('w1', nodeReport([['a', 4, 1], ['b', 2, 0]])), withNodes('w2', nodeReport([['b', 4, 2]]))], 'sim')
  assert.deepEqual(merged.nodes?.nodes.map((n) => [n.name, n.connected, n.moved, n.received]), [['b', 6, 2, 12], ['a', 4, 1, 8]])
  assert.equal(merged.nodes?.moved, 3)
  assert.equal(merged.nodes?.imbalance, 1.5)
  assert.deepEqual(merged.timeline[0].byNode, { a: 4, b: 6 })
  assert.equal('nodes' in mergeSimResults([withNodes('w1'), withNodes('w2')], 'sim'), false, 'no --node-from: no field')
})

test('a run: the simulators\' final node reports merge into the distribution', () => {
  const finals = [
    nodeReport([['a', 5, 0]]),
    nodeReport([['a', 1, 0], ['b', 4, 3]])
  ].map((nodes, k) => ({ ...finalReport({ target: 5, connected: 5, failed: 0, connectMs: [1] }), nodes, simulator: `s${k}` }))
  const input = {
    name: '2x5',
    simulators: 2,
    clientsPerSimulator: 5,
    startedAt: 1,
    endedAt: 2,
    messages: [],
    rounds: [],
    samples: { timeline: [], health: [], server: [] },
    finals,
    simulatorList: []
  }
  const d = buildDistribution(input)
  assert.deepEqual(d.nodes?.nodes.map((n) => [n.name, n.connected, n.connects]), [['b', 4, 7], ['a', 6, 6]], 'most connects first')
  assert.equal(d.nodes?.imbalance, 1.5)
  assert.equal(d.nodes?.moved, 3)
  assert.equal('nodes' in buildDistribution({ ...input, finals: finals.map(({ nodes, ...f }) => f) }), false)
})

test('nodes.imbalance: a ratio threshold, the worst distribution; no node report is no data', () => {
  const threshold = parseThreshold('nodes.imbalance < 1.5')
  assert.deepEqual(threshold, { expression: 'nodes.imbalance<1.5', metric: 'nodes.imbalance', op: '<', value: 1.5, unit: 'ratio' })
  assert.throws(() => parseThreshold('nodes.imbalance<150%'), /--assert "nodes.imbalance<150%" takes a plain number \(1\.5\) for nodes.imbalance/)
  assert.match(thresholdHelp(), /nodes\.imbalance/)
  const run = (/** @type {(number | null)[]} */ values) => /** @type {import('../../../lib/schema/result-schema.js').RunResult} */ (/** @type {unknown} */ ({
    distributions: values.map((imbalance, k) => ({ name: `d${k}`, ...(imbalance === undefined ? {} : { nodes: { ...nodeReport([]), imbalance } }) }))
  }))
  assert.deepEqual(evaluateThresholds(run([1.2, 1.8]), [threshold]), [{ expression: 'nodes.imbalance<1.5', ok: false, actual: 'nodes.imbalance 1.8 (d1)' }])
  assert.equal(evaluateThresholds(run([1.2, 1]), [threshold])[0].ok, true)
  const none = evaluateThresholds(run([null]), [threshold])[0]
  assert.equal(none.ok, false)
  assert.match(none.actual, /no data/)
})

test('terminal lines: one line with the imbalance and moves, a table of the nodes; nothing without --node-from', () => {
  const report = { ...nodeReport([['sio-1', 8, 0], ['sio-2', 4, 3]]), imbalance: 2, unknown: 1 }
  report.nodes.push({ ...report.nodes[0], name: 'other', folded: 12 })
  const lines = formatNodes(report)
  assert.equal(
    lines[0],
    'nodes (event:node): 3 seen, imbalance 2 (largest ÷ smallest node at the end), moved 3 (clients back on another node after a reconnect), 1 connected clients of no known node'
  )
  assert.match(lines[1], /^node\s+connected\s+connects\s+drops\s+moved\s+received\s+missing\s+rel p50\s+rel p99\s+abs p50\s+abs p99\n/)
  assert.match(lines[1], /\nsio-2\s+4\s+7\s+3\s+3\s+8\s+0\s+3\.00ms\s+3\.00ms/)
  assert.match(lines[1], /\nother \(12 names\)\s+8/)
  assert.match(formatNodes({ ...nodeReport([]), imbalance: null })[0], /NONE READ/)
  assert.deepEqual(formatNodes(undefined), [])
})

test('simulate\'s and run\'s summaries print the node lines', () => {
  const result = withNodes('sim', { ...nodeReport([['a', 6, 0]]), imbalance: 1 })
  const sim = formatSimSummary(
    /** @type {any} */ ({
      ...result,
      server: { rampMs: 0, rampSource: '--ramp', handshakeError: null, diagnosis: null },
      engine: 'lean',
      agent: { keepAlive: true },
      options: { url: 'http://x', transport: 'websocket' }
    })
  )
  assert.match(sim, /\nnodes \(event:node\): 1 seen, imbalance 1/)
  const run = JSON.parse(readFileSync(new URL('../../fixtures/run-small.json', import.meta.url), 'utf8'))
  run.distributions[0].nodes = { ...nodeReport([['a', 3, 1], ['b', 2, 0]]), imbalance: 1.5 }
  assert.match(formatRunSummary(run), /\nnodes \(event:node\): 2 seen, imbalance 1\.5/)
})
