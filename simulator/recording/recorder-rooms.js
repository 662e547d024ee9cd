/**
 * The rooms of one recorder (one namespace): the clients meant to be in each (assigned, from
 * --rooms / --room or a scenario's join) and those in it now (joined, and not disconnected
 * since). Until a room is assigned there are none, and a message's room field means nothing:
 * every message is for every connected client.
 */

/**
 * @typedef {{ members: Set<number>, joined: Set<number> }} Room
 * @typedef {object} RoomTarget who a message to one room is for, at its first receipt
 * @property {Uint32Array} expectedBits the room's joined clients that are connected (bit i = client i)
 * @property {number} expected how many
 * @property {Set<number>} members the clients meant to be in the room: a copy to anyone else is misdelivered
 */

export function createRoomBook () {
  /** Rooms by name; null until one is assigned. @type {Map<string, Room> | null} */
  let rooms = null
  /** @param {string} name */
  const named = (name) => {
    rooms ??= new Map()
    let room = rooms.get(name)
    if (room === undefined) rooms.set(name, room = { members: new Set(), joined: new Set() })
    return room
  }

  return {
    /** @returns {boolean} some room was assigned: a message's room field counts */
    active: () => rooms !== null,

    /**
     * Client `i` is meant to be in `room`: its copies of the room's messages are never misdelivered.
     * @param {number} i
     * @param {string} room
     */
    assign (i, room) {
      named(room).members.add(i)
    },

    /**
     * Client `i` is in `room` now (its join was acknowledged, or sent to a server that does not
     * acknowledge) or no longer (it left, or its session ended).
     * @param {number} i
     * @param {string} room
     * @param {boolean} isIn
     */
    setJoined (i, room, isIn) {
      const { joined } = named(room)
      if (isIn) joined.add(i)
      else joined.delete(i)
    },

    /**
     * Who a message to `room` is for now: its joined clients that are connected (a room unknown
     * here: no one).
     * @param {string} room
     * @param {Uint32Array} connected bit i = client i is connected
     * @returns {RoomTarget}
     */
    target (room, connected) {
      const known = rooms?.get(room)
      const expectedBits = new Uint32Array(connected.length)
      let expected = 0
      for (const c of known?.joined ?? []) {
        if (connected[c >>> 5] & (1 << (c & 31))) {
          expectedBits[c >>> 5] |= 1 << (c & 31)
          expected++
        }
      }
      return { expectedBits, expected, members: known?.members ?? new Set() }
    }
  }
}
