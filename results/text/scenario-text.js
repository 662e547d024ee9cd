/**
 * Terminal lines of application scenarios, shared by the run summary (summary.js) and
 * simulate's own (simulator/reporting/summary-text.js): wrong and second copies of messages, clients per
 * namespace, joins, emits with their ack times, scenario hooks, the hooks' own figures, and the
 * delivery breakdown as a table. Names and reasons come from servers and users: every one goes through plain().
 */
import { MAX_CUSTOM_NAMES } from '../../lib/measure/custom-measures.js'
import { formatCounts, formatMs, plain, table } from '../../lib/text/format.js'
import { mergeEncoded, summarize } from '../../lib/measure/histogram.js'
import { roomLabel } from '../merge/delivery-rows.js'
import { ackTimeOf } from '../merge/scenario-merge.js'
import { joinKey } from '../../lib/text/keys.js'
import { addDeliveryCounts, emptyDeliveryCounts } from '../merge/delivery-counts.js'

/**
 * @typedef {import('../../lib/schema/result-schema.js').ScenarioReport} ScenarioReport
 * @typedef {import('../../lib/schema/result-schema.js').NamespaceCounts} NamespaceCounts
 * @typedef {import('../../lib/schema/result-schema.js').DeliveryBreakdown} DeliveryBreakdown
 */

/** Most breakdown rows a summary prints; the rest are in deliveries.csv and the report. */
const MAX_DELIVERY_ROWS = 12

/** @param {Record<string, number>} counts reasons as `reason: n, …`, each made printable */
const reasons = (counts) => plain(formatCounts(counts))
/** @param {Record<string, number>} counts */
const total = (counts) => Object.values(counts).reduce((s, n) => s + n, 0)

/**
 * Wrong and second copies, in capitals when there are any (a server that sends a room's
 * message to another room, or a message twice, is wrong whatever its delays).
 * @param {{ misdelivered: number, duplicates: number }} copies
 */
export function formatCopies ({ misdelivered, duplicates }) {
  const wrong = misdelivered > 0 ? `MISDELIVERED ${misdelivered} copies (to clients not in the message's room)` : 'misdelivered 0'
  const twice = duplicates > 0 ? `DUPLICATED ${duplicates} copies (a second copy to one client)` : 'duplicated 0'
  return `copies: ${wrong}, ${twice}`
}

/**
 * Lines back to their sender, when any came: not wrong (io.emit relays to everyone), never
 * counted as received.
 * @param {number} echo
 * @returns {string[]} one line, or none
 */
export function formatEcho (echo) {
  return echo > 0 ? [`echo: ${echo} copies of lines back to their sender (not expected of it, not counted as received)`] : []
}

/**
 * One line per namespace: connected now, connects, refusals and drops by reason.
 * @param {NamespaceCounts[] | undefined} namespaces
 * @returns {string[]}
 */
export function formatNamespaces (namespaces) {
  return (namespaces ?? []).map((n) => {
    const refused = total(n.refused)
    const drops = total(n.disconnects)
    return `namespace ${plain(n.name)}: connected ${n.connected}, connects ${n.connects}, ` +
      `refused ${refused}${refused ? ` (${reasons(n.refused)})` : ''}, drops ${drops}${drops ? ` (${reasons(n.disconnects)})` : ''}`
  })
}

/** @param {{ p50: number, p99: number, max: number, count: number } | null | undefined} d */
const times = (d) => (d && d.count > 0 ? `p50 ${formatMs(d.p50)}, p99 ${formatMs(d.p99)}, max ${formatMs(d.max)}` : '-')

/**
 * Joins, emits and the scenario's hooks, one line each.
 * @param {ScenarioReport | undefined} scenario
 * @returns {string[]}
 */
