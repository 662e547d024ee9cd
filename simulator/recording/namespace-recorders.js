/**
 * Every delivery a swarm records: one recorder per namespace (a message on /a is expected
 * only by clients connected to /a), and the rooms clients are meant to be in and are in now.
 * A facade with the recorder's own methods, so the swarm sees one recorder whatever the
 * number of namespaces.
 */
import { createRecorder } from './recorder.js'

/**
 * @typedef {ReturnType<typeof createRecorder>} Recorder
 * @typedef {Omit<Parameters<typeof createRecorder>[0], 'namespace'>} RecorderOptions
 */

/**
 * @param {RecorderOptions & { namespaces: string[] }} options
 */
export function createDeliveries ({ namespaces, ...options }) {
  const recorders = namespaces.map((namespace) => createRecorder({ ...options, namespace }))
  /** Each client's rooms, per namespace (a room lives in one namespace): for rejoins and drops. */
  /** @type {Map<number, string[]>[]} */
  const roomsOf = namespaces.map(() => new Map())

  return {
    namespaces,

    /**
     * @param {number} i
     * @param {number} k namespace index
     * @param {boolean} isConnected
     */
    setConnected (i, k, isConnected) {
      recorders[k].setConnected(i, isConnected)
      // A session's rooms end with it: a reconnected client is in them again once it rejoins.
      if (!isConnected) for (const room of roomsOf[k].get(i) ?? []) recorders[k].setJoined(i, room, false)
    },

    /**
     * The swarm closes client `i` on purpose: in every namespace, it is not owed what it had no time to receive.
     * @param {number} i
     */
    closeOnPurpose (i) {
      for (const recorder of recorders) recorder.closeOnPurpose(i)
    },

    /**
     * The hot path: one call per client per message.
     * @param {number} i
     * @param {number} k namespace index
     * @param {string} event
     * @param {unknown[]} args
     */
    receive (i, k, event, args) {
      recorders[k].receive(i, event, args)
    },

    /**
     * Client i is meant to be in `room` of namespace k.
     * @param {number} i
     * @param {number} k
     * @param {string} room
     */
    assignRoom (i, k, room) {
      const list = roomsOf[k].get(i)
      if (list === undefined) roomsOf[k].set(i, [room])
      else if (!list.includes(room)) list.push(room)
      recorders[k].assignRoom(i, room)
    },

    /**
     * @param {number} i
     * @param {number} k
     * @param {string} room
     * @param {boolean} isIn
     */
    setJoined (i, k, room, isIn) {
      recorders[k].setJoined(i, room, isIn)
    },

    /**
     * Client i emitted `args` on namespace k: a line it never expects back (recorder.ownLine).
     * @param {number} i
     * @param {number} k
     * @param {unknown[]} args
     */
    ownLine (i, k, args) {
      recorders[k].ownLine(i, args)
    },

    /** @param {number} i @param {number} k @returns {string[]} client i's rooms in namespace k */
    roomsOf: (i, k) => roomsOf[k].get(i) ?? [],

    sweep () {
      for (const r of recorders) r.sweep()
    },

    closeAll () {
      for (const r of recorders) r.closeAll()
    },

    /** @returns {number} open messages some expected client has not received yet, over every namespace */
    undelivered () {
      return recorders.reduce((n, r) => n + r.undelivered(), 0)
    },

    /** @returns {import('../../lib/schema/result-schema.js').MessageReport[]} every namespace's kept messages, in order of first receipt */
    reports () {
      return recorders.length === 1 ? recorders[0].reports() : recorders.flatMap((r) => r.reports()).sort((a, b) => a.firstAt - b.firstAt)
    },

    /** @returns {import('../../lib/schema/result-schema.js').MessageRollup[]} */
    rollups () {
      return recorders.flatMap((r) => r.rollups())
    },

    /** @returns {import('../../lib/schema/result-schema.js').RecorderInfo} the bounds (per namespace) and what they cost, summed */
    info () {
      const infos = recorders.map((r) => r.info())
      const sum = (/** @type {'rolledUpMessages' | 'untrackedMessages' | 'untrackedReceipts' | 'lateReceipts'} */ key) => infos.reduce((s, x) => s + x[key], 0)
      return {
        ...infos[0],
        rolledUpMessages: sum('rolledUpMessages'),
        untrackedMessages: sum('untrackedMessages'),
        untrackedReceipts: sum('untrackedReceipts'),
        lateReceipts: sum('lateReceipts')
      }
    },

    /** Live figures for progress lines, summed over namespaces. */
    stats () {
      const all = recorders.map((r) => r.stats())
      const sum = (/** @type {'messages' | 'open' | 'lateReceipts' | 'untrackedReceipts'} */ key) => all.reduce((s, x) => s + x[key], 0)
      const last = all.map((x) => x.lastRelativeP99Ms).filter((v) => v !== null)
      return {
        messages: sum('messages'),
        open: sum('open'),
        lateReceipts: sum('lateReceipts'),
        untrackedReceipts: sum('untrackedReceipts'),
        lastRelativeP99Ms: last.length === 0 ? null : Math.max(...last)
      }
    }
  }
}
