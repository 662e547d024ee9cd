import assert from 'node:assert/strict'
import { test } from 'node:test'
import { createCollector } from '../../results/collector/index.js'
import { runCollectorContract } from './collector.contract.js'
import { sample } from './make-reports.js'

test('memory collector: the collector contract', async (t) => {
  await runCollectorContract(t, (limits) => createCollector({ ...limits }))
})

test('memory collector: a cursor counts from the first sample ever stored, so trimming the oldest skips nothing newer', async (t) => {
  const collector = await createCollector({ maxSamples: 10 })
  t.after(() => collector.close())
  const first = await Promise.all(Array.from({ length: 5 }, (_, i) => collector.reportSample('trim', 's', sample(i, { connected: i })))).then(() => collector.readSince('trim', null))
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
