import assert from 'node:assert/strict'
import test from 'node:test'
import { createHistogram, decode, encode, recordMs } from '../../../lib/measure/histogram.js'
import { bucketCounts, DELAY_BUCKETS_SECONDS } from '../../../lib/measure/hdr-buckets.js'

test('an encoded HDR histogram lands in the 1 ms – 30 s buckets, +Inf last', () => {
  const h = createHistogram()
  for (const ms of [0, 0.5, 1, 3, 3, 150, 45000]) recordMs(h, ms)
  const { counts, count, sumSeconds } = bucketCounts(encode(h))
  assert.equal(counts.length, DELAY_BUCKETS_SECONDS.length + 1)
  assert.equal(count, 7)
  assert.equal(counts.reduce((a, b) => a + b, 0), 7)
  assert.equal(counts[0], 3, '0, 0.5 and 1 ms are ≤ 1 ms')
  assert.equal(counts[DELAY_BUCKETS_SECONDS.indexOf(0.005)], 2)
  assert.equal(counts[DELAY_BUCKETS_SECONDS.indexOf(0.2)], 1)
  assert.equal(counts.at(-1), 1, '45 s is past 30 s')
  assert.ok(Math.abs(sumSeconds - 45.1575) < 0.05, String(sumSeconds))
})

test('no histogram: no counts', () => {
  assert.deepEqual(bucketCounts('').counts.every((n) => n === 0), true)
})

test('the counts walk gives what the library\'s recorded-values iterator gives', () => {
  let x = 12345
  const random = () => ((x = (x * 1103515245 + 12345) >>> 0) / 2 ** 32)
  for (const [clients, scaleMs] of [[1, 1], [500, 400], [2000, 50], [300, 50000], [50, 4_000_000]]) {
    const h = createHistogram()
    for (let c = 0; c < clients; c++) recordMs(h, random() ** 3 * scaleMs)
    recordMs(h, 0)
    const decoded = /** @type {any} */ (decode(encode(h)))
    const expected = new Array(DELAY_BUCKETS_SECONDS.length + 1).fill(0)
    let sumUs = 0
    const values = decoded.recordedValuesIterator
    values.reset()
    while (values.hasNext()) {
      const step = values.next()
      const b = DELAY_BUCKETS_SECONDS.findIndex((s) => step.valueIteratedTo <= s * 1e6)
      expected[b === -1 ? DELAY_BUCKETS_SECONDS.length : b] += step.countAtValueIteratedTo
      sumUs += step.valueIteratedTo * step.countAtValueIteratedTo
    }
    const got = bucketCounts(encode(h))
    assert.deepEqual(got.counts, expected, `${clients} delays up to ${scaleMs} ms`)
    assert.equal(got.count, clients + 1)
    assert.ok(Math.abs(got.sumSeconds - sumUs / 1e6) < 1e-9)
  }
})
