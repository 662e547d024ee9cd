/**
 * Reconnect storms: a wave of disconnects (a deploy, a crash, a network blip) measured from the
 * first drop until every dropped client is back: how many dropped and why, the time until
 * 50 / 90 / 99 / 100 % of them were connected again, the attempts and failed handshakes in
 * between. Fed by the client tracker's connect and disconnect events (never per message).
 * A storm is a wave of at least STORM_MIN_CLIENTS drops, or of every connected client.
 */
import { monotonicMs, wallMs } from '../lib/clock.js'
import { createReasonCounter } from '../lib/reasons.js'

/** Fewest clients dropped in one wave for it to count as a storm (unless all of them dropped). */
export const STORM_MIN_CLIENTS = 5
/** Storms kept in a result; later ones are counted only. */
const MAX_STORMS = 100

/** @typedef {import('../lib/schema.js').Storm} Storm */

/**
 * @typedef {{ startMono: number, startedAt: number, dropped: number, backAfterMs: number[], attempts: number, reasons: ReturnType<typeof createReasonCounter>, errors: ReturnType<typeof createReasonCounter>, connectedBefore: number }} OpenStorm
 */

/**
 * Whether a wave is big enough to be a storm.
 * @param {OpenStorm} s
 */
function counts (s) {
  return s.dropped >= Math.min(STORM_MIN_CLIENTS, s.connectedBefore)
}

/**
 * @param {OpenStorm} s
 * @returns {Storm}
 */
function summarize (s) {
  const at = (/** @type {number} */ share) => {
    const n = Math.ceil(share * s.dropped)
    return s.backAfterMs.length >= n ? Math.round(s.backAfterMs[n - 1]) : null
  }
  return {
    startedAt: Math.round(s.startedAt),
    dropped: s.dropped,
    back: s.backAfterMs.length,
    reasons: s.reasons.record(),
    errors: s.errors.record(),
    attempts: s.attempts,
    backMs: { p50: at(0.5), p90: at(0.9), p99: at(0.99), p100: at(1) },
    endedMs: s.backAfterMs.length === s.dropped ? Math.round(s.backAfterMs[s.dropped - 1]) : null
  }
}

/**
 * @param {number} clients
 */
export function createStormTracker (clients) {
  const away = new Uint8Array(clients)
  /** @type {Storm[]} */
  const storms = []
  let more = 0
  /** @type {OpenStorm | null} */
  let open = null

  /** Closes the open storm into the list when it counts as one. */
  function close () {
    if (open === null) return
    const s = open
    open = null
    away.fill(0)
    if (!counts(s)) return
    if (storms.length >= MAX_STORMS) more++
    else storms.push(summarize(s))
  }

  return {
    /**
     * @param {number} i
     * @param {string} reason
     * @param {number} connectedBefore clients connected just before this drop
     */
    dropped (i, reason, connectedBefore) {
      open ??= { startMono: monotonicMs(), startedAt: wallMs(), dropped: 0, backAfterMs: [], attempts: 0, reasons: createReasonCounter(), errors: createReasonCounter(), connectedBefore }
      if (away[i]) return
      away[i] = 1
      open.dropped++
      open.reasons.add(reason)
    },
    /** @param {number} i */
    connected (i) {
      if (open === null || !away[i]) return
      away[i] = 0
      open.backAfterMs.push(monotonicMs() - open.startMono)
      if (open.backAfterMs.length === open.dropped) close()
    },
    attempt () {
      if (open !== null) open.attempts++
    },
    /** @param {string} reason */
    failed (reason) {
      open?.errors.add(reason)
    },
    /**
     * The storms so far; one still open is included with what it has.
     * @returns {{ list: Storm[], more: number }}
     */
    record () {
      return { list: open !== null && counts(open) ? [...storms, summarize(open)] : storms.slice(), more }
    }
  }
}
