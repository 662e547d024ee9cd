import { test } from 'node:test'
import assert from 'node:assert/strict'
import { fork } from 'node:child_process'
import { once } from 'node:events'
import { fileURLToPath } from 'node:url'
import { CODES } from '../../../lib/errors.js'
import { createCollector } from '../../../results/collector/index.js'
import { attachIpcReader, createIpcWriter } from '../../../results/collector/ipc.js'
import { readFileSync } from 'node:fs'
import { createMemoryCollector } from '../../../results/collector/memory.js'
import { readRefused } from '../../../results/merge/refused.js'
import { formatRunSummary } from '../../../results/text/summary.js'
import { caveats } from '../../../results/report/sections.js'

const CHILD = fileURLToPath(new URL('../../fixtures/ipc-collector-child.js', import.meta.url))
const REFUSED_CHILD = fileURLToPath(new URL('../../fixtures/ipc-refused-child.js', import.meta.url))

test('a forked child writes to the parent\'s memory collector over IPC; non-write methods are refused', async (t) => {
  const collector = await createCollector()
  t.after(() => collector.close())
  const child = fork(CHILD, ['ipc-run'], { stdio: ['ignore', 'ignore', 'pipe', 'ipc'] })
  t.after(() => { if (child.exitCode === null) child.kill() })
  /** @type {Error[]} */
  const errors = []
  const reader = attachIpcReader(child, collector, { onError: (err) => errors.push(err) })
  t.after(reader.detach)
  const [code] = await once(child, 'exit')
  assert.equal(code, 0)
  await reader.idle()

  assert.deepEqual((await collector.listRuns()).map((r) => [r.id, r.name]), [['ipc-run', 'ipc']])
  const [message] = await collector.getMessages('ipc-run')
  assert.deepEqual([message.received, message.expected, message.missing, message.simulators], [4, 5, 1, 1])
  const [sim] = await collector.listSimulators('ipc-run')
  assert.deepEqual([sim.id, sim.alive, sim.stale, sim.clients], ['child', true, false, { target: 5, connected: 4, failed: 1 }])
  const samples = await collector.getSamples('ipc-run')
  assert.deepEqual([samples.timeline.length, samples.server.length], [1, 1])
  // Three refused messages, then a write the collector itself rejected (a bad simulator id).
  assert.deepEqual(errors.map((e) => /** @type {any} */ (e).code), [CODES.COLLECTOR, CODES.COLLECTOR, CODES.COLLECTOR, CODES.INVALID_OPTION])
  assert.match(errors[0].message, /"deleteRun" is not a collector write method/)
})

test('the writer rejects when the process has no IPC channel', async () => {
  await assert.rejects(createIpcWriter({}).heartbeat('r', 's', 1000), { code: CODES.COLLECTOR, message: /no IPC channel/ })
})

test('reports the collector refuses over IPC are counted, reach the result, and the summary and the report warn', async (t) => {
  const collector = createMemoryCollector({ maxMessageReports: 4 })
  t.after(() => collector.close())
  const child = fork(REFUSED_CHILD, ['refused-run', '10'], { stdio: ['ignore', 'ignore', 'pipe', 'ipc'] })
  t.after(() => { if (child.exitCode === null) child.kill() })
  const reader = attachIpcReader(child, collector)
  t.after(reader.detach)
  const [code] = await once(child, 'exit')
  assert.equal(code, 0)
  await reader.idle()

  assert.equal((await collector.getMessages('refused-run')).length, 4)
  assert.equal((await collector.getFinals('refused-run')).length, 1, 'writes after the refused ones still arrive')
  const refused = await readRefused(collector, 'refused-run')
  assert.deepEqual(refused && [refused.total, refused.limit, refused.bySimulator], [6, 4, { child: 6 }])
  assert.equal(await readRefused(collector, 'other-run'), null)

  const run = JSON.parse(readFileSync(new URL('../../fixtures/run-small.json', import.meta.url), 'utf8'))
  const [first, ...rest] = run.distributions
  const result = { ...run, distributions: [{ ...first, reportsRefused: refused }, ...rest] }
  const warning = formatRunSummary(result).split('\n').filter((l) => l.startsWith('WARNING:'))
  assert.equal(warning.length, 1)
  assert.match(warning[0], /6 message reports refused past the collector's bound of 4 per run \(child 6\); they are missing from messages\.csv.*per-room/)
  assert.match(warning[0], /windows are complete.*LIMITS\.messageReports.*rounds, a shorter run/)
  assert.equal(caveats(result).filter((n) => n.includes('6 message reports refused')).length, 1)
  assert.equal(formatRunSummary(run).includes('WARNING:'), false)
})
