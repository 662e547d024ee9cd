/**
 * One timer for many clients' next moments (each emitter's next emit): a binary min-heap of
 * (deadline, client) in typed arrays, and a single setTimeout armed for the earliest. A timer
 * per emit would cost a Timeout object, a closure and a timer-list insertion each, and wake
 * the loop once per emit; here an emit costs a heap move (log n comparisons), and every
 * deadline due by the time the one timer fires is run in that one wake-up. Millisecond
 * precision, as setTimeout's. Unlike DeadlineSweeper (scheduler.js: coarse ticks, a pass over
 * every client), a wake-up costs only the due entries, so it suits deadlines ~1 ms apart.
 */
import { performance } from 'node:perf_hooks'

export class DeadlineHeap {
  /**
   * @param {(i: number) => void} onDue called once when client i's deadline has come (it may set it again)
   */
  constructor (onDue) {
    this.onDue = onDue
    /** Heap order: the client at each heap slot, and its deadline (performance.now() ms). */
    this.slots = new Int32Array(64)
    this.at = new Float64Array(64)
    /** Client i's heap slot, -1 = none. */
    this.slotOf = new Int32Array(64).fill(-1)
    this.size = 0
    /** @type {NodeJS.Timeout | null} */
    this.timer = null
    /** When the armed timer fires (Infinity: none armed). */
    this.armedAt = Infinity
    /** The deadline of the entry onDue is called for (it may be a little past: the timer's grain and the loop's delay). */
    this.dueAt = 0
    /** Inside run(): deadlines set by onDue are armed for once, at its end. */
    this.running = false
    this.run = this.run.bind(this)
  }

  /** @param {number} i @returns {boolean} client i has a deadline */
  has (i) {
    return i < this.slotOf.length && this.slotOf[i] !== -1
  }

  /**
   * Sets (or moves) client i's deadline to `delayMs` from now.
   * @param {number} i
   * @param {number} delayMs
   */
  setIn (i, delayMs) {
    this.setAt(i, performance.now() + delayMs)
  }

  /**
   * Sets (or moves) client i's deadline.
   * @param {number} i
   * @param {number} atMs performance.now() time
   */
  setAt (i, atMs) {
    if (i >= this.slotOf.length) this.growClients(i + 1)
    let slot = this.slotOf[i]
    if (slot === -1) {
      if (this.size === this.slots.length) this.growHeap()
      slot = this.size++
      this.slots[slot] = i
      this.slotOf[i] = slot
      this.at[slot] = atMs
      this.up(slot)
    } else {
      const before = this.at[slot]
      this.at[slot] = atMs
      if (atMs < before) this.up(slot)
      else this.down(slot)
    }
    // Re-armed only for a deadline at least a millisecond before the armed one (setTimeout's grain).
    if (atMs < this.armedAt - 1 && !this.running) this.arm(atMs)
  }

  /**
   * Removes client i's deadline.
   * @param {number} i
   */
  clear (i) {
    if (!this.has(i)) return
    const slot = this.slotOf[i]
    this.slotOf[i] = -1
    const last = --this.size
    if (slot !== last) {
      this.place(slot, this.slots[last], this.at[last])
      this.up(slot)
      this.down(slot)
    }
    if (this.size === 0) this.disarm()
  }

  /** Removes every deadline. */
  clearAll () {
    for (let s = 0; s < this.size; s++) this.slotOf[this.slots[s]] = -1
    this.size = 0
    this.disarm()
  }

  /** @returns {number[]} the clients that have a deadline */
  clients () {
    return Array.from(this.slots.subarray(0, this.size))
  }

  /** The timer: runs every deadline that has come, then arms for the next. */
  run () {
    this.timer = null
    this.armedAt = Infinity
    // Up to a millisecond early (setTimeout's grain; it counts from the loop's cached time, so it may fire a little early).
    const now = performance.now() + 1
    this.running = true
    try {
      // Bounded: a deadline set again inside onDue for now or earlier (a zero gap) runs at the next wake-up, not in this loop forever.
      for (let budget = this.size; budget > 0 && this.size > 0 && this.at[0] <= now; budget--) {
        const i = this.slots[0]
        this.dueAt = this.at[0]
        this.clear(i)
        this.onDue(i)
      }
    } finally {
      this.running = false
    }
    if (this.size > 0 && this.at[0] < this.armedAt - 1) this.arm(this.at[0])
  }

  /** @param {number} atMs */
  arm (atMs) {
    if (this.timer !== null) clearTimeout(this.timer)
    this.armedAt = atMs
    this.timer = setTimeout(this.run, Math.max(0, atMs - performance.now()))
  }

  disarm () {
    if (this.timer !== null) clearTimeout(this.timer)
    this.timer = null
    this.armedAt = Infinity
  }

  /** @param {number} slot @param {number} i @param {number} atMs */
  place (slot, i, atMs) {
    this.slots[slot] = i
    this.at[slot] = atMs
    this.slotOf[i] = slot
  }

  /** @param {number} slot */
  up (slot) {
    const i = this.slots[slot]
    const atMs = this.at[slot]
    while (slot > 0) {
      const parent = (slot - 1) >> 1
      if (this.at[parent] <= atMs) break
      this.place(slot, this.slots[parent], this.at[parent])
      slot = parent
    }
    this.place(slot, i, atMs)
  }

  /** @param {number} slot */
  down (slot) {
    const i = this.slots[slot]
    const atMs = this.at[slot]
    for (;;) {
      let child = 2 * slot + 1
      if (child >= this.size) break
      if (child + 1 < this.size && this.at[child + 1] < this.at[child]) child++
      if (this.at[child] >= atMs) break
      this.place(slot, this.slots[child], this.at[child])
      slot = child
    }
    this.place(slot, i, atMs)
  }

  /** @param {number} size */
  growClients (size) {
    let length = this.slotOf.length
    while (length < size) length *= 2
    const next = new Int32Array(length).fill(-1)
    next.set(this.slotOf)
    this.slotOf = next
  }

  growHeap () {
    const slots = new Int32Array(this.slots.length * 2)
    slots.set(this.slots)
    const at = new Float64Array(this.at.length * 2)
    at.set(this.at)
    this.slots = slots
    this.at = at
  }
}
