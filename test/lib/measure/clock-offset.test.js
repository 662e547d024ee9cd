import { test } from 'node:test'
import assert from 'node:assert/strict'
import { Redis } from 'ioredis'
import { wallMs } from '../../../lib/measure/clock.js'
import { estimateClockOffset, redisTimeReader } from '../../../lib/measure/clock-offset.js'
import { getRedisUrl } from '../../helpers/redis.js'

// Redis TIME has whole microseconds; the estimate is rounded to 0.1 µs.
const EPSILON_MS = 0.002

test('against Redis TIME, a local clock 5 s fast is found 5 s behind the reference, within its bound', async (t) => {
  const url = await getRedisUrl(t)
  if (!url) return
  const redis = new Redis(url)
  t.after(() => redis.quit())
  const skewed = () => wallMs() + 5000
  const clock = await estimateClockOffset(redisTimeReader(redis), { localNow: skewed })
  assert.equal(clock.samples, 15)
  assert.equal(clock.reference, 'redis')
  assert.ok(clock.uncertaintyMs > 0 && clock.uncertaintyMs <= clock.rttMs / 2 + EPSILON_MS, JSON.stringify(clock))
  // Redis runs on this host: its clock is this process's wall clock, so the truth is −5000.
  assert.ok(Math.abs(clock.offsetMs + 5000) <= clock.uncertaintyMs + EPSILON_MS, JSON.stringify(clock))
})

test('a reference read at an unknown point of a slow, asymmetric round trip stays within the bound', async () => {
  let step = 0
  // Reference = local + 1234 ms, read early or late in the round trip, never in the middle.
  const read = async () => {
    step++
    await new Promise((resolve) => setTimeout(resolve, step % 2 ? 1 : 3))
    const r = wallMs() + 1234
    await new Promise((resolve) => setTimeout(resolve, step % 2 ? 3 : 1))
    return r
  }
  const clock = await estimateClockOffset(read, { samples: 6, reference: 'runner' })
  assert.equal(clock.reference, 'runner')
  assert.ok(Math.abs(clock.offsetMs - 1234) <= clock.uncertaintyMs, JSON.stringify(clock))
  assert.ok(clock.uncertaintyMs <= clock.rttMs / 2 + EPSILON_MS, JSON.stringify(clock))
})

test('a reference that steps between round trips falls back to the fastest ones', async () => {
  let step = 0
  const read = async () => wallMs() + (step++ < 3 ? 0 : 100)
  const clock = await estimateClockOffset(read, { samples: 6 })
  assert.ok(Number.isFinite(clock.offsetMs) && clock.uncertaintyMs >= 0, JSON.stringify(clock))
  // Either side of the step is a defensible answer; the bound must cover the one given.
  assert.ok(Math.abs(clock.offsetMs) <= clock.uncertaintyMs + 0.01 || Math.abs(clock.offsetMs - 100) <= clock.uncertaintyMs + 0.01, JSON.stringify(clock))
})
