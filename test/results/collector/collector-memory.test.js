import assert from 'node:assert/strict'
import { test } from 'node:test'
import { createCollector } from '../../../results/collector/index.js'
import { runCollectorContract } from './collector.contract.js'
import { finalReport, sample } from '../make-reports.js'
import { followWindows } from '../../../results/follow/window-follow.js'
import { createWindowBook } from '../../../simulator/recording/window-recorder.js'

test('memory collector: the collector contract', async (t) => {
  await runCollectorContract(t, (limits) => createCollector({ ...limits }))
})

test('memory collector: a cursor counts from the first sample ever stored, so trimming the oldest skips nothing newer', async (t) => {
  const collector = await createCollector({ maxSamples: 10 })
  t.after(() => collector.close())
  const first = await Promise.all(Array.from({ length: 5 }, (_, i) => collector.reportSample('trim', 's', sample(i, { connected: i })))).then(() =>
    collector.readSince('trim', null)
  )
  assert.deepEqual(first.samples.map((s) => s.timeline.connected), [0, 1, 2, 3, 4])
  // 5 … 29: past the bound (10, trimmed in batches past 11), the oldest are dropped.
  for (let i = 5; i < 30; i++) await collector.reportSample('trim', 's', sample(i, { connected: i }))
  assert.ok((await collector.getSamples('trim')).timeline.length <= 11)
  const next = await collector.readSince('trim', first.cursor, 100)
  const kept = next.samples.map((s) => s.timeline.connected)
  assert.equal(kept.at(-1), 29)
  assert.deepEqual(kept, Array.from({ length: kept.length }, (_, i) => 30 - kept.length + i), 'the newest, in order, none twice')
  assert.deepEqual(await collector.readSince('trim', next.cursor), { messages: [], samples: [], serverSamples: [], cursor: next.cursor, more: false })
})

/**
 * A run's simulators over the real memory collector: each registers (with a heartbeat), stores
 * window reports (one acked emit each: a window book's own report, its index and times set) and
 * ends (a final report).
 * @param {import('node:test').TestContext} t
 * @param {string} runId
 */
async function windowRun (t, runId) {
  const collector = await createCollector({})
  t.after(() => collector.close())
  /** @type {import('../../../lib/schema/result-schema.js').WindowReport[]} */
  const made = []
  const book = createWindowBook({ windowMs: 1000, onWindow: (r) => made.push(r) })
  book.sent()
  book.flush(true)
  return {
    collector,
    /** @param {string} id */
    async register (id) {
      await collector.registerSimulator(runId, { id, hostname: 'h', pid: 1, clients: 1, transport: 'websocket', engine: 'lean', startedAt: Date.now() })
      await collector.heartbeat(runId, id, 60000)
    },
    /** @param {string} id @param {number} index */
    window: (id, index) => collector.reportWindow(runId, id, { ...made[0], index, startAt: index * 1000, endAt: (index + 1) * 1000 }),
    /** @param {string} id */
    end: (id) => collector.reportFinal(runId, id, finalReport({ target: 1, connected: 1, failed: 0, connectMs: [5] }))
  }
}

/** @typedef {Awaited<ReturnType<typeof windowRun>>} WindowRun */

/**
 * followWindows over `collector`, and a wait for the rows it merges as it follows.
 * @param {import('node:test').TestContext} t
 * @param {import('../../../results/collector/types.js').Collector} collector
 * @param {string} runId
 */
function followed (t, collector, runId) {
  let count = 0
  let wake = () => {}
  const follower = followWindows(collector, runId, { onWindow: () => { count++; wake() } })
  const finishing = { rows: /** @type {Promise<import('../../../lib/schema/result-schema.js').WindowResult[]> | null} */ (null) }
  const finish = () => (finishing.rows ??= follower.finish())
  t.after(finish)
  return {
    finish,
    /**
     * Resolves once `want` rows were merged while following (each woken by the follower), or fails after 10 s.
     * @param {number} want
     */
    merged: (want) => new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${count} of ${want} windows merged after 10 s`)), 10000)
      wake = () => { if (count >= want) { clearTimeout(timer); resolve(undefined) } }
      wake()
    })
  }
}

test('followWindows: the collector keeps no window report once merged, so a long run without rounds does not grow', async (t) => {
  const run = await windowRun(t, 'follow')
  const sims = ['sim-1', 'sim-2']
  for (const id of sims) await run.register(id)
  const follower = followed(t, run.collector, 'follow')
  const perBatch = 20
  for (let batch = 0; batch < 2; batch++) {
    for (let i = 0; i < perBatch; i++) for (const id of sims) await run.window(id, batch * perBatch + i)
    const want = (batch + 1) * perBatch
    // Merged at the follower's next read (every 500 ms).
    await follower.merged(want)
    assert.equal((await run.collector.readWindows('follow', null)).windows.length, 0, `after ${want} windows of 2 simulators, none kept`)
  }
  const rows = await follower.finish()
  assert.deepEqual(rows.map((r) => r.index), Array.from({ length: 2 * perBatch }, (_, i) => i))
  assert.ok(rows.every((r) => r.simulators === 2 && r.emits.sent === 2), 'each window merged over both simulators')
})

/**
 * A followWindows run with sim-1 and sim-2 registered: `before` stores what comes before the
 * follower starts, `during` what other simulators store while its first read that sees a window
 * is under way (as with a collector over the network, where time passes between the follower's calls).
 * @param {import('node:test').TestContext} t
 * @param {(run: WindowRun) => Promise<void>} before
 * @param {(run: WindowRun) => Promise<void>} during
 * @returns {Promise<[number, number, number][]>} each merged row's index, simulators and emits sent, once one was merged
 */
async function followDuringRead (t, before, during) {
  const run = await windowRun(t, 'race')
  await run.register('sim-1')
  await run.register('sim-2')
  await before(run)
  let raced = false
  const racing = {
    ...run.collector,
    /** @type {typeof run.collector.readWindows} */
    async readWindows (runId, cursor, limit) {
      const got = await run.collector.readWindows(runId, cursor, limit)
      if (!raced && got.windows.length > 0) {
        raced = true
        await during(run)
      }
      return got
    }
  }
  const follower = followed(t, racing, 'race')
  await follower.merged(1)
  const rows = await follower.finish()
  assert.ok(raced, 'the race was run')
  return rows.map((r) => [r.index, r.simulators, r.emits.sent])
}

test('followWindows: a simulator that ends during a read has its last window merged, not dropped as too late', async (t) => {
  const rows = await followDuringRead(t, (run) => run.window('sim-1', 0), async (run) => {
    await run.window('sim-2', 0)
    await run.end('sim-2')
  })
  assert.deepEqual(rows, [[0, 2, 2]], 'window 0 merged over both simulators')
})

test('followWindows: a simulator that joins during a read has its first window waited for, not dropped as too late', async (t) => {
  const rows = await followDuringRead(t, async (run) => {
    await run.window('sim-1', 0)
    await run.window('sim-2', 0)
  }, async (run) => {
    await run.register('sim-3')
    await run.window('sim-3', 0)
  })
  assert.deepEqual(rows, [[0, 3, 3]], 'window 0 merged over the three simulators')
})
