/**
 * A run without rounds: its lines (the app's own messages, thousands of them) rolled
 * up as their reports arrive, never kept one by one. A follower reads the new reports from the
 * collector (readSince), adds each to its (namespace, room, event) row (counts summed,
 * histograms merged: the delivery breakdown's own tallies, deliveries.js) and frees them in the
 * collector (dropMessages), so the runner and the collector hold a row per room, not a report
 * per line, however long the run. At the end the rows become the delivery breakdown (the top
 * rooms by traffic, the others folded) and a small summary: lines, reports, the first few
 * lines whole as examples.
 */
import { mergeMessageReports } from '../merge/aggregate.js'
import { followEvery } from './follow.js'
import { TOP_ROOMS, addReport, addTally, assembleBreakdown, newTally, nspOf, trafficOf } from '../merge/delivery-rows.js'
import { joinKey } from '../../lib/text/keys.js'

/**
 * @typedef {import('../collector/types.js').MessageEntry} MessageEntry
 * @typedef {import('../merge/delivery-rows.js').Tally} Tally
 * @typedef {import('../merge/delivery-rows.js').RowTally} RowTally
 * @typedef {import('../../lib/schema/result-schema.js').ClockInfo} ClockInfo
 * @typedef {import('../../lib/schema/result-schema.js').LineRollup} LineRollup
 */

/**
 * Rows (namespace, room, event) with delays of their own: each holds two live HDR histograms
 * (~70 KB each), so a chat of 10,000 rooms must not get one each. The rooms of rows past it
 * are counted, and their lines and delays go to their namespace and event's folded row; the
 * top rooms are chosen among the rows that have their own.
 */
const ROOM_ROWS = 128
/**
 * Lines kept whole as examples (their reports from every simulator, merged at the end): the
 * first ones, not the newest: a newest-first list would drop a line before every simulator's
 * report of it came, and show it partial.
 */
export const SAMPLE_LINES = 10
/**
 * How long (by the reports' first receipts) a line's key is remembered, to count it once over
 * the simulators that each report it: every simulator with a receiver in its room closes it
 * --message-timeout after its first receipt, so their reports come well within this.
 */
const KEY_MEMORY_MS = 120_000

/**
 * @typedef {{ namespace: string, room: string | null, event: string, tally: Tally, simulators: Set<string>, rooms: Set<string> | null }} Row
 *   simulators: those whose reports had an absolute delay (their clock uncertainty); rooms: a folded row's rooms, else null
 */

/**
 * @param {string} namespace @param {string | null} room @param {string} event
 * @param {boolean} [folds] a row of rooms folded together
 * @returns {Row}
 */
const newRow = (namespace, room, event, folds = false) => ({
  namespace, room, event, tally: newTally(), simulators: new Set(), rooms: folds ? new Set() : null
})

/**
 * Lines rolled up one report at a time.
 * @param {{ topRooms?: number, roomRows?: number, sampleLines?: number, keyMemoryMs?: number }} [bounds]
 */
