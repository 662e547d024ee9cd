/**
 * --ramp-guard: a swarm that degrades instead of collapsing. Once a second, with the swarm's
 * own sample, it decides whether the ramp waits: while this process's event loop is slow (a
 * simulator that cannot keep up measures itself, not the server), while the server fails
 * the connects it is sent, or while it answers them slowly (more clients only make its queue
 * longer; a server's lag shows in its connect times long before its connects time out). And it paces
 * reconnects: a token bucket per process, so a collapse does not turn into tries without end.
 */
import { monotonicMs } from '../../lib/measure/clock.js'
import { FAILURE_WINDOW_S, QUIET_HOLD_S, SLOW_CONNECTS_PCT, formatConnectBound } from '../../lib/input/ramp-guard.js'

/**
 * @typedef {import('../../lib/input/ramp-guard.js').RampGuardBounds} RampGuardBounds
 * @typedef {import('../../lib/schema/result-schema.js').RampGuardReport} RampGuardReport
 */

/**
 * @param {RampGuardBounds} bounds
 */
export function createRampGuard (bounds) {
  /** The last FAILURE_WINDOW_S seconds' answers to connect attempts. @type {{ answered: number, failed: number, connects: number, slow: number }[]} */
  const seconds = []
  let heldSince = /** @type {number | null} */ (null)
  /** The hold is for failing connects: with nothing answered since, it lasts while attempts are out, or QUIET_HOLD_S. */
  let forFailures = false
  /** Seconds in a row with no connect attempt answered. */
  let quietS = 0
  let holds = 0
  let heldMs = 0
  let longestHoldMs = 0
  // The reconnect bucket: one second's worth at most, refilled as time passes; while the ramp is
  // held, HELD_RECONNECT_SHARE as fast (a retry is load on a server already behind, as a new client is).
  const perMs = bounds.reconnectsPerS / 1000
  let tokens = bounds.reconnectsPerS
  let filledAt = monotonicMs()
  let deferred = 0
  /** Attempts unanswered at the last check that had waited longer than the `connect` bound. */
  let waitingNow = 0

  /** @param {number} now */
  function release (now) {
    if (heldSince === null) return
    const ms = now - heldSince
    heldMs += ms
    longestHoldMs = Math.max(longestHoldMs, ms)
    heldSince = null
    forFailures = false
  }

  /**
   * Why the ramp should wait now, or null.
   * @param {number} loopDelayMs
   * @param {number} pending
   */
  function reasonNow (loopDelayMs, pending) {
    // Tenths below 100 ms: a delay just over a low bound (10 ms) is not said as the bound itself.
    const delay = loopDelayMs < 100 ? loopDelayMs.toFixed(1) : Math.round(loopDelayMs)
    if (loopDelayMs > bounds.loopDelayMs) return { reason: `loop delay ${delay} ms`, failures: false }
    const answered = seconds.reduce((n, s) => n + s.answered, 0)
    const failed = seconds.reduce((n, s) => n + s.failed, 0)
    const pct = answered > 0 ? failed / answered * 100 : 0
    if (pct > bounds.failuresPct) {
      return { reason: `connect failures ${Math.round(pct)}% (${failed} of ${answered} in ${FAILURE_WINDOW_S} s)`, failures: true }
    }
    const slow = slowReason()
    if (slow !== null) return { reason: slow, failures: false }
    if (answered > 0) return null
    // Held for failures and nothing answered since: the server has not said it is better, and the
    // attempts still out (or the clients waiting out their backoff) will say it. With none out for
    // QUIET_HOLD_S, nothing is left to say it (clients refused for good): the ramp goes on, and holds again if its new clients fail.
    if (!forFailures || (pending === 0 && quietS >= QUIET_HOLD_S)) return null
    return { reason: `connect failures, none answered since (${pending} attempts out)`, failures: true }
  }

  /**
   * Connects slower than the `connect` bound, or null: more than SLOW_CONNECTS_PCT of the
   * window's connects (and of the attempts waiting longer than it now) were over it.
   * @returns {string | null}
   */
  function slowReason () {
    if (bounds.connectMs === 0) return null
    const connects = seconds.reduce((n, s) => n + s.connects, 0)
    const slow = seconds.reduce((n, s) => n + s.slow, 0)
    const over = slow + waitingNow
    if (over === 0 || over * 100 <= (connects + waitingNow) * SLOW_CONNECTS_PCT) return null
    const bound = formatConnectBound(bounds.connectMs)
    const done = `${slow} of ${connects} over ${bound} in ${FAILURE_WINDOW_S} s`
    return `slow connects: ${waitingNow === 0 ? done : `${done}, ${waitingNow} waiting longer`}`
  }

  return {
    /**
     * Once a second: decides whether the ramp waits.
     * @param {object} now
     * @param {number} now.loopDelayMs this process's event-loop delay, p99 of the last second
     * @param {number} now.connects connects in the last second
     * @param {number} now.errors connect attempts that failed in the last second
     * @param {number} [now.slow] connects in the last second that took longer than the `connect` bound
     * @param {number} [now.waiting] connect attempts unanswered now that have waited longer than the `connect` bound
     * @param {number} now.pending connect attempts not answered yet
     * @param {boolean} now.ramping clients are still to be started (nothing to hold otherwise)
     * @returns {string | null} why the ramp is held; null: it is not
     */
    check ({ loopDelayMs, connects, errors, slow = 0, waiting = 0, pending, ramping }) {
      seconds.push({ answered: connects + errors, failed: errors, connects, slow })
      waitingNow = waiting
      quietS = connects + errors > 0 ? 0 : quietS + 1
      if (seconds.length > FAILURE_WINDOW_S) seconds.shift()
      const at = monotonicMs()
      const hold = ramping ? reasonNow(loopDelayMs, pending) : null
      if (hold === null) {
        release(at)
        return null
      }
      if (heldSince === null) {
        heldSince = at
        holds++
      }
      forFailures = hold.failures
      return hold.reason
    },

    /**
     * Asked right before a reconnect attempt: 0 to go now (a token taken), else how long to
     * wait for the next token (the attempt is deferred, counted once; it goes when the wait is over).
     * @returns {number} ms
     */
    reconnectDelayMs () {
      const now = monotonicMs()
      const share = heldSince === null ? 1 : HELD_RECONNECT_SHARE
      const rate = perMs * share
      // At most one second's worth at the current rate: a hold does not begin with a full bucket's burst.
      tokens = Math.min(bounds.reconnectsPerS * share, tokens + (now - filledAt) * rate)
      filledAt = now
      // Each deferred attempt takes its token now, ahead: they go one by one, at the bucket's rate, not all at once.
      tokens -= 1
      if (tokens >= 0) return 0
      deferred++
      return Math.ceil(-tokens / rate)
    },

    /** @returns {RampGuardReport} */
    record () {
      const ongoing = heldSince === null ? 0 : monotonicMs() - heldSince
      return {
        ...bounds,
        holds,
        heldMs: Math.round(heldMs + ongoing),
        longestHoldMs: Math.round(Math.max(longestHoldMs, ongoing)),
        deferredReconnects: deferred
      }
    }
  }
}

