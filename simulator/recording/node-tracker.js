/**
 * Which node served which client (--node-from): each client's node for its current
 * connection, per node the clients on it now, connects, drops, clients that came back on it
 * from another node after a reconnect (`moved`), and the deliveries its clients got or
 * missed with their relative and absolute delays. A name can arrive before the connection counts as up
 * (a cookie or header of the handshake) or after (an event the app sends on connect): it is
 * applied once both happened. Names are bounded: the first MAX_NODE_NAMES get rows of their
 * own, later ones share `other`.
 */
import { createHistogram, encode, recordMs, summarize } from '../../lib/measure/histogram.js'
import { MAX_NODE_NAMES, OTHER_NODE, imbalanceOf, nodeName } from '../../lib/input/node-from.js'

const NONE = -1
/** Deliveries held per client while its node is unknown (see `early`). */
const MAX_HELD = 64

/**
 * @typedef {import('../../lib/measure/histogram.js').Histogram} Histogram
 * @typedef {{ name: string, connected: number, connects: number, drops: number, moved: number, received: number, missing: number, relative: Histogram | null, absolute: Histogram | null }} Row
 * @typedef {ReturnType<typeof createNodeTracker>} NodeTracker
 */

/**
 * @param {object} options
 * @param {import('../../lib/input/node-from.js').NodeFrom} options.from
 * @param {number} options.clients clients the swarm may hold
 * @param {number} [options.maxNames]
 */
export function createNodeTracker ({ from, clients, maxNames = MAX_NODE_NAMES }) {
  /** Node of each client's current connection, once both the name and the connect are known. */
  const nodeOf = new Int16Array(clients).fill(NONE)
  /** Node of each client's previous connection: a reconnect elsewhere is a move. */
  const lastNode = new Int16Array(clients).fill(NONE)
  /** A name read before the connection was up (handshake cookie or header). */
  const pending = new Int16Array(clients).fill(NONE)
  const up = new Uint8Array(clients)
  /**
   * Deliveries to a client whose node is not known yet, held until it is: a server can relay a
   * line to a socket it has just joined while its connect handler is still sending the node's
   * name (python-socketio awaits the handler before its CONNECT). Few, and bounded per client.
   * @type {Map<number, { relativeMs: number[], absoluteMs: number[], missing: number }>}
   */
  const early = new Map()
  /** @type {Row[]} */
  const rows = []
  /** @type {Map<string, number>} */
  const index = new Map()
  /** Distinct names folded into `other`, counted up to a bound. */
  const folded = new Set()
  let otherIndex = NONE

  /** @param {string} name @returns {number} its row */
  function rowOf (name) {
    const known = index.get(name)
    if (known !== undefined) return known
    if (rows.length - (otherIndex === NONE ? 0 : 1) < maxNames) {
      index.set(name, rows.length)
      rows.push(newRow(name))
      return rows.length - 1
    }
    if (folded.size < 10_000) folded.add(name)
    if (otherIndex === NONE) {
      otherIndex = rows.length
      rows.push(newRow(OTHER_NODE))
    }
    return otherIndex
  }

  /** @param {number} i @param {number} k */
  function assign (i, k) {
    const was = nodeOf[i]
    if (was === k) return
    if (was !== NONE) rows[was].connected--
    const row = rows[k]
    row.connected++
    row.connects++
    if (lastNode[i] !== NONE && lastNode[i] !== k) row.moved++
    lastNode[i] = k
    nodeOf[i] = k
    const held = early.get(i)
    if (held !== undefined) {
      early.delete(i)
      row.received += held.relativeMs.length
      row.missing += held.missing
      for (const ms of held.relativeMs) recordMs(row.relative ??= createHistogram(), ms)
      for (const ms of held.absoluteMs) recordMs(row.absolute ??= createHistogram(), ms)
    }
  }

  /** @param {number} i @returns {{ relativeMs: number[], absoluteMs: number[], missing: number }} what client i got before its node was known */
  function heldFor (i) {
    let held = early.get(i)
    if (held === undefined) early.set(i, held = { relativeMs: [], absoluteMs: [], missing: 0 })
    return held
  }

  /** @param {number} i the client's node now, else its last one (a delivery counted after a drop) */
  const currentOf = (i) => (nodeOf[i] !== NONE ? nodeOf[i] : lastNode[i])

  return {
    from,

    /**
     * Client i read its node's name (a cookie, a header or an event value).
     * @param {number} i
     * @param {unknown} value
     */
    learn (i, value) {
      const name = nodeName(value)
      if (name === null) return
      if (up[i]) assign(i, rowOf(name))
      else pending[i] = rowOf(name)
    },

    /** @param {number} i its connection is up */
    connected (i) {
      up[i] = 1
      if (pending[i] !== NONE) assign(i, pending[i])
      pending[i] = NONE
    },

    /** @param {number} i its connection ended */
    disconnected (i) {
      up[i] = 0
      pending[i] = NONE
      const k = nodeOf[i]
      if (k === NONE) return
      rows[k].connected--
      rows[k].drops++
      nodeOf[i] = NONE
    },

    /**
     * A delivery to client i, `relativeMs` after the first receipt in this process and
     * `absoluteMs` after its send (NaN: the message carries no send time).
     * @param {number} i
     * @param {number} relativeMs
     * @param {number} [absoluteMs]
     */
    receipt (i, relativeMs, absoluteMs = NaN) {
      const k = currentOf(i)
      if (k === NONE) {
        const held = heldFor(i)
        if (held.relativeMs.length < MAX_HELD) {
          held.relativeMs.push(relativeMs)
          if (!Number.isNaN(absoluteMs)) held.absoluteMs.push(absoluteMs)
        }
        return
      }
      const row = rows[k]
      row.received++
      recordMs(row.relative ??= createHistogram(), relativeMs)
      // NaN: a message without a send time has no absolute delay.
      if (!Number.isNaN(absoluteMs)) recordMs(row.absolute ??= createHistogram(), absoluteMs)
    },

    /** @param {number} i a delivery client i was expected to get never came */
    missing (i) {
      const k = currentOf(i)
      if (k !== NONE) rows[k].missing++
      else heldFor(i).missing++
    },

    /** @returns {Record<string, number>} connected by node now, for the timeline */
    byNode () {
      /** @type {Record<string, number>} */
      const out = {}
      for (const row of rows) out[row.name] = row.connected
      return out
    },

    /** @returns {import('../../lib/schema/result-schema.js').NodeReport} */
    record () {
      let unknown = 0
      for (let i = 0; i < clients; i++) if (up[i] && nodeOf[i] === NONE) unknown++
      const nodes = rows.map((row, k) => {
        const relative = row.relative ?? createHistogram()
        const absolute = row.absolute ?? createHistogram()
        const { relative: _, absolute: __, ...counts } = row
        return {
          ...counts,
          ...(k === otherIndex ? { folded: folded.size } : {}),
          relative: { ...summarize(relative), histogram: encode(relative) },
          absolute: { ...summarize(absolute), histogram: encode(absolute) }
        }
      })
      return { from: from.spec, nodes, unknown, moved: nodes.reduce((n, r) => n + r.moved, 0), imbalance: imbalanceOf(nodes) }
    }
  }
}

/** @param {string} name @returns {Row} */
function newRow (name) {
  return { name, connected: 0, connects: 0, drops: 0, moved: 0, received: 0, missing: 0, relative: null, absolute: null }
}