export function createLineRollup ({ topRooms = TOP_ROOMS, roomRows = ROOM_ROWS, sampleLines = SAMPLE_LINES, keyMemoryMs = KEY_MEMORY_MS } = {}) {
  /** @type {Map<string, Row>} by namespace, room (or none) and event */
  const rows = new Map()
  /** @type {Map<string, Row>} rooms past ROOM_ROWS, by namespace and event */
  const pastBound = new Map()
  /** @type {Map<string, number>} traffic by (namespace, room), every room */
  const traffic = new Map()
  /** @type {Map<string, MessageEntry[]>} the first lines' reports */
  const sample = new Map()
  // Two generations of line keys: a key is known while in either; the older goes when the newer is keyMemoryMs / 2 old.
  let keys = { current: new Set(), previous: new Set(), since: -Infinity }
  let lines = 0
  let reports = 0

  /** @param {string} key @param {number} at the report's first receipt (epoch ms) @returns {boolean} first seen */
  function remember (key, at) {
    if (keys.current.has(key) || keys.previous.has(key)) return false
    if (at - keys.since > keyMemoryMs / 2) keys = { current: new Set(), previous: keys.current, since: at }
    keys.current.add(key)
    return true
  }

  /** @param {import('../../lib/schema/result-schema.js').MessageReport} r @returns {Row} */
  function rowOf (r) {
    const namespace = nspOf(r.namespace)
    const room = r.room ?? null
    const key = room === null ? `${namespace}\u0000\u0001\u0000${r.event}` : `${namespace}\u0000\u0002${room}\u0000${r.event}`
    let row = rows.get(key)
    if (row === undefined && rows.size < roomRows) rows.set(key, row = newRow(namespace, room, r.event))
    if (row !== undefined) return row
    // Past the bound: messages to everyone in one row per namespace and event, rooms in another.
    const folded = `${namespace}\u0000${room === null ? 1 : 2}\u0000${r.event}`
    if (!pastBound.has(folded)) pastBound.set(folded, newRow(namespace, null, r.event, room !== null))
    const other = /** @type {Row} */ (pastBound.get(folded))
    if (room !== null) other.rooms?.add(room)
    return other
  }

  return {
    /** @param {MessageEntry} entry a simulator's report of a line */
    add ({ simulator, report }) {
      reports++
      const row = rowOf(report)
      const key = joinKey(nspOf(report.namespace), report.key)
      if (remember(key, report.firstAt)) {
        lines++
        row.tally.lines++
      }
      addReport(row.tally, report)
      if (report.absolute) row.simulators.add(simulator)
      if (report.room !== null && report.room !== undefined) {
        const room = joinKey(nspOf(report.namespace), report.room)
        traffic.set(room, (traffic.get(room) ?? 0) + trafficOf(report))
      }
      const kept = sample.get(key)
      if (kept) kept.push({ simulator, report })
      else if (sample.size < sampleLines) sample.set(key, [{ simulator, report }])
    },

    /**
     * The delivery breakdown and the summary of what was rolled up.
     * @param {Record<string, ClockInfo>} clocks by simulator, for the absolute uncertainty
     * @returns {{ deliveries: import('../../lib/schema/result-schema.js').DeliveryBreakdown, lines: LineRollup }}
     */
    result (clocks) {
      /** @param {Row} row */
      const settle = (row) => {
        for (const s of row.simulators) row.tally.uncertaintyMs = Math.max(row.tally.uncertaintyMs, clocks[s]?.uncertaintyMs ?? 0)
        return row
      }
      // The top rooms by traffic among those with rows of their own.
      const withRows = new Set([...rows.values()].flatMap((r) => (r.room === null ? [] : [joinKey(r.namespace, r.room)])))
      const ranked = [...withRows].sort((a, b) => (traffic.get(b) ?? 0) - (traffic.get(a) ?? 0) || (a < b ? -1 : a > b ? 1 : 0))
      const top = new Map(ranked.slice(0, topRooms).map((room, rank) => [room, rank]))
      /** @type {RowTally[]} */
      const tallies = []
      /** @type {Map<string, Row>} */
      const folded = new Map()
      /** @param {Row} row */
      const fold = (row) => {
        const key = joinKey(row.namespace, row.event)
        if (!folded.has(key)) folded.set(key, newRow(row.namespace, null, row.event, true))
        const into = /** @type {Row} */ (folded.get(key))
        addTally(into.tally, settle(row).tally)
        for (const room of row.rooms ?? [row.room]) into.rooms?.add(/** @type {string} */ (room))
      }
      /** @param {Row} row @param {number | undefined} rank */
      const own = (row, rank) => tallies.push({ namespace: row.namespace, room: row.room, rank, folded: 0, event: row.event, tally: settle(row).tally })
      for (const row of rows.values()) {
        const rank = row.room === null ? undefined : top.get(joinKey(row.namespace, row.room))
        if (row.room !== null && rank === undefined) fold(row)
        else own(row, rank)
      }
      for (const row of pastBound.values()) {
        if (row.rooms) fold(row)
        else own(row, undefined)
      }
      for (const row of folded.values()) {
        tallies.push({ namespace: row.namespace, room: null, rank: undefined, folded: row.rooms?.size ?? 0, event: row.event, tally: row.tally })
      }
      const roomsPastBound = new Set([...pastBound.values()].flatMap((r) => [...r.rooms ?? []].map((room) => joinKey(r.namespace, room)))
        .filter((room) => !withRows.has(room))).size
      return {
        deliveries: assembleBreakdown(tallies, { topRooms, rooms: traffic.size }),
        lines: {
          lines,
          reports,
          roomRows,
          roomsPastBound,
          sample: mergeMessageReports([...sample.values()].flat(), clocks)
        }
      }
    }
  }
}

/**
 * Follows a run's message reports until `finish()`, rolling them up and freeing them in the
 * collector. The collector's copies go two reads after they were read (a second at least):
 * the live metrics (--metrics-port) read the same reports every second.
 * @param {import('../collector/types.js').Collector} collector
 * @param {string} runId
 * @param {Parameters<typeof createLineRollup>[0]} [bounds]
 */
export function followLines (collector, runId, bounds) {
  const rollup = createLineRollup(bounds)
  /** @type {import('../collector/types.js').ReadCursor | null} */
  let cursor = null
  /** @type {string[]} the cursors of the last reads, oldest first */
  const behind = []

  /** Reads what was stored since the last read (all of it, page by page). */
  async function read () {
    for (let page = 0; page < 1000; page++) {
      const got = await collector.readSince(runId, cursor)
      for (const entry of got.messages) rollup.add(entry)
      cursor = got.cursor
      if (!got.more) return
    }
  }

  /** @param {boolean} all drop everything read (the end), else what was read two reads ago */
  async function drop (all) {
    if (cursor === null) return
    behind.push(cursor.messages)
    const upTo = all ? cursor.messages : behind.length > 2 ? behind.shift() : undefined
    if (upTo !== undefined) await collector.dropMessages(runId, upTo)
  }

  const stop = followEvery(() => read().then(() => drop(false)))

  return {
    /**
     * Stops following, reads what is left (the simulators have ended) and rolls it up.
     * @returns {Promise<ReturnType<ReturnType<typeof createLineRollup>['result']>>}
     */
    async finish () {
      await stop()
      await read()
      await drop(true).catch(() => {})
      const simulators = await collector.listSimulators(runId)
      return rollup.result(Object.fromEntries(simulators.flatMap((s) => (s.clock ? [[s.id, s.clock]] : []))))
    }
  }
}
