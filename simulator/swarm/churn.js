/**
 * `--session-lifetime 5m` (or `2m..8m`): each client closes after its lifetime and a new
 * session opens in its place at once, so the server sees a steady stream of connects and
 * disconnects at a known rate while the number of clients stays at its target. One timer per
 * client, unref'd; lifetimes are drawn uniformly from the range. Loaded by a swarm with the
 * flag only (its value is checked by simulator/sim-options.js).
 */

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
