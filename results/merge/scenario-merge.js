/**
 * Merging what clients did besides listening (--join, --emit, --scenario: ScenarioReport) and
 * their per-namespace counts across processes: counts summed, reasons merged (bounded,
 * lib/reasons.js), histograms merged (true percentiles, never averaged). One function for
 * `simulate --workers` (merge.js) and for a run's distributions (aggregate.js).
 */
import { encode, mergeEncoded, summarize } from '../../lib/measure/histogram.js'
import { mergeReasonCounts } from '../../lib/reasons.js'

/**
 * @typedef {import('../../lib/schema/result-schema.js').ScenarioReport} ScenarioReport
 * @typedef {import('../../lib/schema/result-schema.js').NamespaceCounts} NamespaceCounts
 * @typedef {import('../../lib/schema/result-schema.js').EncodedDelay} EncodedDelay
 * @typedef {import('../../lib/schema/result-schema.js').DelaySummary} DelaySummary
 */

/**
 * Merged summary and encoded histogram of encoded delays.
 * @param {(EncodedDelay | null | undefined)[]} delays
 * @returns {EncodedDelay}
 */
function mergeEncodedDelays (delays) {
  const merged = mergeEncoded(delays.map((d) => d?.histogram))
  return { ...summarize(merged), histogram: encode(merged) }
}

/**
 * @template T
 * @param {T[]} list
 * @param {(item: T) => number | undefined} pick
 */
const sum = (list, pick) => list.reduce((total, item) => total + (pick(item) ?? 0), 0)

/**
 * Sums count records key by key (hook calls by hook name).
 * @param {(Record<string, number> | undefined)[]} records
 * @returns {Record<string, number>}
 */
function sumCounts (records) {
  /** @type {Map<string, number>} a Map: keys are data */
  const out = new Map()
  for (const record of records) {
    for (const [key, n] of Object.entries(record ?? {})) if (typeof n === 'number' && Number.isFinite(n)) out.set(key, (out.get(key) ?? 0) + n)
  }
  return Object.fromEntries(out)
}

/**
 * The ScenarioReports of several processes as one; undefined when none has any.
 * @param {(ScenarioReport | null | undefined)[]} reports
 * @returns {ScenarioReport | undefined}
 */
export function mergeScenarioReports (reports) {
  const list = reports.filter((r) => r !== null && r !== undefined && typeof r === 'object')
  if (list.length === 0) return undefined
  const joins = list.flatMap((r) => (r.joins ? [r.joins] : []))
  const emits = list.flatMap((r) => (r.emits ? [r.emits] : []))
  const hooks = list.flatMap((r) => (r.hooks ? [r.hooks] : []))
  const replies = list.flatMap((r) => (r.replies ? [r.replies] : []))
  /** @type {ScenarioReport} */
  const merged = {}
  if (joins.length > 0) {
    merged.joins = {
      event: joins[0].event,
      sent: sum(joins, (j) => j.sent),
      acked: sum(joins, (j) => j.acked),
      unacked: sum(joins, (j) => j.unacked),
      failed: sum(joins, (j) => j.failed),
      reasons: mergeReasonCounts(joins.map((j) => j.reasons)),
      time: mergeEncodedDelays(joins.map((j) => j.time))
    }
  }
  if (emits.length > 0) {
    const timed = emits.flatMap((e) => (e.ackTime ? [e.ackTime] : []))
    merged.emits = {
      event: emits[0].event,
      emitters: sum(emits, (e) => e.emitters),
      sent: sum(emits, (e) => e.sent),
      acked: sum(emits, (e) => e.acked),
      timedOut: sum(emits, (e) => e.timedOut),
      failed: sum(emits, (e) => e.failed),
      closed: sum(emits, (e) => e.closed),
      reasons: mergeReasonCounts(emits.map((e) => e.reasons)),
      ackTime: timed.length === 0 ? null : mergeEncodedDelays(timed)
    }
  }
  if (hooks.length > 0) {
    const hookEmits = hooks.map((h) => h.emits)
    merged.hooks = {
      calls: sumCounts(hooks.map((h) => h.calls)),
      errors: mergeReasonCounts(hooks.map((h) => h.errors)),
      emits: {
        sent: sum(hookEmits, (e) => e?.sent),
        acked: sum(hookEmits, (e) => e?.acked),
        timedOut: sum(hookEmits, (e) => e?.timedOut),
        failed: sum(hookEmits, (e) => e?.failed),
        closed: sum(hookEmits, (e) => e?.closed),
        ackTime: mergeEncodedDelays(hookEmits.map((e) => e?.ackTime))
      }
    }
  }
  if (replies.length > 0) {
    merged.replies = {
      events: [...new Set(replies.flatMap((r) => r.events ?? []))].slice(0, 10),
      sent: sum(replies, (r) => r.sent),
      replied: sum(replies, (r) => r.replied),
      timedOut: sum(replies, (r) => r.timedOut),
      failed: sum(replies, (r) => r.failed),
      reasons: mergeReasonCounts(replies.map((r) => r.reasons)),
      time: mergeEncodedDelays(replies.map((r) => r.time))
    }
  }
  return merged
}

