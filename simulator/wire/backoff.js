/**
 * Reconnection delays with socket.io-client's defaults and formula: exponential from
 * reconnectionDelay (1000 ms), doubled per attempt, randomised by ±randomizationFactor
 * (0.5), capped at reconnectionDelayMax (5000 ms). Same numbers, so a lean swarm
 * reconnects in the same waves a socket.io-client swarm would.
 */

/** @typedef {{ minMs: number, maxMs: number, jitter: number }} BackoffConfig */

/** @type {Readonly<BackoffConfig>} */
export const RECONNECT_DEFAULTS = Object.freeze({ minMs: 1000, maxMs: 5000, jitter: 0.5 })

/**
 * The delay before reconnection attempt `attempt` (0-based).
 * @param {number} attempt
 * @param {() => number} [random] uniform in [0, 1)
 * @param {BackoffConfig} [config]
 * @returns {number} whole milliseconds
 */
export function backoffDelayMs (attempt, random = Math.random, config = RECONNECT_DEFAULTS) {
  let ms = config.minMs * 2 ** Math.min(attempt, 30)
  if (config.jitter > 0) {
    const rand = random()
    const deviation = Math.floor(rand * config.jitter * ms)
    // One draw decides both size and sign, as socket.io-client's backoff does.
    ms = (Math.floor(rand * 10) & 1) === 0 ? ms - deviation : ms + deviation
  }
  return Math.min(ms, config.maxMs) | 0
}

/**
 * A client whose wait is over tries again, unless --ramp-guard's cap on reconnects per second
 * defers it: then it waits for its token, once (the next deadline starts it whatever the cap says).
 * @param {{ config: { reconnectGate: (() => number) | null }, sweeper: { setIn: (i: number, ms: number) => void },
 *   startAttempt: (c: any) => void }} pool
 * @param {{ i: number, paced: boolean }} c
 */
export function reconnectOrDefer (pool, c) {
  const waitMs = c.paced || pool.config.reconnectGate === null ? 0 : pool.config.reconnectGate()
  c.paced = waitMs > 0
  if (c.paced) pool.sweeper.setIn(c.i, waitMs)
  else pool.startAttempt(c)
}