export function formatScenario (scenario) {
  if (!scenario) return []
  const lines = []
  const { joins, emits, hooks } = scenario
  if (joins) {
    const why = joins.failed ? ` (${reasons(joins.reasons)})` : ''
    lines.push(`joins (${plain(joins.event)}): sent ${joins.sent}, acked ${joins.acked}, failed ${joins.failed}${why}, ` +
      `unacked ${joins.unacked}; join time ${times(joins.time)}`)
  }
  if (emits) {
    const acks = emits.ackTime ? `ack time ${times(emits.ackTime)}` : 'acks not timed (--emit-ack)'
    lines.push(`emits (${plain(emits.event)}): ${emits.emitters} emitters, sent ${emits.sent}, acked ${emits.acked}, timed out ${emits.timedOut}, ` +
      `failed ${emits.failed}${emits.failed ? ` (${reasons(emits.reasons)})` : ''}${closedBeforeAck(emits.closed)}; ${acks}`)
  }
  if (hooks) {
    const calls = Object.entries(hooks.calls).filter(([, n]) => n > 0).map(([name, n]) => `${plain(name)} ×${n}`).join(', ') || 'none'
    const errors = total(hooks.errors)
    const e = hooks.emits
    lines.push(`scenario hooks: ${calls}; their emits: sent ${e.sent}, acked ${e.acked}, timed out ${e.timedOut}, failed ${e.failed}` +
      `${closedBeforeAck(e.closed)}; ack time ${times(e.ackTime)}`)
    lines.push(errors > 0 ? `HOOK ERRORS ${errors}: ${reasons(hooks.errors)}` : 'hook errors: none')
  }
  const r = scenario.replies
  if (r) {
    lines.push(`replies (${r.events.map(plain).join(', ') || '-'}, events instead of acks): sent ${r.sent}, replied ${r.replied}, timed out ${r.timedOut}, ` +
      `failed ${r.failed}${r.failed ? ` (${reasons(r.reasons)})` : ''}; reply time ${times(r.time)}`)
  }
  if ((emits?.ackTime?.count ?? 0) > 0 && (hooks?.emits.ackTime.count ?? 0) > 0) {
    const all = ackTimeOf(scenario)
    lines.push(`every ack (emits and hooks' emitWithAck): ${all?.count} acks, ${times(all)}`)
  }
  return lines
}

/**
 * The delivery breakdown as an aligned table, when it says more than the rounds do (rooms, or
 * several namespaces or events); null otherwise.
 * @param {DeliveryBreakdown | undefined} breakdown
 * @param {number} [maxRows]
 * @returns {string | null}
 */
export function formatDeliveryTable (breakdown, maxRows = MAX_DELIVERY_ROWS) {
  if (!breakdown || breakdown.rows.length === 0) return null
  if (breakdown.rows.length === 1 && breakdown.rows[0].room === null && breakdown.rows[0].foldedRooms === 0) return null
  const shown = breakdown.rows.slice(0, maxRows)
  const header = ['namespace', 'room', 'event', 'messages', 'reached', 'missing', 'misdelivered', 'duplicated', 'rel p50', 'rel p99', 'abs p99']
  const rows = [...shown, breakdown.total].map((r) => [
    r === breakdown.total ? 'total' : plain(r.namespace), plain(roomLabel(r)), r === breakdown.total ? '' : plain(r.event),
    r.messages, `${r.received}/${r.expected}`, r.missing, r.misdelivered, r.duplicates,
    formatMs(r.relative.count ? r.relative.p50 : null), formatMs(r.relative.count ? r.relative.p99 : null), formatMs(r.absolute?.count ? r.absolute.p99 : null)
  ])
  const more = breakdown.rows.length - shown.length
  const rooms = `${breakdown.rooms} room${breakdown.rooms === 1 ? '' : 's'}, the top ${breakdown.topRooms} by traffic listed`
  return `deliveries by namespace, room and event (${rooms}):\n${table(header, rows)}` +
    (more > 0 ? `\n… ${more} more rows in deliveries.csv and the report` : '')
}

/**
 * The app's own figures (a scenario's ctx.timing and ctx.count) as a table, one row per name,
 * and a warning when names past the bound were refused.
 * @param {import('../../lib/schema/result-schema.js').CustomReport | undefined} custom
 * @returns {string[]}
 */
