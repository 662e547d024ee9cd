/**
 * --ramp-guard: the bounds under which a swarm keeps opening clients. Alone it takes the
 * defaults; `loop=200ms,failures=5%,connect=3s,reconnects=50/s` sets any of them. The swarm's side is
 * simulator/swarm/ramp-guard.js.
 */
import { invalidOption } from '../errors.js'
import { parseDurationMs } from '../values/parsers.js'

/**
 * @typedef {object} RampGuardBounds
 * @property {number} loopDelayMs the ramp waits while this process's event-loop delay (p99 of the last second) is above it
 * @property {number} failuresPct … or while more than this share (%) of the connect attempts answered in the last
 *   FAILURE_WINDOW_S seconds failed (timed out, refused, errored)
 * @property {number} connectMs … or while more than 1 % of the connects made in the last FAILURE_WINDOW_S seconds took
 *   longer than this (their p99 above it: a server whose queue grows answers slowly long before it times out); 0: not watched
 * @property {number} reconnectsPerS most reconnect attempts a second of one process (a token bucket of one second's worth)
 */

/** @type {Readonly<RampGuardBounds>} */
export const RAMP_GUARD_DEFAULTS = Object.freeze({ loopDelayMs: 200, failuresPct: 5, connectMs: 3000, reconnectsPerS: 50 })

/**
 * The share of slow connects that holds the ramp: more than 1 % of a window's connects over
 * `connect` is a p99 above it.
 */
export const SLOW_CONNECTS_PCT = 1

/** Seconds over which the share of failed connect attempts is taken (one second holds too few answers at a slow ramp). */
export const FAILURE_WINDOW_S = 3

/**
 * How long a hold for failing connects lasts with no attempt out and none answered: longer than
 * socket.io-client's longest backoff (5 s), so clients waiting to try again are waited for; a
 * client refused for good never tries again, and the ramp must not wait for it forever.
 */
export const QUIET_HOLD_S = 10

/**
 * A connect bound as people read it: whole seconds as seconds (`3 s`), else ms (`500 ms`).
 * @param {number} ms
 */
export function formatConnectBound (ms) {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`
}

const KEYS = ['loop', 'failures', 'connect', 'reconnects']

/**
 * @param {unknown} value undefined, null or false: no guard; '' or true (the flag alone): the defaults
 * @param {string} flag
 * @returns {RampGuardBounds | null}
 */
export function parseRampGuard (value, flag) {
  if (value === undefined || value === null || value === false || value === 'false') return null
  if (typeof value === 'object') return checkBounds(/** @type {Record<string, unknown>} */ (value), flag)
  const text = value === true ? '' : String(value).trim()
  const bounds = { ...RAMP_GUARD_DEFAULTS }
  if (text === '' || text === 'true' || text === 'on') return bounds
  for (const part of text.split(',')) {
    const [key, raw, extra] = part.split('=').map((s) => s.trim())
    if (raw === undefined || extra !== undefined || !KEYS.includes(key)) {
      const allowed = `nothing, or key=value pairs among ${KEYS.join(', ')} (loop=200ms,failures=5%,connect=3s,reconnects=50/s)`
      throw invalidOption(flag, `takes ${allowed}, got ${JSON.stringify(part)}`)
    }
    if (key === 'loop') bounds.loopDelayMs = loopBound(raw, flag)
    else if (key === 'failures') bounds.failuresPct = percent(raw, flag)
    else if (key === 'connect') bounds.connectMs = connectBound(raw, flag)
    else bounds.reconnectsPerS = rate(raw, flag)
  }
  return bounds
}

/**
 * Bounds handed over already parsed (a library caller, a parent's normalised options): checked as the text would be.
 * @param {Record<string, unknown>} o
 * @param {string} flag
 * @returns {RampGuardBounds}
 */
function checkBounds (o, flag) {
  const d = RAMP_GUARD_DEFAULTS
  return {
    loopDelayMs: loopBound(`${o.loopDelayMs ?? d.loopDelayMs}ms`, flag),
    failuresPct: percent(`${o.failuresPct ?? d.failuresPct}%`, flag),
    connectMs: connectBound(o.connectMs === 0 ? 'off' : `${o.connectMs ?? d.connectMs}ms`, flag),
    reconnectsPerS: rate(`${o.reconnectsPerS ?? d.reconnectsPerS}/s`, flag)
  }
}

/** @param {string} raw @param {string} flag */
function loopBound (raw, flag) {
  const ms = parseDurationMs(raw, `${flag} loop=`, { defaultUnit: 'ms' })
  // Below 10 ms the sampler's own resolution (10 ms) and any GC pause would hold the ramp all the time.
  if (ms < 10) throw invalidOption(`${flag} loop=`, `must be at least 10ms (an event-loop delay), got ${JSON.stringify(raw)}`)
  return ms
}

/** @param {string} raw @param {string} flag @returns {number} ms, 0 for off */
function connectBound (raw, flag) {
  if (raw === 'off') return 0
  const ms = parseDurationMs(raw, `${flag} connect=`, { defaultUnit: 'ms' })
  // Under 100 ms a connect over loopback alone (a TCP, an HTTP and a Socket.IO round trip) would hold the ramp.
  if (ms < 100) throw invalidOption(`${flag} connect=`, `must be at least 100ms (a connect's time), or off, got ${JSON.stringify(raw)}`)
  return ms
}

/** @param {string} raw @param {string} flag */
function percent (raw, flag) {
  const match = /^(\d+(?:\.\d+)?)\s*%?$/.exec(raw)
  const pct = match ? Number(match[1]) : NaN
  if (!(pct >= 0 && pct < 100)) throw invalidOption(`${flag} failures=`, `must be a share from 0% to 99%, such as 5%, got ${JSON.stringify(raw)}`)
  return pct
}

/** @param {string} raw @param {string} flag */
function rate (raw, flag) {
  const match = /^(\d+(?:\.\d+)?)\s*(?:\/s)?$/.exec(raw)
  const perS = match ? Number(match[1]) : NaN
  if (!(perS >= 1 && perS <= 1e6)) {
    throw invalidOption(`${flag} reconnects=`, `must be reconnect attempts a second per process from 1 to 1000000, such as 50/s, got ${JSON.stringify(raw)}`)
  }
  return perS
}
