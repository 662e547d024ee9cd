/**
 * `--session-lifetime 5m` (or `2m..8m`): each client closes after its lifetime and a new
 * session opens in its place at once, so the server sees a steady stream of connects and
 * disconnects at a known rate while the number of clients stays at its target. One timer per
 * client, unref'd; lifetimes are drawn uniformly from the range.
 */
import { invalidOption } from '../lib/errors.js'
import { parseDurationMs } from '../lib/options.js'

/**
 * `5m` or `2m..8m` → { minMs, maxMs }.
 * @param {unknown} value
 * @param {string} flag
 * @returns {{ minMs: number, maxMs: number } | null}
 */
export function parseLifetime (value, flag) {
  if (value === undefined || value === null) return null
  const [low, high = low, extra] = String(value).split('..')
  if (extra !== undefined) throw invalidOption(flag, `must be a duration or a range such as 5m or 2m..8m, got ${JSON.stringify(value)}`)
  const minMs = parseDurationMs(low, flag)
  const maxMs = parseDurationMs(high, flag)
  if (minMs < 1000 || maxMs < minMs) throw invalidOption(flag, `must be at least 1s, low..high with low ≤ high, got ${JSON.stringify(value)}`)
  return { minMs, maxMs }
}

/**
 * @param {{ minMs: number, maxMs: number }} lifetime
 * @param {{ reopen: (i: number) => void }} hooks reopen: close client i and open a new session in its place
 */
export function createChurn (lifetime, hooks) {
  /** @type {Map<number, NodeJS.Timeout>} */
  const timers = new Map()
  let closed = 0
  let stopped = false
  const draw = () => lifetime.minMs + Math.random() * (lifetime.maxMs - lifetime.minMs)
  /** @param {number} i */
  function schedule (i) {
    if (stopped) return
    const timer = setTimeout(() => {
      closed++
      hooks.reopen(i)
      schedule(i)
    }, draw())
    timer.unref()
    timers.set(i, timer)
  }
  return {
    /** Client i's first session started: its lifetime runs from now. */
    started: schedule,
    /**
     * Client i was closed for good (a ramp-down of --phases): no new session in its place.
     * @param {number} i
     */
    ended (i) {
      clearTimeout(timers.get(i))
      timers.delete(i)
    },
    stop () {
      stopped = true
      for (const t of timers.values()) clearTimeout(t)
      timers.clear()
    },
    /** Sessions closed at the end of their lifetime so far. */
    closed: () => closed
  }
}
