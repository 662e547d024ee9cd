/**
 * Clock offset against a shared reference (NTP-style): for each round trip the reference
 * read happened somewhere between the local readings t0 and t1, so the true offset lies in
 * [r − t1, r − t0]. Intersecting those intervals over several round trips gives an offset
 * with a bound that holds whatever the network asymmetry (no "symmetric path" assumption).
 */
import { wallMs } from './clock.js'

/**
 * @typedef {import('../schema/result-schema.js').ClockInfo & { rttMs: number, samples: number }} ClockEstimate
 */

/** Allowance for a reference that truncates its time (Redis TIME: whole microseconds). */
const RESOLUTION_MS = 0.001

/**
 * Estimates the offset to add to the local wall clock to get the reference clock.
 * @param {() => Promise<number>} readReferenceMs reads the reference clock, epoch ms
 * @param {{ samples?: number, localNow?: () => number, reference?: string }} [options]
 * @returns {Promise<ClockEstimate>}
 */
export async function estimateClockOffset (readReferenceMs, { samples = 15, localNow = wallMs, reference = 'redis' } = {}) {
  /** @type {{ offsetMs: number, rttMs: number }[]} */
  const trips = []
  for (let i = 0; i < Math.max(1, samples); i++) {
    const t0 = localNow()
    const r = await readReferenceMs()
    const t1 = localNow()
    trips.push({ offsetMs: r - (t0 + t1) / 2, rttMs: t1 - t0 })
  }
  trips.sort((a, b) => a.rttMs - b.rttMs)
  const { offsetMs, uncertaintyMs } = intersect(trips) ?? medianOfBest(trips)
  // Rounded to 0.1 µs; the bound is rounded up so that it still holds.
  const round4 = (/** @type {number} */ v) => Math.round(v * 1e4) / 1e4
  return {
    offsetMs: round4(offsetMs),
    uncertaintyMs: Math.ceil(uncertaintyMs * 1e4 + 0.5) / 1e4,
    reference,
    rttMs: round4(trips[0].rttMs),
    samples: trips.length
  }
}

/**
 * The interval every round trip agrees on, or null when they disagree (a clock stepped).
 * @param {{ offsetMs: number, rttMs: number }[]} trips
 */
function intersect (trips) {
  let lo = -Infinity
  let hi = Infinity
  for (const { offsetMs, rttMs } of trips) {
    lo = Math.max(lo, offsetMs - rttMs / 2 - RESOLUTION_MS)
    hi = Math.min(hi, offsetMs + rttMs / 2 + RESOLUTION_MS)
  }
  return lo <= hi ? { offsetMs: (lo + hi) / 2, uncertaintyMs: (hi - lo) / 2 } : null
}

/**
 * Fallback: the median offset of the three fastest round trips, bounded by the slowest of them.
 * @param {{ offsetMs: number, rttMs: number }[]} trips sorted by round trip
 */
function medianOfBest (trips) {
  const best = trips.slice(0, 3).sort((a, b) => a.offsetMs - b.offsetMs)
  const median = best[Math.floor(best.length / 2)]
  const spreadMs = Math.max(...best.map((t) => Math.abs(t.offsetMs - median.offsetMs) + t.rttMs / 2))
  return { offsetMs: median.offsetMs, uncertaintyMs: spreadMs + RESOLUTION_MS }
}

/**
 * A reference reader for estimateClockOffset: the Redis server's `TIME`, as epoch ms.
 * @param {{ time: () => Promise<(string | number)[]> }} redis an ioredis client (or anything with time())
 * @returns {() => Promise<number>}
 */
export function redisTimeReader (redis) {
  return async () => {
    const [seconds, micros] = await redis.time()
    return Number(seconds) * 1000 + Number(micros) / 1000
  }
}
