/**
 * One timer for every client's deadline (ping timeout, connect timeout, reconnect delay):
 * a typed array of deadlines swept by a single interval, instead of a timer per client.
 * A tick before the earliest deadline costs one comparison; a due tick is one pass over a
 * Float64Array (100,000 deadlines: well under a millisecond). A timer per client would cost
 * a timer object, a closure and a heap operation each.
 */
import { performance } from 'node:perf_hooks'

export class DeadlineSweeper {
  /**
   * @param {(i: number) => void} onExpire called once when client i's deadline has passed
   * @param {number} [tickMs] sweep period: deadlines fire at most this late
   * @param {{ unref?: boolean }} [how] unref: the ticking does not keep the process alive
   */
  constructor (onExpire, tickMs = 100, { unref = false } = {}) {
    this.onExpire = onExpire
    this.tickMs = tickMs
    this.unref = unref
    /** Deadline of client i in performance.now() ms; 0 = none. */
    this.deadlines = new Float64Array(1024)
    /** One past the highest index that ever had a deadline. */
    this.end = 0
    this.active = 0
    /** No deadline is earlier than this (a lower bound: moving a deadline later keeps it). */
    this.nextDueMs = Infinity
    /** @type {NodeJS.Timeout | null} */
    this.timer = null
  }

  /**
   * Sets (or moves) client i's deadline.
   * @param {number} i
   * @param {number} atMs performance.now() time
   */
  set (i, atMs) {
    if (i >= this.deadlines.length) this.grow(i + 1)
    if (this.deadlines[i] === 0) this.active++
    this.deadlines[i] = atMs > 0 ? atMs : Number.MIN_VALUE
    if (atMs < this.nextDueMs) this.nextDueMs = atMs
    if (i >= this.end) this.end = i + 1
    // Only ticks while a deadline is pending, so an idle pool keeps no timer alive.
    if (this.timer === null) {
      this.timer = setInterval(() => this.sweep(), this.tickMs)
      if (this.unref) this.timer.unref()
    }
  }

  /**
   * Sets client i's deadline to `atMs` unless it has an earlier one.
   * @param {number} i
   * @param {number} atMs performance.now() time
   */
  lower (i, atMs) {
    const at = i < this.deadlines.length ? this.deadlines[i] : 0
    if (at === 0 || atMs < at) this.set(i, atMs)
  }

  /**
   * Sets client i's deadline `delayMs` from now.
   * @param {number} i
   * @param {number} delayMs
   */
  setIn (i, delayMs) {
    this.set(i, performance.now() + delayMs)
  }

  /**
   * Removes client i's deadline.
   * @param {number} i
   */
  clear (i) {
    if (i < this.deadlines.length && this.deadlines[i] !== 0) {
      this.deadlines[i] = 0
      this.active--
    }
  }

  /** @param {number} size */
  grow (size) {
    let length = this.deadlines.length
    while (length < size) length *= 2
    const next = new Float64Array(length)
    next.set(this.deadlines)
    this.deadlines = next
  }

  /** Fires every deadline that has passed. */
  sweep () {
    if (this.active === 0) return this.stop()
    const now = performance.now()
    if (now < this.nextDueMs) return
    // Recomputed by the pass; set() from inside onExpire lowers it as well.
    this.nextDueMs = Infinity
    let deadlines = this.deadlines
    for (let i = 0; i < this.end; i++) {
      const at = deadlines[i]
      if (at === 0) continue
      if (at <= now) {
        deadlines[i] = 0
        this.active--
        this.onExpire(i)
        deadlines = this.deadlines // onExpire may have grown the array
      } else if (at < this.nextDueMs) {
        this.nextDueMs = at
      }
    }
    if (this.active === 0) this.stop()
  }

  /** Stops ticking (pending deadlines stay recorded but no longer fire). */
  stop () {
    if (this.timer !== null) clearInterval(this.timer)
    this.timer = null
  }
}