/**
 * Every emit → ack round trip of a scenario: the --emit acks and the scenario hooks'
 * emitWithAck (a hook's join() is one of those; --join's acks are join times, not here),
 * merged. Null when nothing was timed.
 * @param {ScenarioReport | undefined} scenario
 * @returns {DelaySummary | null}
 */
export function ackTimeOf (scenario) {
  const parts = [scenario?.emits?.ackTime, scenario?.hooks?.emits.ackTime].filter((d) => d && d.count > 0)
  if (parts.length === 0) return null
  return summarize(mergeEncoded(parts.map((d) => d?.histogram)))
}

/**
 * Emits sent, acked, timed out, failed and closed (sent = the other four): the --emit ones and the hooks' together.
 * @param {ScenarioReport | undefined} scenario
 */
export function emitCounts (scenario) {
  const parts = [scenario?.emits, scenario?.hooks?.emits]
  return {
    sent: sum(parts, (e) => e?.sent),
    acked: sum(parts, (e) => e?.acked),
    timedOut: sum(parts, (e) => e?.timedOut),
    failed: sum(parts, (e) => e?.failed),
    closed: sum(parts, (e) => e?.closed)
  }
}

/**
 * Per-namespace counts of several processes, by namespace in order of first appearance.
 * @param {(NamespaceCounts[] | undefined)[]} lists
 * @returns {NamespaceCounts[] | undefined} undefined when no process had any
 */
export function mergeNamespaceCounts (lists) {
  /** @type {Map<string, NamespaceCounts[]>} */
  const byName = new Map()
  for (const n of lists.flatMap((l) => l ?? [])) byName.set(n.name, [...(byName.get(n.name) ?? []), n])
  if (byName.size === 0) return undefined
  return [...byName].map(([name, group]) => ({
    name,
    connected: sum(group, (n) => n.connected),
    connects: sum(group, (n) => n.connects),
    disconnects: mergeReasonCounts(group.map((n) => n.disconnects)),
    refused: mergeReasonCounts(group.map((n) => n.refused))
  }))
}

/**
 * A ScenarioReport without its encoded histograms (for summaries): the numbers only.
 * @param {ScenarioReport} scenario
 */
export function scenarioNumbers (scenario) {
  const bare = (/** @type {EncodedDelay | null | undefined} */ d) => d && summaryOnly(d)
  const { joins, emits, hooks, replies } = scenario
  return {
    ...(replies ? { replies: { ...replies, time: bare(replies.time) } } : {}),
    ...(joins ? { joins: { ...joins, time: bare(joins.time) } } : {}),
    ...(emits ? { emits: { ...emits, ackTime: bare(emits.ackTime) } } : {}),
    ...(hooks ? { hooks: { ...hooks, emits: { ...hooks.emits, ackTime: bare(hooks.emits.ackTime) } } } : {})
  }
}

/** @param {EncodedDelay} d @returns {DelaySummary} */
function summaryOnly ({ histogram, ...summary }) {
  return summary
}
