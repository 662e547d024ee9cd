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

test('followWindows: the collector keeps no window report once merged, so a long run without rounds does not grow', async (t) => {
  const collector = await createCollector({})
  t.after(() => collector.close())
  /** @type {import('../../../lib/schema/result-schema.js').WindowReport[]} */
  const made = []
  const book = createWindowBook({ windowMs: 1000, onWindow: (r) => made.push(r) })
  book.sent()
  book.flush(true)
  const report = (/** @type {number} */ index) => ({ ...made[0], index, startAt: index * 1000, endAt: (index + 1) * 1000 })
  const sims = ['sim-1', 'sim-2']
  for (const id of sims) {
    await collector.registerSimulator('follow', { id, hostname: 'h', pid: 1, clients: 1, transport: 'websocket', engine: 'lean', startedAt: Date.now() })
    await collector.heartbeat('follow', id, 60000)
  }
  /** @type {{ count: number, wake: () => void }} */
  const merged = { count: 0, wake: () => {} }
  const follower = followWindows(collector, 'follow', { onWindow: () => { merged.count++; merged.wake() } })
  const finished = { rows: /** @type {import('../../../lib/schema/result-schema.js').WindowResult[] | null} */ (null) }
  t.after(async () => { finished.rows ??= await follower.finish() })
  const perBatch = 20
  for (let batch = 0; batch < 2; batch++) {
    for (let i = 0; i < perBatch; i++) for (const id of sims) await collector.reportWindow('follow', id, report(batch * perBatch + i))
    const want = (batch + 1) * perBatch
    // Merged at the follower's next read (every 500 ms): woken by each merged window, bounded by a deadline.
    await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${merged.count} of ${want} windows merged after 10 s`)), 10000)
      merged.wake = () => { if (merged.count >= want) { clearTimeout(timer); resolve(undefined) } }
      merged.wake()
    })
    assert.equal((await collector.readWindows('follow', null)).windows.length, 0, `after ${want} windows of 2 simulators, none kept`)
  }
  finished.rows = await follower.finish()
  assert.deepEqual(finished.rows.map((r) => r.index), Array.from({ length: 2 * perBatch }, (_, i) => i))
  assert.ok(finished.rows.every((r) => r.simulators === 2 && r.emits.sent === 2), 'each window merged over both simulators')
})

/**
 * @typedef {object} Race what other simulators do while the follower reads
 * @property {(id: string) => Promise<void>} register a simulator registers and starts its heartbeat
 * @property {(id: string, index: number) => Promise<void>} window a simulator stores a window report
 * @property {(id: string) => Promise<void>} end a simulator stores its final report
 */

/**
 * A followWindows run over the real memory collector: sim-1 and sim-2 registered, `before` stores
 * what comes before the follower starts, `during` what other simulators store while its first
 * read that sees a window is under way (as with a collector over the network, where time passes
 * between the follower's calls).
 * @param {import('node:test').TestContext} t
 * @param {(race: Race) => Promise<void>} before
 * @param {(race: Race) => Promise<void>} during
 * @returns {Promise<[number, number, number][]>} each merged row's index, simulators and emits sent, once one was merged
 */
async function followDuringRead (t, before, during) {
  const collector = await createCollector({})
  t.after(() => collector.close())
  /** @type {import('../../../lib/schema/result-schema.js').WindowReport[]} */
  const made = []
  const book = createWindowBook({ windowMs: 1000, onWindow: (r) => made.push(r) })
  book.sent()
  book.flush(true)
  /** @type {Race} */
  const race = {
    async register (id) {
      await collector.registerSimulator('race', { id, hostname: 'h', pid: 1, clients: 1, transport: 'websocket', engine: 'lean', startedAt: Date.now() })
      await collector.heartbeat('race', id, 60000)
    },
    window: (id, index) => collector.reportWindow('race', id, { ...made[0], index, startAt: index * 1000, endAt: (index + 1) * 1000 }),
    end: (id) => collector.reportFinal('race', id, finalReport({ target: 1, connected: 1, failed: 0, connectMs: [5] }))
  }
  await race.register('sim-1')
  await race.register('sim-2')
  await before(race)
  let raced = false
  const racing = {
    ...collector,
    /** @type {typeof collector.readWindows} */
    async readWindows (runId, cursor, limit) {
      const got = await collector.readWindows(runId, cursor, limit)
      if (!raced && got.windows.length > 0) {
        raced = true
        await during(race)
      }
      return got
    }
  }
  /** @type {import('../../../lib/schema/result-schema.js').WindowResult[]} */
  const live = []
  const follower = followWindows(racing, 'race', { onWindow: (row) => live.push(row) })
  // A few reads of the follower (every 500 ms), bounded.
  for (const deadline = Date.now() + 10000; live.length === 0 && Date.now() < deadline;) await new Promise((resolve) => setTimeout(resolve, 50))
  const rows = await follower.finish()
  assert.ok(raced, 'the race was run')
  assert.ok(live.length > 0, `a window merged while following: ${JSON.stringify(rows)}`)
  return rows.map((r) => [r.index, r.simulators, r.emits.sent])
}

test('followWindows: a simulator that ends during a read has its last window merged, not dropped as too late', async (t) => {
  const rows = await followDuringRead(t, (race) => race.window('sim-1', 0), async (race) => {
    await race.window('sim-2', 0)
    await race.end('sim-2')
  })
  assert.deepEqual(rows, [[0, 2, 2]], 'window 0 merged over both simulators')
})

test('followWindows: a simulator that joins during a read has its first window waited for, not dropped as too late', async (t) => {
  const rows = await followDuringRead(t, async (race) => {
    await race.window('sim-1', 0)
    await race.window('sim-2', 0)
  }, async (race) => {
    await race.register('sim-3')
    await race.window('sim-3', 0)
  })
  assert.deepEqual(rows, [[0, 3, 3]], 'window 0 merged over the three simulators')
})
