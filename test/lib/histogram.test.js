import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createHistogram, recordMs, summarize, encode, decode, mergeEncoded, percentileCurve } from '../../lib/histogram.js'

test('summaries are in milliseconds from microsecond recordings', () => {
  const h = createHistogram()
  for (let i = 1; i <= 1000; i++) recordMs(h, i / 10)
  const s = summarize(h)
  assert.equal(s.count, 1000)
  assert.ok(Math.abs(s.p50 - 50) < 0.1, `p50 ${s.p50}`)
  assert.ok(Math.abs(s.p99 - 99) < 0.1, `p99 ${s.p99}`)
  assert.equal(s.min, 0.1)
  assert.ok(Math.abs(s.max - 100) < 0.1)
})

test('an empty histogram summarises to zeros', () => {
  assert.deepEqual(summarize(createHistogram()), { count: 0, mean: 0, min: 0, max: 0, p50: 0, p90: 0, p99: 0 })
  assert.deepEqual(percentileCurve(createHistogram()), [])
})

test('merged encoded histograms equal one histogram of all values', () => {
  const a = createHistogram()
  const b = createHistogram()
  const all = createHistogram()
  for (let i = 0; i < 5000; i++) {
    const v = (i * 7919) % 3000 / 7
    recordMs(i % 2 ? a : b, v)
    recordMs(all, v)
  }
  const merged = summarize(mergeEncoded([encode(a), encode(b), null]))
  const direct = summarize(all)
  // Percentiles and counts are exact; max is the bucket's highest equivalent value after
  // decoding, within the histogram's precision (3 significant digits = 0.1 %).
  assert.deepEqual({ ...merged, max: 0 }, { ...direct, max: 0 })
  assert.ok(Math.abs(merged.max - direct.max) <= direct.max * 0.001, `max ${merged.max} vs ${direct.max}`)
  assert.equal(summarize(decode(encode(a))).p99, summarize(a).p99)
})
