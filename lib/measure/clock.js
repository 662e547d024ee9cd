/**
 * Clocks. Delays inside one process use the monotonic clock; timestamps that cross
 * processes use wall-clock milliseconds with sub-millisecond resolution, anchored once
 * per process (performance.timeOrigin), then corrected by a measured offset when
 * hosts differ (see lib/measure/clock-offset.js).
 */
import { performance } from 'node:perf_hooks'

/** Monotonic milliseconds (fractional) since the process started. */
export function monotonicMs () {
  return performance.now()
}

/**
 * A deliberate error added to this process's wall clock, for testing that clock offsets
 * are measured and corrected (IOSWARM_CLOCK_SKEW_MS=5000 pretends this host is 5 s ahead).
 */
const SKEW_MS = Number(process.env.IOSWARM_CLOCK_SKEW_MS) || 0

/** Wall-clock epoch milliseconds, fractional: one anchor per process, monotonic after it. */
export function wallMs () {
  return performance.timeOrigin + performance.now() + SKEW_MS
}

/**
 * CPU time this process has used so far (user + system, all its threads), in ms. One
 * getrusage call, about 1 µs: too dear for a per-frame path (see simulator/recording/recorder.js).
 */
export function processCpuMs () {
  const { user, system } = process.cpuUsage()
  return (user + system) / 1000
}
