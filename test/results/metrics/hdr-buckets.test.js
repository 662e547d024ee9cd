import assert from 'node:assert/strict'
import test from 'node:test'
import { createHistogram, encode, recordMs } from '../../../lib/histogram.js'
import { bucketCounts, DELAY_BUCKETS_SECONDS } from '../../../results/metrics/hdr-buckets.js'

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
