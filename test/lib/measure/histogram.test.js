import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import { createHistogram, recordMs, summarize, encode, decode, mergeEncoded, percentileCurve } from '../../../lib/measure/histogram.js'

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

test('summarize gives, in one walk, the numbers of the library\'s own percentile and mean walks, on every kind of histogram', () => {
  // A small seeded generator: the same histograms on every run.
  let seed = 42
  const random = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648
    return seed / 2147483648
  }
  /** @type {Record<string, () => number>} microsecond values */
  const shapes = {
    'sub-millisecond': () => Math.floor(random() * 1000),
    milliseconds: () => Math.floor(random() * 50_000),
    'seconds, long tail': () => Math.floor(-Math.log(1 - random()) * 2_000_000),
    'past the hour (the histogram grows)': () => Math.floor(random() * 7_200_000_000),
    'one value repeated': () => 12_345,
    zeros: () => 0
  }
  const ms = (/** @type {number} */ us) => Math.round(us / 1000 * 1000) / 1000
  let compared = 0
  for (const [shape, next] of Object.entries(shapes)) {
    for (const size of [1, 2, 3, 10, 99, 100, 101, 1000, 5000]) {
      const h = createHistogram()
      for (let k = 0; k < size; k++) h.recordValue(next())
      // Also the same values after an encode/decode round trip and merged with another.
      for (const histogram of [h, mergeEncoded([encode(h), encode(h)])]) {
        const library = {
          count: histogram.totalCount,
          mean: ms(histogram.mean),
          min: ms(histogram.getValueAtPercentile(0)),
          max: ms(histogram.maxValue),
          p50: ms(histogram.getValueAtPercentile(50)),
          p90: ms(histogram.getValueAtPercentile(90)),
          p99: ms(histogram.getValueAtPercentile(99))
        }
        assert.deepEqual(summarize(histogram), library, `${shape}, ${size} values`)
        compared++
      }
    }
  }
  assert.equal(compared, 6 * 9 * 2)
})

test('a recorded value lands where the library puts it: the same index for every value, the same histogram', () => {
  const require = createRequire(import.meta.url)
  const { constructorFromBucketSize } = require('hdr-histogram-js/dist/JsHistogramFactory.js')
  const Library = constructorFromBucketSize(32)
  const library = new Library(1, 60_000_000, 3)
  library.autoResize = true
  const ours = /** @type {any} */ (createHistogram())
  const values = [0, 1, 2047, 2048, 2049, 4095, 4096, 59_999_999, 60_000_000, 2 ** 31 - 1, 2 ** 31, 3.6e9, 0.5, 1e12]
  for (let k = 1; k < 31; k++) values.push(2 ** k - 1, 2 ** k, 2 ** k + 1)
  for (let v = 0; v < 70000; v++) values.push(v)
  for (let k = 0; k < 20000; k++) values.push(Math.floor(Math.random() * 2 ** 31))
  for (const v of values) assert.equal(ours.countsArrayIndex(v), library.countsArrayIndex(v), `index of ${v}`)
  for (const v of values) {
    if (v !== Math.floor(v)) continue
    ours.recordValue(v)
    library.recordValue(v)
  }
  assert.equal(encode(ours), encode(library), 'the same histogram, resized past its first range alike')
  assert.throws(() => ours.recordValue(-1), /negative/)
  // The library records through countsArrayIndex, which ours overrides: a library that renamed it
  // would leave ours unused (the same figures, the slow index) without this.
  assert.notEqual(Object.getPrototypeOf(ours).countsArrayIndex, Library.prototype.countsArrayIndex)
  let calls = 0
  const fast = ours.countsArrayIndex
  ours.countsArrayIndex = function (/** @type {number} */ value) {
    calls++
    return fast.call(this, value)
  }
  recordMs(ours, 1.5)
  assert.equal(calls, 1, 'recordValue found the index through countsArrayIndex')
})
