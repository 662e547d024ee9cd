/**
 * The ids of this process's own lines (a chat line a client emitted), their senders and send
 * times, for one recorder: no one expects its own line back, a copy that comes back is an echo,
 * and a client that connected after the line was sent does not expect it. Two generations of half
 * the bound each (the newer is set, both are read; after half the bound of ids the older is
 * dropped whole): the last REMEMBERED_KEYS / 2 to REMEMBERED_KEYS ids are kept, at one Map.set
 * per emit, with no eviction per emit (delete-oldest cost a Map.delete, an iterator and a rehash
 * now and then on every emit). An id's sender and send time sit in typed rings of the bound,
 * indexed by its number among the ids (the Map's value), so an entry costs no object. An id
 * --emit stamped (own-ids.js) names its sender and is not remembered at all (its send time is
 * in its own sentAt field).
 */
import { REMEMBERED_KEYS } from './recorder-closed.js'
import { wallMs } from '../../lib/measure/clock.js'
import { ownIdSender } from '../traffic/own-ids.js'

/**
 * @param {object} spec
 * @param {import('../../lib/input/fields.js').FieldGetter} spec.idOf a message's id field (--id-field)
 * @param {(args: unknown[]) => string} spec.contentIdOf what identifies a message without an id (the hash of its content)
 * @param {number} [spec.remembered] most ids kept
 * @param {number} [spec.clientOffset] this process's first client over the whole run (the ids --emit stamps name clients so)
 * @param {number} [spec.clients] this process's clients
 */
export function createOwnLines ({ idOf, contentIdOf, remembered = REMEMBERED_KEYS, clientOffset = 0, clients = 0 }) {
  const half = Math.max(1, Math.floor(remembered / 2))
  /** Id → its number among the ids remembered (count below), for the rings. @type {Map<string, number>} */
  let own = new Map()
  /** @type {Map<string, number>} */
  let ownBefore = new Map()
  let count = 0
  /** The rings, made at the first id remembered (--emit's stamped lines need none). @type {Int32Array | null} */
  let senders = null
  /** @type {Float64Array} */
  let sentAt = new Float64Array(0)
  /** The send time of the line take() last told of, or NaN. */
  let takenSentMs = NaN
  /** An id lives two generations, so its slot (count modulo the rings) is rewritten only once it is dropped. */
  const remember = (/** @type {string} */ id, /** @type {number} */ i, /** @type {number} */ atMs) => {
    if (count > 0 && count % half === 0) {
      ownBefore = own
      own = new Map()
    }
    if (senders === null) {
      senders = new Int32Array(2 * half)
      sentAt = new Float64Array(2 * half)
    }
    const slot = count % (2 * half)
    senders[slot] = i
    sentAt[slot] = atMs
    own.set(id, count++)
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
        if (typeof id === 'string' || typeof id === 'number') return remember(String(id), i, wallMs())
      }
      // One send time for both names a string line is known by.
      const atMs = wallMs()
      if (typeof first === 'string') remember(first, i, atMs)
      remember(contentIdOf(args), i, atMs)
    },

    /**
     * The sender of one of this process's own lines, forgotten once asked; undefined: not one of them (or forgotten).
     * @param {string} id
     * @returns {number | undefined}
     */
    take (id) {
      let n = own.get(id)
      if (n !== undefined) own.delete(id)
      else {
        n = ownBefore.get(id)
        if (n !== undefined) ownBefore.delete(id)
      }
      takenSentMs = NaN
      if (n !== undefined && senders !== null) {
        takenSentMs = sentAt[n % (2 * half)]
        return senders[n % (2 * half)]
      }
      const stamper = ownIdSender(id, clientOffset, clients)
      return stamper === -1 ? undefined : stamper
    },

    /**
     * When the line take() last told of was emitted (wall ms on this process's clock); NaN for
     * an id --emit stamped (its sentAt field says) or a line that is not this process's.
     * @returns {number}
     */
    sentMs: () => takenSentMs
  }
}
