import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createClosedBook, MAX_ROLLUPS } from '../../../simulator/recording/recorder-closed.js'
import { createHistogram, encode, recordMs, summarize } from '../../../lib/measure/histogram.js'

/**
 * @param {string} key
 * @param {{ event?: string, round?: number | null, firstAt?: number, delaysMs?: number[], echo?: number }} [over]
 * @returns {import('../../../lib/schema/result-schema.js').MessageReport}
 */
function report (key, { event = 'broadcast', round = 1, firstAt = 1000, delaysMs = [1, 2], echo = 0 } = {}) {
  const h = createHistogram()
  for (const ms of delaysMs) recordMs(h, ms)
  const counts = { received: delaysMs.length, expected: delaysMs.length + 1, missing: 1, duplicates: 1, misdelivered: 0, echo, late: 0 }
  return { key, id: key, event, round, seq: null, sentAt: null, firstAt, ...counts, relative: { ...summarize(h), histogram: encode(h) }, absolute: null }
}

test('the newest reports are kept whole, older ones folded per (event, round) with counts and histograms conserved', () => {
  const book = createClosedBook({ keepClosed: 2 })
  for (let k = 0; k < 5; k++) book.keep(report(`m${k}`, { round: k % 2, firstAt: 1000 + k, echo: 1 }))
  assert.deepEqual(book.reports().map((r) => r.key), ['m3', 'm4'])
  assert.equal(book.size(), 2)
  assert.equal(book.rolledUp(), 3)
  assert.equal(book.closed('m4')?.key, 'm4')
  assert.equal(book.closed('m0'), undefined)
  assert.equal(book.forgotten('m0'), true, 'a rolled-up key is remembered: a late copy is late, not new')
  const rollups = book.rollups()
  assert.deepEqual(rollups.map((g) => [g.event, g.round, g.messages, g.received, g.expected, g.missing, g.duplicates, g.echo, g.firstAt, g.lastAt]),
    [['broadcast', 0, 2, 4, 6, 2, 2, 2, 1000, 1002], ['broadcast', 1, 1, 2, 3, 1, 1, 1, 1001, 1001]])
  assert.equal(rollups[0].relative.count, 4, 'histograms merged')
})

test('past MAX_ROLLUPS groups, messages share one \'*\' rollup; forgotten keys are bounded, oldest first', () => {
  const book = createClosedBook({ keepClosed: 0, rememberedKeys: 3 })
  for (let k = 0; k < MAX_ROLLUPS + 5; k++) book.keep(report(`m${k}`, { event: `e${k}` }))
  const rollups = book.rollups()
  assert.equal(rollups.length, MAX_ROLLUPS)
  assert.deepEqual(rollups.filter((g) => g.event === '*').map((g) => [g.round, g.messages]), [[null, 6]])
  book.forget('flood', false)
  assert.equal(book.forgotten('flood'), false, 'an untracked key')
  assert.equal(book.forgotten(`m${MAX_ROLLUPS + 4}`), true)
  assert.equal(book.forgotten(`m${MAX_ROLLUPS + 1}`), undefined, 'the oldest keys are forgotten past the bound')
})
