/**
 * The state of one plain WebSocket client: a small record with no closures and no timers
 * (its deadlines live in the pool's DeadlineSweeper).
 */
import { STATE } from '../../wire/state.js'

/** @typedef {import('./ws-socket.js').PlainWsSocket | import('./raw-socket.js').PlainRawSocket} PlainSocket */

/** Where a client is in its life: the states both the lean and the plain WebSocket engine use. */
export { STATE }

export class PlainClient {
  /** @param {number} i */
  constructor (i) {
    this.i = i
    /** @type {number} one of STATE */
    this.state = STATE.IDLE
    /** Bumped whenever a connection ends: callbacks of older sockets compare and bow out. */
    this.gen = 0
    /** @type {PlainSocket | null} */
    this.ws = null
    /** Attempts since the last connection (backoff exponent). */
    this.attempts = 0
    /** The next connection is a reconnection (counted when it connects). */
    this.reconnecting = false
    /** Its reconnect was deferred by --ramp-guard's cap (its token taken): it goes when the wait is over, without asking again. */
    this.paced = false
    /** @type {string | null} this attempt's --send-on-open message, rendered */
    this.openMessage = null
  }
}
