/**
 * The test peer's record of room-targeted messages (app-server.js): where each was meant to
 * go, where it went, how many copies, and exactly which sockets got them, with the faults
 * the peer was asked to commit. One socket.io process: the sockets a room emit reaches are
 * the room's members at the time of the emit.
 *
 * GET /ledger answers:
 *   { messages: [{ kind, id, namespace, room, sentTo, copies,
 *                  recipients: [{ sid, user, inRoom, copies }], missing: [{ sid, user }] }],
 *     totals: { messages, misdelivered, duplicated, missing }, dropped }
 * sentTo: the room it went to (another one for a wrong-room fault), or "*outside*" (everyone
 * outside its room, when the namespace had no other room). Totals count (message, socket)
 * pairs: misdelivered = a socket outside the room got it; duplicated = a socket in the room
 * got it twice; missing = a socket in the room did not get it.
 */

/** Messages recorded whole; later ones are only counted as dropped. */
const MAX_ENTRIES = 10000

/**
 * @param {{ faults: { wrongRoomEvery: number, duplicateEvery: number }, identityField: string }} options
 */
export function createLedger ({ faults, identityField }) {
  /** @type {Record<string, number>} room-targeted messages so far, per kind */
  const counters = { broadcast: 0, relay: 0 }
  /** @type {any[]} */
  const entries = []
  let dropped = 0
  let ids = 0

  /** @param {any} socket */
  const identity = (socket) => {
    const { auth, query, headers } = socket?.handshake ?? {}
    return auth?.[identityField] ?? query?.[identityField] ?? headers?.[`x-${identityField}`] ?? null
  }
  return {
    nextId: () => ++ids,
    /**
     * Decides the faults of the next room-targeted message of `kind` (one decision per
     * message, whatever the namespaces it goes into).
     * @param {'broadcast' | 'relay'} kind
     */
    decide (kind) {
      const n = ++counters[kind]
      return {
        wrongRoom: faults.wrongRoomEvery > 0 && n % faults.wrongRoomEvery === 0,
        copies: faults.duplicateEvery > 0 && n % faults.duplicateEvery === 0 ? 2 : 1
      }
    },
    /**
     * Emits one message to `room` of `nsp` as decided, records who got it, and returns how
     * many sockets did.
     * @param {any} nsp a socket.io Namespace
     * @param {'broadcast' | 'relay'} kind
     * @param {{ wrongRoom: boolean, copies: number }} decision
     * @param {string} room
     * @param {string} event
     * @param {unknown} message
     * @param {unknown} id
     */
    send (nsp, kind, decision, room, event, message, id) {
      /** @type {Set<string>} */
      const members = new Set(nsp.adapter.rooms.get(room) ?? [])
      const other = decision.wrongRoom ? nextRoom(nsp, room) : room
      const receivers = other === null
        ? new Set([...nsp.sockets.keys()].filter((sid) => !members.has(sid)))
        : new Set(nsp.adapter.rooms.get(other) ?? [])
      const target = other === null ? nsp.except(room) : nsp.to(other)
      for (let c = 0; c < decision.copies; c++) target.emit(event, message)
      if (entries.length >= MAX_ENTRIES) dropped++
      else {
        entries.push({
          kind,
          id,
          namespace: nsp.name,
          room,
          sentTo: other ?? '*outside*',
          copies: decision.copies,
          recipients: [...receivers].map((sid) => ({ sid, user: identity(nsp.sockets.get(sid)), inRoom: members.has(sid), copies: decision.copies })),
          missing: [...members].filter((sid) => !receivers.has(sid)).map((sid) => ({ sid, user: identity(nsp.sockets.get(sid)) }))
        })
      }
      return receivers.size
    },
    report () {
      const totals = { messages: entries.length, misdelivered: 0, duplicated: 0, missing: 0 }
      for (const e of entries) {
        for (const r of e.recipients) {
          if (!r.inRoom) totals.misdelivered++
          else if (r.copies > 1) totals.duplicated++
        }
        totals.missing += e.missing.length
      }
      return { messages: entries, totals, dropped }
    }
  }
}

/**
 * The room after `room` among the namespace's rooms (not the sockets' own id rooms), in
 * natural order (room-2 before room-10), cyclic; null when there is no other room.
 * @param {any} nsp
 * @param {string} room
 * @returns {string | null}
 */
function nextRoom (nsp, room) {
  const natural = (/** @type {string} */ a, /** @type {string} */ b) => a.localeCompare(b, 'en', { numeric: true })
  const others = [...nsp.adapter.rooms.keys()].filter((r) => r !== room && !nsp.sockets.has(r)).sort(natural)
  if (others.length === 0) return null
  return others.find((r) => natural(r, room) > 0) ?? others[0]
}
