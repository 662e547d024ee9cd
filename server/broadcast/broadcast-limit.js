/**
 * A token bucket for the reference server's broadcast entry points (POST /broadcast and the
 * admin namespace): a leaked or guessed token, or a runaway script, cannot make the server
 * flood its clients faster than `--broadcast-rate`. Requests are charged after the token
 * check, so strangers cannot drain the bucket of the real broadcaster. Per process: a
 * cluster of K workers accepts up to K times the rate.
 */
import { performance } from 'node:perf_hooks'
import { invalidOption } from '../../lib/errors.js'

export const DEFAULT_BROADCAST_RATE = '100/s'

const UNIT_MS = /** @type {Record<string, number>} */ ({ s: 1000, m: 60000 })

/**
 * Parses a rate: `100/s`, `600/m`, `100` (per second), `0` or `off` (no limit).
 * @param {string | number} text
 * @param {string} [flag] named in the error
 * @returns {number} per second; Infinity = no limit
 */
export function parseBroadcastRate (text, flag = '--broadcast-rate') {
  const value = String(text).trim()
  if (value === '0' || value === 'off') return Infinity
  const match = /^(\d+(?:\.\d+)?)(?:\/(s|m))?$/.exec(value)
  const count = match ? Number(match[1]) : NaN
  if (!match || !(count > 0) || !Number.isFinite(count)) {
    throw invalidOption(flag, `must be a positive number per second or minute (100/s, 600/m) or 0/off, got ${JSON.stringify(text)}`)
  }
  return count * 1000 / UNIT_MS[match[2] ?? 's']
}

/**
 * A token bucket holding up to one second of the rate (at least 1 broadcast).
 * @param {number} ratePerSec Infinity = every take succeeds
 * @param {() => number} [nowMs] a monotonic clock in ms
 */
export function createBroadcastLimiter (ratePerSec, nowMs = () => performance.now()) {
  const capacity = Math.max(1, ratePerSec)
  let tokens = capacity
  let lastMs = nowMs()
  return {
    ratePerSec,
    /**
     * Takes one broadcast from the bucket.
     * @returns {{ ok: true } | { ok: false, retryAfterMs: number }}
     */
    take () {
      if (ratePerSec === Infinity) return { ok: true }
      const now = nowMs()
      tokens = Math.min(capacity, tokens + (now - lastMs) * ratePerSec / 1000)
      lastMs = now
      if (tokens >= 1) {
        tokens -= 1
        return { ok: true }
      }
      return { ok: false, retryAfterMs: Math.ceil((1 - tokens) * 1000 / ratePerSec) }
    }
  }
}

/**
 * The answer to a broadcast refused by the limiter (HTTP body and admin ack alike).
 * @param {number} ratePerSec
 * @param {number} retryAfterMs
 */
export function rateLimitedReply (ratePerSec, retryAfterMs) {
  return { ok: false, error: `broadcast rate limit exceeded (${ratePerSec}/s): retry after ${retryAfterMs} ms`, retryAfterMs }
}
