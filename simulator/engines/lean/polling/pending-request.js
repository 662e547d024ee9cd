/**
 * A polling request in flight, on either HTTP client (polling.js's undici one, http-builtin.js's
 * own): counted as a session handle until it is over, and callbacks that run once it is over,
 * however it ended (a graceful close waits on the POST in flight so).
 */

/** @typedef {import('../session.js').LeanSession} LeanSession */

export class PendingRequest {
  /** @param {LeanSession} session */
  constructor (session) {
    this.session = session
    this.aborted = false
    this.over = false
    /** @type {(() => void)[] | null} */
    this.waiters = null
    session.handles++
  }

  /** @param {() => void} callback */
  onSettled (callback) {
    if (this.over) callback()
    else (this.waiters ??= []).push(callback)
  }

  /** It is over: the session's handle is given back, the waiters run (once). */
  settle () {
    if (this.over) return
    this.over = true
    this.session.handleClosed()
    const waiters = this.waiters
    this.waiters = null
    if (waiters !== null) for (const w of waiters) w()
  }
}
