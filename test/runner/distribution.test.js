import { test } from 'node:test'
import assert from 'node:assert/strict'
import { fork } from 'node:child_process'
import { once } from 'node:events'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { createMemoryCollector } from '../../results/collector/memory.js'
import { formatRunSummary } from '../../results/text/summary.js'
import { caveats } from '../../results/report/sections.js'
import { attachReaders, partitionOf, simulatorOptions } from '../../runner/distribution.js'
import { holdLines, holdNoticeLine, holdNotices } from '../../simulator/swarm/ramp-guard.js'
import { normalizeRunOptions } from '../../runner/run-options.js'
import { normalizeSimOptions } from '../../simulator/index.js'

/** @param {Record<string, unknown>} input */
function optionsFor (input) {
  const options = normalizeRunOptions({ simulators: 1, clients: 50, ...input })
  return simulatorOptions({ options, url: 'http://127.0.0.1:3000', rampMs: 500 }, options.distributions[0], 0)
}

test('local simulators get the simulate options given to run, normalised by the simulator\'s own normaliser', () => {
  const options = optionsFor({
    engine: 'lean',
    wsClient: 'builtin',
    maxOpenMessages: '7',
    keepMessages: '3',
    transport: 'websocket:1,polling:1',
    keepAlive: false
  })
  assert.deepEqual(options, {
    ...normalizeSimOptions({
      url: 'http://127.0.0.1:3000',
      clients: 50,
      ramp: '500ms',
      engine: 'lean',
      wsClient: 'builtin',
      maxOpenMessages: 7,
      keepMessages: 3,
      transport: 'websocket:1,polling:1',
      keepAlive: false,
      maxPayload: 1_000_000
    }),
    emitters: { count: 50 }, // --emitters 100 % of the run's local clients, this simulator's slice
    id: '1x50-sim1',
    // The local simulators share the host's source addresses (--source-address): a slice of the port range each.
    sourcePortSlice: { index: 0, count: 1 }
  })
  assert.equal(options.maxOpenMessages, 7)
  assert.equal(options.keepAlive, false)
  assert.equal(optionsFor({ engine: 'lean' }).wsClient, 'builtin')
  assert.equal(optionsFor({ engine: 'sio' }).wsClient, null)
})

test('each local simulator\'s clients keep their index in the whole run (--client-offset)', () => {
  const options = normalizeRunOptions({ simulators: 3, clientsPerSimulator: 40, auth: '{"n":{{i}}}' })
  const offsets = [0, 1, 2].map((i) => simulatorOptions({ options, url: 'http://127.0.0.1:3000', rampMs: 500 }, options.distributions[0], i).clientOffset)
  assert.deepEqual(offsets, [0, 40, 80])
  // A share of emitters is exact over the run (25 % of 3 × 5 clients: 4, not 1 + 1 + 1 rounded per simulator).
  const shared = normalizeRunOptions({ simulators: 3, clientsPerSimulator: 5, emitters: '25%' })
  const counts = [0, 1, 2].map((i) => simulatorOptions({ options: shared, url: 'http://127.0.0.1:3000', rampMs: 500 }, shared.distributions[0], i).emitters)
  assert.equal(counts.reduce((sum, e) => sum + ('count' in e ? e.count : NaN), 0), 4)
  assert.equal(simulatorOptions({ options, url: 'http://127.0.0.1:3000', rampMs: 500 }, options.distributions[0], 1).auth, '{"n":{{i}}}')
})

test('the local simulators are the parts of one swarm; --simulators 0 (all of them elsewhere) has none', () => {
  const options = normalizeRunOptions({ simulators: 3, clientsPerSimulator: 5, emitters: '25%' })
  const parts = partitionOf({ options, url: 'http://127.0.0.1:3000', rampMs: 500 }, options.distributions[0])
  assert.deepEqual(parts.map((p) => [p.clients, p.clientOffset]), [[5, 0], [5, 5], [5, 10]])
  const remote = normalizeRunOptions({ simulators: 0, expectSimulators: 2, clients: 5, redis: 'redis://127.0.0.1:6379' })
  assert.deepEqual(partitionOf({ options: remote, url: 'http://127.0.0.1:3000', rampMs: 500 }, remote.distributions[0]), [])
})

