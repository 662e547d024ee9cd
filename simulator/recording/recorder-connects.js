/**
 * When each client of one recorder (one namespace) connected, for "a message counts as missing
 * for a client that was connected when it was SENT": the recorder opens a message at its first
 * receipt here, which may come long after its send (a ramp's busy server, a slow relay), and a
 * client that connected in between was never owed it.
 *
 * Cheap on both paths: a connect writes its time in a typed array and in a ring of the latest
 * connects (oldest first, in time order: one process clock); a message's opening walks the ring
 * back from the newest only as far as its send time, so a message of a settled swarm costs one
 * comparison. When the send time is older than the whole ring (more connects since than it
 * holds), that opening scans the expected set instead and the ring doubles (up to one entry per
 * client), so the next such message finds its connects in the ring.
 */

/** Entries of a new ring (fewer when the recorder has fewer clients). */
const RING_START = 1024

/**
 * @param {number} clients
 */
export function createConnectBook (clients) {
  /** Wall ms (lib/measure/clock.js wallMs) at which each client's current session connected. */
  const connectedAt = new Float64Array(clients)
  let capacity = Math.max(1, Math.min(clients, RING_START))
  let ringClient = new Int32Array(capacity)
  let ringAt = new Float64Array(capacity)
  /** Connects ever noted: the newest is at (total - 1) % capacity. */
  let total = 0

  /** Doubles the ring (up to one entry per client), keeping its entries in time order. */
  function grow () {
    const next = Math.min(clients, capacity * 2)
    const nextClient = new Int32Array(next)
    const nextAt = new Float64Array(next)
    const kept = Math.min(total, capacity)
    for (let k = 0; k < kept; k++) {
      const from = (total - kept + k) % capacity
      nextClient[k] = ringClient[from]
      nextAt[k] = ringAt[from]
    }
    ringClient = nextClient
    ringAt = nextAt
    capacity = next
    total = kept
  }

  return {
    /**
     * Client `i` connected at `atMs` (wall ms, never earlier than the connect noted before it).
     * @param {number} i
     * @param {number} atMs
     */
    connected (i, atMs) {
      connectedAt[i] = atMs
      const slot = total % capacity
      ringClient[slot] = i
      ringAt[slot] = atMs
      total++
    },

    /**
     * Clears from `bits` the clients whose current session connected after `sentMs`.
     * @param {Uint32Array} bits an expected set (bit i = client i), changed in place
     * @param {number} sentMs wall ms on this process's clock
     * @returns {number} how many bits were cleared
     */
    clearAfter (bits, sentMs) {
      let cleared = 0
      const kept = Math.min(total, capacity)
      let k = 0
      for (; k < kept; k++) {
        const slot = (total - 1 - k) % capacity
        if (ringAt[slot] <= sentMs) break
        const c = ringClient[slot]
        const bit = 1 << (c & 31)
        // A client that connected again since is found at its newer entry; cleared once.
        if (connectedAt[c] > sentMs && bits[c >>> 5] & bit) {
          bits[c >>> 5] &= ~bit
          cleared++
        }
      }
      if (k < kept || total <= capacity) return cleared
      // Every connect the ring holds came after the send, and older ones were overwritten.
      if (capacity < clients) grow()
      for (let w = 0; w < bits.length; w++) {
        let word = bits[w]
        while (word !== 0) {
          const low = word & -word
          const c = w * 32 + 31 - Math.clz32(low)
          if (connectedAt[c] > sentMs) {
            bits[w] &= ~low
            cleared++
          }
          word ^= low
        }
      }
      return cleared
    }
  }
}
