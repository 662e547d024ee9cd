import assert from 'node:assert/strict'
import { test } from 'node:test'
import { createCollector } from '../../../results/collector/index.js'
import { deliveryBreakdown } from '../../../results/merge/delivery-rows.js'
import { SAMPLE_LINES, createLineRollup, followLines } from '../../../results/follow/lines.js'
import { delays, messageReport, summaryOf } from '../make-reports.js'
import { waitFor } from '../../helpers/wait.js'

/**
 * A chat's lines as two simulators report them: each line to its room (or, every fifth, to
 * everyone), each simulator reporting its own receivers, some missing.
 * @param {number} count lines
 * @param {number} rooms
 */
function chatReports (count, rooms) {
  /** @type {import('../../../results/collector/types.js').MessageEntry[]} */
  const entries = []
  for (let seq = 1; seq <= count; seq++) {
    const room = seq % 5 === 0 ? null : `room-${seq % rooms}`
    for (const simulator of ['sim-a', 'sim-b']) {
      const seed = seq * 2 + (simulator === 'sim-a' ? 0 : 1)
      entries.push({
        simulator,
        report: messageReport({
          round: null,
          seq,
          event: 'chat',
          room,
          relativeMs: relativeOf(seed),
          absoluteMs: delays(seed + 7, 3 + (seed % 4)),
          missing: seq % 7 === 0 ? 1 : 0,
          firstAt: 1_700_000_000_000 + seq * 100
        })
      })
    }
  }
  return entries
}

/** @param {number} seed a simulator's report of a line: seq × 2, + 1 for the second simulator */
const relativeOf = (seed) => delays(seed, 3 + (seed % 4))

const CLOCKS = { 'sim-a': { offsetMs: 0, uncertaintyMs: 0.5, reference: 'local' }, 'sim-b': { offsetMs: 0, uncertaintyMs: 1.5, reference: 'local' } }

test('lines rolled up one report at a time give the breakdown the stored reports give, with the lines counted once over simulators', () => {
  const entries = chatReports(120, 30)
  const rollup = createLineRollup()
  for (const e of entries) rollup.add(e)
  const { deliveries, lines } = rollup.result(CLOCKS)
  assert.deepEqual(deliveries, deliveryBreakdown(entries, CLOCKS), 'the same rows, counts and merged percentiles')
  assert.equal(deliveries.total.messages, 120)
  assert.equal(
    deliveries.total.relative.p99,
    summaryOf(entries.flatMap((e, i) => relativeOf(Number(e.report.seq) * 2 + (i % 2)))).p99,
    'percentiles of every raw delay'
  )
  assert.equal(lines.lines, 120)
  assert.equal(lines.reports, 240)
  assert.equal(lines.roomsPastBound, 0)
  assert.deepEqual(lines.sample.map((m) => m.seq), Array.from({ length: SAMPLE_LINES }, (_, i) => i + 1), 'the first lines, whole')
  assert.ok(lines.sample.every((m) => m.simulators === 2), 'each merged over both simulators')
})

test('past its rows with delays of their own, the rollup folds new rooms and keeps every count', () => {
  const entries = chatReports(60, 12)
  const rollup = createLineRollup({ roomRows: 4, topRooms: 2 })
  for (const e of entries) rollup.add(e)
  const { deliveries, lines } = rollup.result(CLOCKS)
  const whole = deliveryBreakdown(entries, CLOCKS, { topRooms: 2 })
  assert.deepEqual(deliveries.total, whole.total, 'the totals are every report\'s')
  assert.equal(deliveries.rooms, 12)
  assert.equal(lines.roomsPastBound, 12 - 4, 'the first four rooms had rows; the other rooms (and the messages to everyone) came past them')
  assert.equal(deliveries.rows.filter((r) => r.room === null && r.foldedRooms === 0).length, 1, 'the messages to everyone in a row of their own still')
  const folded = deliveries.rows.filter((r) => r.foldedRooms > 0)
  assert.deepEqual(folded.map((r) => r.foldedRooms), [10], 'one folded row: every room but the top two')
  assert.equal(deliveries.rows.filter((r) => r.room !== null).length, 2)
  assert.equal(deliveries.rows.reduce((n, r) => n + r.received, 0), whole.total.received)
})

test('followLines: every report rolled up and freed in the collector as it is read, so a run without rounds holds none of its lines', async (t) => {
  const collector = await createCollector({})
  t.after(() => collector.close())
  const runId = 'lines'
  const follower = followLines(collector, runId)
  const entries = chatReports(300, 20)
  const heldNow = async () => (await collector.readSince(runId, null, 1000)).messages.length
  for (const [i, e] of entries.entries()) {
    await collector.reportMessage(runId, e.simulator, e.report)
    // Once the first 100 are in, the follower reads and frees them while the run goes on.
    if (i === 99) await waitFor(async () => (await heldNow()) < 100, { timeoutMs: 15000, message: 'the follower freed some of the first 100 reports' })
  }
  const held = await heldNow()
  assert.ok(held < entries.length, `${held} of ${entries.length} reports still held while the run goes on`)
  const { deliveries, lines } = await follower.finish()
  assert.deepEqual((await collector.readSince(runId, null, 1000)).messages, [], 'none held after the end')
  assert.deepEqual(await collector.getMessages(runId), [])
  assert.equal(lines.lines, 300)
  assert.equal(lines.reports, 600)
  assert.deepEqual(deliveries, deliveryBreakdown(entries, {}), 'every report in its row once (no clock reported: no uncertainty)')
})