export function formatCustom (custom) {
  if (!custom) return []
  const timings = Object.entries(custom.timings)
    .map(([name, t]) => [plain(name), 'timing', t.count, formatMs(t.p50), formatMs(t.p90), formatMs(t.p99), formatMs(t.max)])
  const counts = Object.entries(custom.counts).map(([name, n]) => [plain(name), 'count', n, '', '', '', ''])
  const lines = timings.length + counts.length === 0
    ? []
    : ['custom figures (ctx.timing, ctx.count):', table(['name', 'kind', 'count', 'p50', 'p90', 'p99', 'max'], [...timings, ...counts])]
  if (custom.refused > 0) {
    const names = `${custom.refusedNames.map(plain).join(', ')}${custom.refused > custom.refusedNames.length ? ', …' : ''}`
    lines.push(`CUSTOM FIGURES REFUSED: ${custom.refused} records of names past the first ${MAX_CUSTOM_NAMES} (${names})`)
  }
  return lines
}

/**
 * One line per (namespace, event) of what arrived: messages, deliveries, missing, wrong and
 * second copies, echoes, relative and absolute delays from merged histograms; the kept
 * messages and the older ones folded into rollups together. What a run of the app's own
 * traffic (a chat: thousands of lines) prints instead of a row per line.
 * @param {import('../../lib/schema/result-schema.js').MessageReport[]} messages
 * @param {import('../../lib/schema/result-schema.js').MessageRollup[]} rollups
 * @returns {string[]}
 */
export function formatEventLines (messages, rollups) {
  /** @type {Map<string, import('../merge/delivery-counts.js').DeliveryCounts & { namespace: string, event: string, messages: number, relative: string[], absolute: string[] }>} */
  const byEvent = new Map()
  /** @param {string} namespace @param {string} event */
  const of = (namespace, event) => {
    const key = joinKey(namespace, event)
    let e = byEvent.get(key)
    if (e === undefined) {
      e = { namespace, event, messages: 0, ...emptyDeliveryCounts(), relative: [], absolute: [] }
      byEvent.set(key, e)
    }
    return e
  }
  /**
   * @param {ReturnType<typeof of>} e
   * @param {import('../../lib/schema/result-schema.js').MessageRollup | import('../../lib/schema/result-schema.js').MessageReport} m
   * @param {number} n messages it stands for
   */
  const add = (e, m, n) => {
    e.messages += n
    addDeliveryCounts(e, m)
    e.relative.push(m.relative.histogram)
    if (m.absolute) e.absolute.push(m.absolute.histogram)
  }
  for (const m of messages) add(of(m.namespace ?? '/', m.event), m, 1)
  // A rollup has no namespace: its messages count under the first namespace that had its event.
  for (const g of rollups) add([...byEvent.values()].find((e) => e.event === g.event) ?? of('/', g.event), g, g.messages)
  return [...byEvent.values()].map((e) => {
    const rel = summarize(mergeEncoded(e.relative))
    const abs = summarize(mergeEncoded(e.absolute))
    const faults = [
      e.misdelivered ? `MISDELIVERED ${e.misdelivered}` : '', e.duplicates ? `DUPLICATED ${e.duplicates}` : '', e.echo ? `echo ${e.echo}` : ''
    ].filter(Boolean)
    const where = e.namespace === '/' ? '' : ` (${plain(e.namespace)})`
    return `event ${plain(e.event)}${where}: ${e.messages} messages, received ${e.received}/${e.expected}, missing ${e.missing}` +
      `${faults.length ? `, ${faults.join(', ')}` : ''}; relative ${times(rel)}${abs.count > 0 ? `; absolute ${times(abs)}` : ''}`
  })
}

/**
 * Emits whose client the swarm closed on purpose before their ack came (a ramp down, the run's end): no failure.
 * @param {number | undefined} closed
 */
function closedBeforeAck (closed) {
  return closed ? `, closed ${closed} (their client closed on purpose before the ack)` : ''
}
