import { test } from 'node:test'
import assert from 'node:assert/strict'
import { buildDistribution } from '../../../results/merge/aggregate.js'
import { createMemoryCollector } from '../../../results/collector/memory.js'
import { finalReportOf } from '../../../results/merge/measures.js'
import { mergeSimResults } from '../../../results/merge/sim-merge.js'
import { startTestServer, startTestSwarm } from '../../helpers/swarm.js'
import { waitFor } from '../../helpers/wait.js'

/**
 * Fields of a SimResult that are not measures merged at the end: who and how (a run has its
 * own), what travels one report or sample at a time (a run's messages, timeline and health
 * samples), and what only --workers has. Any other field must reach both merges.
 */
const NOT_MEASURES = new Set(['schemaVersion', 'kind', 'id', 'tool', 'host', 'pid', 'startedAt', 'endedAt', 'options', 'engine', 'agent', 'server', 'clock',
  'messages', 'messageRollups', 'timeline', 'health.samples', 'preflight', 'workers'])

/**
 * The paths of an object's leaves: numbers, strings, arrays, empty objects (a record of reasons with none).
 * @param {unknown} value
 * @param {string} path
 * @returns {string[]}
 */
function leaves (value, path) {
  if (NOT_MEASURES.has(path)) return []
  if (value === null || typeof value !== 'object' || Array.isArray(value) || Object.keys(value).length === 0) return [path]
  return Object.entries(value).flatMap(([key, v]) => leaves(v, path ? `${path}.${key}` : key))
}

/**
 * @param {unknown} value
 * @param {string} path
 */
function at (value, path) {
  return path.split('.').reduce((/** @type {any} */ v, key) => (v === undefined || v === null ? undefined : v[key]), value)
}

test('every field a real simulator measured reaches both merges: simulate --workers and a run\'s result.json', async (t) => {
  const server = await startTestServer(t, { pingIntervalMs: 300 })
  // A small real swarm that measures as much as it can: two transports, rooms joined by emit,
  // emits with acks, sessions that end and reopen (churn).
  let connections = 0
  server.io.on('connection', () => { connections++ })
  const swarm = startTestSwarm(t, {
    url: server.url,
    clients: 4,
    engine: 'lean',
    transport: 'websocket:1,polling:1',
    rooms: 2,
    join: 'join {"room":"{{room}}"}',
    emit: 'chat {"room":"{{room}}","text":"hi from {{i}}"}',
    emitRate: '5/s',
    emitters: '50%',
    emitAck: true,
    sessionLifetime: '1s..1.2s'
  })
  // Sessions end and reopen (churn): more connections than clients.
  await waitFor(() => connections >= 8, { timeoutMs: 30000, message: () => `8 connections (have ${connections})` })
  const result = await swarm.stop()
  assert.ok(result.churn && result.recorder && result.scenario?.emits && result.scenario?.joins, 'the swarm measured churn, joins and emits')
  assert.deepEqual(Object.keys(result.clients.byTransport).sort(), ['polling', 'websocket'])

  const workers = mergeSimResults([result, result], 'merged')
  const collector = createMemoryCollector()
  for (const id of ['sim-a', 'sim-b']) await collector.reportFinal('run', id, finalReportOf(result))
  const run = buildDistribution({
    name: '2x4',
    simulators: 2,
    clientsPerSimulator: 4,
    startedAt: result.startedAt,
    endedAt: result.endedAt,
    messages: [],
    rounds: [],
    samples: { timeline: [], health: [], server: [] },
    finals: await collector.getFinals('run'),
    simulatorList: []
  })
  const fields = leaves(result, '')
  for (const required of [
    'clients.everConnected', 'clients.attempts', 'clients.reconnects', 'clients.byTransport.polling.upgraded', 'clients.storms.list', 'clients.acceptTime.p50',
    'clients.connectTime.p99', 'health.summary.saturatedSeconds', 'health.summary.rssMaxBytes', 'scenario.emits.ackTime.p50', 'churn.sessionsClosed',
    'recorder.lateReceipts', 'destinations']) {
    assert.ok(fields.includes(required), `the real result has ${required}`)
  }
  for (const path of fields) {
    assert.notEqual(at(workers, path), undefined, `${path} in the --workers merge`)
    const inRun = path.startsWith('scenario.') ? path : `measured.${path.replace(/^health\.summary\./, 'health.')}`
    assert.notEqual(at(run, inRun), undefined, `${path} in the run's result (${inRun})`)
  }
  // One merge: both give the same figures, each the sum (or worst) over the two copies.
  assert.deepEqual(run.measured?.clients, workers.clients)
  assert.deepEqual(run.measured?.health, workers.health.summary)
  assert.deepEqual([run.measured?.churn, run.measured?.recorder, run.measured?.destinations], [workers.churn, workers.recorder, workers.destinations])
  assert.deepEqual(run.scenario, workers.scenario)
  assert.deepEqual(
    [workers.clients.attempts, workers.clients.reconnects, workers.churn?.sessionsClosed],
    [2 * result.clients.attempts, 2 * result.clients.reconnects, 2 * (result.churn?.sessionsClosed ?? NaN)])
  assert.equal(run.clients.target, 8)
})