/** The share of `reconnects` a second that a process retries at while its ramp is held. */
export const HELD_RECONNECT_SHARE = 0.1

/** Seconds between two notices of a held ramp from one process (a loop that lags holds and lets go every other second). */
export const HOLD_NOTICE_S = 10

/**
 * A held ramp said on a line of its own, for a process without a progress line (a `--workers`
 * child, whose stderr lines its parent shows): at most one line every HOLD_NOTICE_S seconds,
 * and only when the ramp was held in them.
 * @returns {(progress: { elapsedMs: number, rampHeld?: string | null }) => string | null} fed each progress, the line to write, if any
 */
export function holdNotices () {
  let heldS = 0
  let last = ''
  let windowStartMs = 0
  return (progress) => {
    if (progress.rampHeld) {
      heldS++
      last = progress.rampHeld
    }
    if (progress.elapsedMs - windowStartMs < HOLD_NOTICE_S * 1000) return null
    const line = heldS === 0 ? null : `ramp held ${heldS} s of the last ${Math.round((progress.elapsedMs - windowStartMs) / 1000)} s (last: ${last})`
    windowStartMs = progress.elapsedMs
    heldS = 0
    return line
  }
}

/** The prefix of a hold notice on a child's stderr, which `run` reads back to say it live. */
const NOTICE_PREFIX = 'ioswarm simulate '

/**
 * A hold notice as a child process writes it on its stderr.
 * @param {string} id the simulator's id
 * @param {string} text what holdNotices said
 */
export function holdNoticeLine (id, text) {
  return `${NOTICE_PREFIX}${id}: ${text}`
}

/**
 * A hold notice read back from a line of a child's stderr (holdNoticeLine's inverse).
 * @param {string} line
 * @returns {{ id: string, text: string } | null} null: another line
 */
function readHoldNotice (line) {
  const at = line.indexOf(': ramp held ')
  if (!line.startsWith(NOTICE_PREFIX) || at === -1) return null
  return { id: line.slice(NOTICE_PREFIX.length, at), text: line.slice(at + 2) }
}

/**
 * The whole lines of a child's stderr that tell of a held ramp, passed on one by one (`run`
 * says them live: its simulators have no progress line of their own).
 * @param {(line: string) => void} log
 * @returns {(text: string) => void}
 */
export function holdLines (log) {
  let partial = ''
  return (text) => {
    const lines = (partial + text).split('\n')
    // A line cut between two chunks waits for its end; a bound keeps a line without one from growing.
    partial = /** @type {string} */ (lines.pop()).slice(-4000)
    for (const line of lines) {
      const notice = readHoldNotice(line)
      if (notice !== null) log(`${notice.id} ${notice.text}`)
    }
  }
}
