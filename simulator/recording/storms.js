/**
 * Reconnect storms: a wave of disconnects (a deploy, a crash, a network blip) measured from the
 * first drop until every dropped client is back: how many dropped and why, the time until
 * 50 / 90 / 99 / 100 % of them were connected again, the attempts and failed handshakes in
 * between. Fed by the client tracker's connect and disconnect events (never per message).
 * A storm is a wave of at least STORM_MIN_CLIENTS drops, or of every connected client.
 *
 * The gap: a message sent while a dropped client was away (from its drop until it was back) is
 * one delivery that client was owed. The tracker sees a message when any client of this
 * process receives it (its send time from the message, or the first receipt when it has none);
 * a later receipt by a client that was away when it was sent is *replayed* (socket.io's
 * connection state recovery sends the missed packets to a recovered session), and what was owed
 * and never received is *lost*. A message no client of this process ever received is not seen,
 * so it is not counted: run one simulator's clients on a steady server alongside to see those.
 * Sessions the server restored (`socket.recovered`, or the lean engine's pid echoed back) are
 * counted as `recovered`. Only the latest storm's gap is followed; an earlier one is final once
 * a new storm starts.
 */
import { monotonicMs, wallMs } from '../../lib/measure/clock.js'
import { createReasonCounter } from '../../lib/reasons.js'

/** Fewest clients dropped in one wave for it to count as a storm (unless all of them dropped). */
export const STORM_MIN_CLIENTS = 5
/** Storms kept in a result; later ones are counted only. */
const MAX_STORMS = 100
/** Messages followed per storm's gap; receipts of further ones are not counted. */
const MAX_GAP_MESSAGES = 10_000
/** How long after the last dropped client is back its replays are still counted. */
const FOLLOW_AFTER_MS = 30_000

/** @typedef {import('../../lib/schema/result-schema.js').Storm} Storm */

/**
 * @typedef {{ startMono: number, startedAt: number, dropped: number, backAfterMs: number[], attempts: number, reasons: ReturnType<typeof createReasonCounter>, errors: ReturnType<typeof createReasonCounter>, connectedBefore: number, serial: number, recovered: number, owed: number, replayed: number, members: number[], messages: Map<string, GapMessage> | null }} OpenStorm
 * @typedef {{ sentAt: number, got: Uint32Array | null }} GapMessage got: bit i = client i received it since its drop (allocated at the first replay)
 * `owed`: deliveries of messages sent while a dropped client was away; `messages`: those seen, by key (the send time), while the storm is followed
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
    endedMs: s.backAfterMs.length === s.dropped ? Math.round(s.backAfterMs[s.dropped - 1]) : null,
    recovered: s.recovered,
    replayed: s.replayed,
    lost: s.owed - s.replayed
  }
}

/**
 * @param {number} clients
 */
export function createStormTracker (clients) {
  const away = new Uint8Array(clients)
  /** Wall-clock ms of each client's drop and return in the followed storm (return: Infinity while away). */
  const dropAt = new Float64Array(clients)
  const backAt = new Float64Array(clients)
  /** The storm each client dropped in last (its serial; 0: none). */
  const stormOf = new Uint32Array(clients)
  let serial = 0
  /** @type {OpenStorm[]} */
  const storms = []
  let more = 0
  /** @type {OpenStorm | null} */
  let open = null
  /** The storm whose gap is followed: the open one, else the latest. @type {OpenStorm | null} */
  let followed = null
  /** Latest return of a client of the followed storm (Infinity while one is away). */
  let lastBackAt = 0

  /** Closes the open storm into the list when it counts as one. */
  function close () {
    if (open === null) return
    const s = open
    open = null
    away.fill(0)
    if (!counts(s)) {
      followed = null
      return
    }
    if (storms.length >= MAX_STORMS) {
      more++
      followed = null
    } else storms.push(s)
  }

  /**
   * Clients of the followed storm that were away at wall time t.
   * @param {OpenStorm} s
   * @param {number} t
   */
  function awayAt (s, t) {
    let n = 0
    for (const i of s.members) if (dropAt[i] <= t && t < backAt[i]) n++
    return n
  }

  return {
    /**
     * @param {number} i
     * @param {string} reason
     * @param {number} connectedBefore clients connected just before this drop
     */
    dropped (i, reason, connectedBefore) {
      if (open === null) {
        open = {
          startMono: monotonicMs(),
          startedAt: wallMs(),
          dropped: 0,
          backAfterMs: [],
          attempts: 0,
          reasons: createReasonCounter(),
          errors: createReasonCounter(),
          connectedBefore,
          serial: ++serial,
          recovered: 0,
          owed: 0,
          replayed: 0,
          members: [],
          messages: new Map()
        }
        // The storm before is final now: its gap is no longer followed.
        if (followed !== null) followed.messages = null
        followed = open
      }
      if (away[i]) return
      away[i] = 1
      open.dropped++
      open.members.push(i)
      stormOf[i] = open.serial
      dropAt[i] = wallMs()
      backAt[i] = Infinity
      lastBackAt = Infinity
      open.reasons.add(reason)
    },
    /**
     * @param {number} i
     * @param {boolean} [recovered] the server restored the client's session (connection state recovery)
     */
    connected (i, recovered = false) {
      if (open === null || !away[i]) return
      away[i] = 0
      backAt[i] = wallMs()
      open.backAfterMs.push(monotonicMs() - open.startMono)
      if (recovered) open.recovered++
      if (open.backAfterMs.length === open.dropped) {
        lastBackAt = backAt[i]
        close()
      }
    },
    /**
     * Client i received a message: a delivery owed by the gap, or one replayed to it.
     * @param {number} i
     * @param {string} key the message's identity
     * @param {number | null} sentAt its send time (local wall-clock ms), null: unknown
     */
    message (i, key, sentAt) {
      const s = followed
      if (s === null || s.messages === null) return
      let m = s.messages.get(key)
      if (m === undefined) {
        const t = sentAt ?? wallMs()
        // Sent before the storm or after every dropped client was back: owed to no one (and not remembered).
        if (t >= lastBackAt || t < s.startedAt || s.messages.size >= MAX_GAP_MESSAGES) return
        m = { sentAt: t, got: null }
        s.messages.set(key, m)
        s.owed += awayAt(s, t)
      }
      if (stormOf[i] !== s.serial || dropAt[i] > m.sentAt || m.sentAt >= backAt[i]) return
      m.got ??= new Uint32Array(Math.ceil(clients / 32))
      const bit = 1 << (i & 31)
      if (m.got[i >>> 5] & bit) return
      m.got[i >>> 5] |= bit
      s.replayed++
    },
    /** Whether a storm's gap is followed now (else message() need not be called). */
    following () {
      if (followed === null || followed.messages === null) return false
      if (open !== null || lastBackAt > wallMs() - FOLLOW_AFTER_MS) return true
      // Past the window: the gap is final (its counts stay on the storm); free its messages, and
      // later calls are two null checks with no clock read.
      followed.messages = null
      followed = null
      return false
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
      const list = storms.map(summarize)
      return { list: open !== null && counts(open) ? [...list, summarize(open)] : list, more }
    }
  }
}
