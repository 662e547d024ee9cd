/**
 * The ids of this process's own lines (a chat line a client emitted) and their senders, for
 * one recorder: no one expects its own line back, and a copy that comes back is an echo. Two
 * generations of half the bound each (the newer is set, both are read; when it is full the
 * older is dropped whole): the last REMEMBERED_KEYS / 2 to REMEMBERED_KEYS ids are kept, at
 * one Map.set per emit, with no eviction per emit (delete-oldest cost a Map.delete, an
 * iterator and a rehash now and then on every emit). An id --emit stamped (own-ids.js) names
 * its sender and is not remembered at all.
 */
import { REMEMBERED_KEYS } from './recorder-closed.js'
import { ownIdSender } from './own-ids.js'

/**
 * @param {object} spec
 * @param {import('../lib/fields.js').FieldGetter} spec.idOf a message's id field (--id-field)
 * @param {(args: unknown[]) => string} spec.contentIdOf what identifies a message without an id (the hash of its content)
 * @param {number} [spec.remembered] most ids kept
 * @param {number} [spec.clientOffset] this process's first client over the whole run (the ids --emit stamps name clients so)
 * @param {number} [spec.clients] this process's clients
 */
export function createOwnLines ({ idOf, contentIdOf, remembered = REMEMBERED_KEYS, clientOffset = 0, clients = 0 }) {
  /** @type {Map<string, number>} */
  let own = new Map()
  /** @type {Map<string, number>} */
  let ownBefore = new Map()
  /** @param {string} id @param {number} i */
  const remember = (id, i) => {
    if (own.size >= remembered / 2) {
      ownBefore = own
      own = new Map()
    }
    own.set(id, i)
  }

  return {
    /**
     * Client `i` emitted `args`. The line is known by what identifies it on arrival: its id
     * (stamped, or at --id-field); for a string, the string itself too (a server that wraps
     * it, `{ user, message: "<it>" }` read with `--id-field message`); else the hash of its
     * content (relayed unchanged).
     * @param {number} i
     * @param {unknown[]} args
     */
    note (i, args) {
      const first = args[0]
      if (first !== null && typeof first === 'object' && !Buffer.isBuffer(first)) {
        const id = idOf(first)
        // An id --emit stamped for this client is read back by take(): nothing to remember.
        if (typeof id === 'string' && ownIdSender(id, clientOffset, clients) === i) return
        if (typeof id === 'string' || typeof id === 'number') return remember(String(id), i)
      } else if (typeof first === 'string') remember(first, i)
      remember(contentIdOf(args), i)
    },

    /**
     * The sender of one of this process's own lines, forgotten once asked; undefined: not one of them (or forgotten).
     * @param {string} id
     * @returns {number | undefined}
     */
    take (id) {
      let sender = own.get(id)
      if (sender !== undefined) own.delete(id)
      else {
        sender = ownBefore.get(id)
        if (sender !== undefined) ownBefore.delete(id)
      }
      if (sender !== undefined) return sender
      const stamper = ownIdSender(id, clientOffset, clients)
      return stamper === -1 ? undefined : stamper
    }
  }
}
