/**
 * What a distribution's result takes from its message reports, from one read of them (both
 * collectors' getMessageResults): its messages, rounds and delivery breakdown. Each report's
 * histograms are decoded once: the reports of a message are merged per (round, delivery row),
 * and those merged histograms are added into the message's, its round's and its row's. Only
 * the rounds' and rows' histograms stay in memory (a few); a message's is summarised and gone.
 */
import { groupRounds, mergeMessageReports } from './aggregate.js'
import { TOP_ROOMS, deliveryBreakdown, deliveryRows } from './delivery-rows.js'
import { addHistograms, groupBy, mergedHistograms } from './sim-merge.js'
import { joinKey } from '../../lib/text/keys.js'

/**
 * @typedef {import('./sim-merge.js').Histograms} Histograms
 * @typedef {import('../collector/types.js').MessageEntry} MessageEntry
 */

/**
 * @param {MessageEntry[]} entries one per (simulator, message), as stored
 * @param {Record<string, import('../../lib/schema/result-schema.js').ClockInfo>} clocks by simulator
 * @param {import('../collector/types.js').PlannedRound[]} [planned]
 * @param {number} [topRooms]
 * @returns {import('../collector/types.js').MessageResults}
 */
export function messageResults (entries, clocks, planned, topRooms = TOP_ROOMS) {
  const layout = deliveryRows(entries, topRooms)
  /** @type {Map<number, Histograms>} */
  const byRound = new Map()
  /** @type {Map<string, Histograms>} */
  const byRow = new Map()
  /** @param {MessageEntry[]} message one message's reports @returns {Histograms} */
  const mergeMessage = (message) => {
    const parts = [...groupBy(message, (e) => joinKey(e.report.round, layout.keyOf(e.report))).values()].map((part) => {
      const merged = mergedHistograms(part.map((e) => e.report))
      const { report } = part[0]
      if (report.round !== null) addHistograms(histogramsOf(byRound, report.round), merged)
      addHistograms(histogramsOf(byRow, layout.keyOf(report)), merged)
      return merged
    })
    if (parts.length === 1) return parts[0]
    const whole = mergedHistograms([])
    for (const part of parts) addHistograms(whole, part)
    return whole
  }
  // Messages first: they fill the rounds' and rows' histograms.
  const messages = mergeMessageReports(entries, clocks, mergeMessage)
  return {
    messages,
    rounds: groupRounds(entries, clocks, planned, (round) => byRound.get(round)),
    deliveries: deliveryBreakdown(entries, clocks, { topRooms, layout, mergedOf: (row) => byRow.get(row) })
  }
}

/**
 * The histograms kept under a key, made empty the first time.
 * @template K
 * @param {Map<K, Histograms>} map
 * @param {K} key
 * @returns {Histograms}
 */
function histogramsOf (map, key) {
  let histograms = map.get(key)
  if (histograms === undefined) map.set(key, histograms = mergedHistograms([]))
  return histograms
}
