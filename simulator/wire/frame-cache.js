/**
 * Decode-once: a broadcast reaches every client as the same frame, so the swarm decodes it
 * once and hands every client the same (read-only) args. A small ring of the last distinct
 * event frames, bounded in count and frame size so a flood of distinct frames cannot grow
 * memory: at most `entries` frames of at most `maxFrameBytes` each (kept as text + bytes).
 */

/**
 * @typedef {{ event: string, args: unknown[] | null, ns?: number }} DecodedEvent an event as an engine decoded it (ns: its namespace's index)
 * @typedef {{ text: string, bytes: Buffer, event: string, args: unknown[] | null, ns?: number }} CachedFrame
 */

export class FrameCache {
  /**
   * @param {{ entries?: number, maxFrameBytes?: number }} [limits]
   */
  constructor ({ entries = 8, maxFrameBytes = 256 * 1024 } = {}) {
    /** @type {(CachedFrame | null)[]} */
    this.ring = new Array(entries).fill(null)
    this.maxFrameBytes = maxFrameBytes
    /** Index of the newest entry. */
    this.newest = 0
    this.hits = 0
    this.misses = 0
  }

  /**
   * The cached frame with exactly the bytes data[start, end) (a WebSocket text frame), or null.
   * @param {Buffer} data
   * @param {number} [start]
   * @param {number} [end]
   * @returns {CachedFrame | null}
   */
  findBytes (data, start = 0, end = data.length) {
    const length = end - start
    const ring = this.ring
    const size = ring.length
    // Newest first: clients receive the same broadcast one after another.
    for (let k = 0, at = this.newest; k < size; k++, at = at === 0 ? size - 1 : at - 1) {
      const entry = ring[at]
      if (entry === null) break
      if (entry.bytes.length === length && entry.bytes.compare(data, start, end) === 0) {
        this.hits++
        return entry
      }
    }
    this.misses++
    return null
  }

  /**
   * The cached frame with exactly this text (a polling packet), or null.
   * @param {string} text
   * @returns {CachedFrame | null}
   */
  findText (text) {
    const ring = this.ring
    const size = ring.length
    for (let k = 0, at = this.newest; k < size; k++, at = at === 0 ? size - 1 : at - 1) {
      const entry = ring[at]
      if (entry === null) break
      if (entry.text.length === text.length && entry.text === text) {
        this.hits++
        return entry
      }
    }
    this.misses++
    return null
  }

  /**
   * Remembers a decoded frame, unless it is too large to keep.
   * @param {string} text the frame as text
   * @param {DecodedEvent} decoded
   */
  add (text, decoded) {
    if (text.length > this.maxFrameBytes) return
    // Own copies: `text` may be a slice of a whole polling response that must not stay alive.
    const bytes = Buffer.from(text)
    if (bytes.length > this.maxFrameBytes) return
    this.newest = (this.newest + 1) % this.ring.length
    this.ring[this.newest] = { text: bytes.toString(), bytes, event: decoded.event, args: decoded.args, ns: decoded.ns ?? 0 }
  }

  /**
   * Remembers a decoded frame by its bytes data[start, end) (copied; no text: a binary frame,
   * found by findBytes only), unless it is too large to keep.
   * @param {Buffer} data
   * @param {number} start
   * @param {number} end
   * @param {DecodedEvent} decoded
   */
  addBytes (data, start, end, decoded) {
    if (end - start > this.maxFrameBytes) return
    this.newest = (this.newest + 1) % this.ring.length
    this.ring[this.newest] = { text: '', bytes: Buffer.from(data.subarray(start, end)), event: decoded.event, args: decoded.args }
  }
}
