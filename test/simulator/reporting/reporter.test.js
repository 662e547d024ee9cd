import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { test } from 'node:test'
import { createHistogram, encode, recordMs, summarize } from '../../../lib/measure/histogram.js'
import { createCollector } from '../../../results/index.js'
import { createMemoryCollector } from '../../../results/collector/memory.js'
import { createSimReporter } from '../../../simulator/reporting/reporter.js'
import { startRestartableRedis } from '../../faults/redis-restart.js'
import { hasRedisServer } from '../../helpers/redis.js'
import { waitFor } from '../../helpers/wait.js'

/**
 * A well-formed message report.
 * @param {number} seq
 * @returns {import('../../../lib/schema/result-schema.js').MessageReport}
 */
function report (seq) {
  const h = createHistogram()
  recordMs(h, 1 + seq)
  return {
    key: `m|${seq}`,
    id: String(seq),
    event: 'm',
    round: 1,
    seq,
    sentAt: null,
    firstAt: Date.now(),
    received: 1,
    expected: 1,
    missing: 0,
    duplicates: 0,
    late: 0,
    relative: { ...summarize(h), histogram: encode(h) },
    absolute: null
  }
}

test('past its memory bound the reporter spools to disk while Redis is down, then replays everything once', async (t) => {
  if (!hasRedisServer(t)) return
  const redis = await startRestartableRedis(t)
  const collector = await createCollector({ redisUrl: redis.url })
  t.after(() => collector.close())
  const spoolDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ioswarm-reporter-test-'))
  t.after(() => fs.rmSync(spoolDir, { recursive: true, force: true }))
  const runId = 'spool-run'
  await collector.registerRun(runId, { name: runId, startedAt: Date.now(), options: {} })
  const reporter = createSimReporter({
    writer: collector,
    runId,
    info: { id: 'sim-a', hostname: 'h', pid: 1, clients: 1, transport: 'websocket', engine: 'lean', startedAt: Date.now() },
    maxQueuedWrites: 3,
    spoolDir
  })
  reporter.start()
  await waitFor(async () => (await collector.listSimulators(runId)).length === 1, { timeoutMs: 5000, message: 'registration' })

  await redis.stop()
  for (let seq = 0; seq < 20; seq++) reporter.message(report(seq))
  assert.ok(reporter.stats.spooled >= 16, `writes past the bound of 3 went to disk (spooled ${reporter.stats.spooled})`)
  assert.equal(fs.readdirSync(spoolDir).length, 1, 'one spool file while Redis is down')
  await waitFor(() => reporter.stats.retries > 0, { timeoutMs: 5000, message: 'a failed write while Redis is down' })

  await redis.start()
  const sent = await reporter.finish(
    {
      clients: /** @type {any} */ ({ target: 1, connected: 1, failed: 0 }),
      health: /** @type {any} */ ({}),
      clock: { offsetMs: 0, uncertaintyMs: 0, reference: 'local' },
      endedAt: Date.now()
    },
    15000
  )
  assert.equal(sent.undelivered, 0)
  const messages = await collector.getMessages(runId)
  assert.deepEqual(messages.map((m) => m.seq).sort((a, b) => Number(a) - Number(b)), Array.from({ length: 20 }, (_, i) => i))
  assert.ok(messages.every((m) => m.received === 1 && m.simulators === 1), 'each report counted exactly once')
  assert.equal((await collector.getFinals(runId)).length, 1, 'the final report arrived after the spooled ones')
  assert.deepEqual(fs.readdirSync(spoolDir), [], 'the drained spool file is deleted')
})

test('a report refused past the collector\'s bound (written directly, as with Redis) is counted there and does not hold up later writes', async (t) => {
  const collector = createMemoryCollector({ maxMessageReports: 1 })
  t.after(() => collector.close())
  const runId = 'refused-run'
  const reporter = createSimReporter({
    writer: collector,
    runId,
    info: { id: 'sim-a', hostname: 'h', pid: 1, clients: 1, transport: 'websocket', engine: 'lean', startedAt: Date.now() }
  })
  reporter.start()
  for (let seq = 0; seq < 3; seq++) reporter.message(report(seq))
  const sent = await reporter.finish(
    {
      clients: /** @type {any} */ ({ target: 1, connected: 1, failed: 0 }),
      health: /** @type {any} */ ({}),
      clock: { offsetMs: 0, uncertaintyMs: 0, reference: 'local' },
      endedAt: Date.now()
    },
    3000
  )
  assert.equal(sent.undelivered, 0, 'the refused reports were not retried forever ahead of the final report')
  assert.equal((await collector.getFinals(runId)).length, 1)
  assert.deepEqual(await collector.getRefused(runId), { limit: 1, bySimulator: { 'sim-a': 2 } })
  assert.deepEqual([sent.refused, sent.refusedLimit], [2, 1], 'the simulator counts them too (simulate says them in its summary)')
})

test('a simulator whose collector is gone exits after finish gives up: no retry keeps it alive', { timeout: 60000 }, async (t) => {
  // In a process of its own, so that "exits by itself" is what is tested: every write fails (an
  // IPC channel closed with its runner, a Redis that is down), and finish waits 300 ms.
  const reporterUrl = new URL('../../../simulator/reporting/reporter.js', import.meta.url).href
  const script = `
    import { createSimReporter } from ${JSON.stringify(reporterUrl)}
    const fail = async () => { throw new Error('collector gone') }
    const writer = new Proxy({}, { get: () => fail })
    const reporter = createSimReporter({ writer, runId: 'r', info: { id: 's' }, heartbeatMs: 100 })
    reporter.start()
    const sent = await reporter.finish({ id: 's' }, 300)
    process.stdout.write(JSON.stringify({ undelivered: sent.undelivered }))
  `
  const { spawn } = await import('node:child_process')
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] })
  const killer = setTimeout(() => child.kill('SIGKILL'), 20000)
  t.after(() => { clearTimeout(killer); if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL') })
  let out = ''
  child.stdout.on('data', (d) => { out += d })
  const [code, signal] = await new Promise((resolve) => child.on('exit', (c, s) => resolve([c, s])))
  assert.deepEqual([code, signal], [0, null], 'it exited by itself, not killed after 20 s')
  assert.ok(JSON.parse(out).undelivered >= 1, out)
})