/**
 * Forks a stand-in simulator (test/fixtures) that writes to `collector` over IPC, read as a run reads its local simulators.
 * @param {import('node:test').TestContext} t
 * @param {import('../../results/collector/types.js').Collector} collector
 * @param {string} fixture
 * @param {string[]} args
 */
async function readChild (t, collector, fixture, args) {
  const child = fork(fileURLToPath(new URL(`../fixtures/${fixture}`, import.meta.url)), args, { stdio: ['ignore', 'ignore', 'pipe', 'ipc'] })
  t.after(() => { if (child.exitCode === null) child.kill() })
  /** @type {string[]} */
  const said = []
  const readers = attachReaders(collector, [{ id: 'sim-x', process: child }], (line) => said.push(line))
  t.after(readers.detach)
  const [code] = await once(child, 'exit')
  assert.equal(code, 0)
  await readers.idle()
  return { said, errors: readers.errors() }
}

test('a local simulator\'s collector writes that fail over IPC are said (which simulator, ' +
  'which write, why), counted in the result and warned of', async (t) => {
  const collector = createMemoryCollector()
  t.after(() => collector.close())
  // Three messages that are no collector write, then a write the collector rejects (a bad simulator id).
  const { said, errors } = await readChild(t, collector, 'ipc-collector-child.js', ['ipc-errors-run'])
  assert.equal(said.length, 1, `the first said at once, the others counted: ${said.join(' | ')}`)
  assert.match(said[0], /^WARNING: simulator sim-x: its collector write deleteRun over IPC failed: refused a collector message .*not a collector write method/)
  assert.equal(errors?.total, 4)
  assert.deepEqual(Object.keys(errors?.bySimulator ?? {}), ['sim-x'])
  assert.equal(errors?.bySimulator['sim-x'].count, 4)
  assert.equal(errors?.bySimulator['sim-x'].method, 'deleteRun')
  assert.equal((await collector.getFinals('ipc-errors-run')).length, 1, 'the writes after the failed ones still arrive')

  const run = JSON.parse(readFileSync(new URL('../fixtures/run-small.json', import.meta.url), 'utf8'))
  const [first, ...rest] = run.distributions
  const result = { ...run, distributions: [{ ...first, ipcErrors: errors }, ...rest] }
  const warnings = formatRunSummary(result).split('\n').filter((l) => l.startsWith('WARNING:'))
  assert.equal(warnings.length, 1)
  assert.match(warnings[0], /4 collector writes of the simulators over IPC failed and are missing from the result: sim-x 4 \(first: deleteRun: /)
  assert.equal(caveats(result).filter((n) => n.includes('4 collector writes')).length, 1)
})

test('reports refused past the collector\'s bound are not IPC failures: the collector counts them (reportsRefused)', async (t) => {
  const collector = createMemoryCollector({ maxMessageReports: 4 })
  t.after(() => collector.close())
  const { said, errors } = await readChild(t, collector, 'ipc-refused-child.js', ['refused-ipc-run', '10'])
  assert.deepEqual([said, errors], [[], null])
  assert.deepEqual((await collector.getRefused('refused-ipc-run')).bySimulator, { child: 6 })
})

test('run says a simulator\'s held ramp from its stderr as it comes, a line cut between two chunks included', () => {
  const notice = holdNotices()
  let said = null
  for (let s = 1; s <= 10; s++) said = notice({ elapsedMs: s * 1000, rampHeld: s === 2 ? 'loop delay 240 ms' : null }) ?? said
  const line = holdNoticeLine('1x50-sim2', /** @type {string} */ (said))
  /** @type {string[]} */
  const logged = []
  const feed = holdLines((text) => logged.push(text))
  feed('(node:123) Warning: something else\n' + line.slice(0, 20))
  assert.deepEqual(logged, [], 'nothing until the line is whole')
  feed(`${line.slice(20)}\nioswarm simulate 1x50-sim2: connect errors: none\n`)
  assert.deepEqual(logged, ['1x50-sim2 ramp held 1 s of the last 10 s (last: loop delay 240 ms)'])
})
