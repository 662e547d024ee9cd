/**
 * Clocks. Delays inside one process use the monotonic clock; timestamps that cross
 * processes use wall-clock milliseconds with sub-millisecond resolution, anchored once
 * per process (performance.timeOrigin), then corrected by a measured offset when
 * hosts differ (see lib/clock-offset.js).
 */
import { performance } from 'node:perf_hooks'

/** Monotonic milliseconds (fractional) since the process started. */
export function monotonicMs () {
  return performance.now()
}

/** Wall-clock epoch milliseconds, fractional: one anchor per process, monotonic after it. */
export function wallMs () {
  return performance.timeOrigin + performance.now()
}
