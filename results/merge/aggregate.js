/**
 * Merging what simulators reported into results, as pure functions used by both collector
 * backends: histograms are merged (true percentiles across simulators), and the 2012 rig's
 * "average of averages" is kept next to them for comparison.
 */
import { mergeEncoded, summarize, percentileCurve } from '../../lib/measure/histogram.js'
import { busyShare } from '../../lib/measure/process-sampler.js'
import { groupBy, mergeDeliveries } from './sim-merge.js'
import { mergeSimMeasures } from './measures.js'

/**
 * @typedef {import('../../lib/schema/result-schema.js').DelaySummary} DelaySummary
 * @typedef {import('../../lib/schema/result-schema.js').ClockInfo} ClockInfo
 * @typedef {import('../../lib/schema/result-schema.js').RunMessage} RunMessage
 * @typedef {import('../../lib/schema/result-schema.js').RoundResult} RoundResult
 * @typedef {import('../../lib/schema/result-schema.js').MessageFloor} MessageFloor
 * @typedef {import('../../lib/schema/result-schema.js').RoundFloor} RoundFloor
 * @typedef {import('../../lib/schema/result-schema.js').ProcessSample} ProcessSample
 * @typedef {import('../../lib/schema/result-schema.js').SimulatorSummary} SimulatorSummary
 * @typedef {import('../../lib/schema/result-schema.js').DistributionResult} DistributionResult
 * @typedef {import('../collector/types.js').MessageEntry} MessageEntry
 * @typedef {import('../collector/types.js').PlannedRound} PlannedRound
 * @typedef {import('../collector/types.js').FinalReport} FinalReport
 * @typedef {import('../collector/types.js').RunSamples} RunSamples
 * @typedef {import('./sim-merge.js').Histograms} Histograms
 */

const round3 = (/** @type {number} */ v) => Math.round(v * 1000) / 1000

/**
 * Mean of the means of non-empty summaries (unweighted: the 2012 rig's figure), or null.
 * @param {(DelaySummary | null)[]} summaries
 */
export function meanOfMeans (summaries) {
  const means = summaries.flatMap((s) => s && s.count > 0 ? [s.mean] : [])
  return means.length ? round3(means.reduce((a, b) => a + b, 0) / means.length) : null
}

/**
 * Totals, merged delays and average of averages over a set of message reports.
 * @param {MessageEntry[]} entries
 * @param {Record<string, ClockInfo>} clocks by simulator, for the absolute uncertainty
 * @param {Histograms} [merged] the entries' histograms merged already (else decoded here)
 */
function mergeEntries (entries, clocks, merged) {
  const reports = entries.map((e) => e.report)
  const { received, expected, missing, duplicates, misdelivered, echo, relative, absolute } = mergeDeliveries(reports, { histograms: false, merged })
  // A simulator that never reported its clock is taken as sharing the reference clock.
  // (A loop, not Math.max(...list): a round can hold 100,000s of reports.)
  let uncertaintyMs = 0
  for (const e of entries) if (e.report.absolute) uncertaintyMs = Math.max(uncertaintyMs, clocks[e.simulator]?.uncertaintyMs ?? 0)
  return {
    received,
    expected,
    missing,
    duplicates,
    misdelivered,
    echo,
    relative: summaryOf(relative),
    absolute: absolute && summaryOf(absolute),
    uncertaintyMs,
    avgOfAverages: {
      relativeMs: meanOfMeans(reports.map((r) => r.relative)) ?? 0,
      absoluteMs: meanOfMeans(reports.map((r) => r.absolute))
    }
  }
}

/**
 * A merged delay summary without its histogram fields.
 * @param {DelaySummary & { histogram?: unknown, negative?: number }} merged
 * @returns {DelaySummary}
 */
function summaryOf ({ histogram, negative, ...summary }) {
  return summary
}

/**
 * One message's floors over the simulators that reported one: the largest with its own
 * spread, and the largest CPU share of its spread any simulator had.
 * @param {MessageEntry[]} entries one message's, one per simulator
 * @returns {MessageFloor | null} null when no simulator reported a floor (older simulators)
 */
export function messageFloor (entries) {
  /** @type {{ cpuMs: number, spreadMs: number, simulator: string } | null} */
  let top = null
  let busyMax = 0
  for (const { report: { floor }, simulator } of entries) {
    // Absent from older simulators' reports; a malformed one is skipped, not merged as NaN.
    if (!floor || !Number.isFinite(floor.cpuMs) || !Number.isFinite(floor.spreadMs)) continue
    if (!top || floor.cpuMs > top.cpuMs) top = { cpuMs: floor.cpuMs, spreadMs: floor.spreadMs, simulator }
    busyMax = Math.max(busyMax, busyShare(floor.cpuMs, floor.spreadMs) ?? 0)
  }
  return top && { ...top, busyMax: round3(busyMax) }
}

/**
 * A round's floors: median and largest of its messages' floors (each the largest over simulators).
 * @param {MessageEntry[]} entries the round's, one per (simulator, message)
 * @returns {RoundFloor | null}
 */
function roundFloor (entries) {
  const floors = [...groupBy(entries, (e) => e.report.key).values()].flatMap((group) => messageFloor(group) ?? [])
  if (floors.length === 0) return null
  floors.sort((a, b) => a.cpuMs - b.cpuMs)
  const top = floors[floors.length - 1]
  let busyMax = 0
  for (const f of floors) busyMax = Math.max(busyMax, f.busyMax)
  return { messages: floors.length, p50Ms: floors[Math.ceil(floors.length / 2) - 1].cpuMs, maxMs: top.cpuMs, spreadAtMaxMs: top.spreadMs, busyMax }
}

/** @param {number | null} a @param {number | null} b nulls last */
const byNullable = (a, b) => a === b ? 0 : a === null ? 1 : b === null ? -1 : a - b

/**
 * One RunMessage per message key, sorted by round, seq, then first receipt.
 * @param {MessageEntry[]} entries one per (simulator, message), as stored
 * @param {Record<string, ClockInfo>} clocks by simulator
 * @param {(group: MessageEntry[]) => Histograms} [mergedOf] a message's histograms (else decoded here)
 * @returns {RunMessage[]}
 */
export function mergeMessageReports (entries, clocks, mergedOf) {
  const messages = [...groupBy(entries, (e) => e.report.key).values()].map((group) => {
    const first = group[0].report
    const { absolute, uncertaintyMs, ...merged } = mergeEntries(group, clocks, mergedOf?.(group))
    return {
      firstAt: Math.min(...group.map((e) => e.report.firstAt)),
      message: {
        key: first.key,
        id: first.id,
        ...(first.batch === undefined ? {} : { batch: first.batch }),
        event: first.event,
        namespace: first.namespace ?? '/',
        room: first.room ?? null,
        round: first.round,
        seq: first.seq,
        sentAt: group.find((e) => e.report.sentAt !== null)?.report.sentAt ?? null,
        simulators: new Set(group.map((e) => e.simulator)).size,
        ...merged,
        absolute: absolute && { ...absolute, uncertaintyMs },
        floor: messageFloor(group)
      }
    }
  })
  messages.sort((a, b) => byNullable(a.message.round, b.message.round) ||
    byNullable(a.message.seq, b.message.seq) || a.firstAt - b.firstAt)
  return messages.map((m) => m.message)
}

/**
 * One RoundResult per planned round (1-based, in order) and per other round seen.
 * Messages without a round are in no round.
 * @param {MessageEntry[]} entries
 * @param {Record<string, ClockInfo>} clocks
 * @param {PlannedRound[]} [planned]
 * @param {(round: number) => Histograms | undefined} [mergedOf] a round's histograms (else decoded here)
 * @returns {RoundResult[]}
 */
export function groupRounds (entries, clocks, planned = [], mergedOf) {
  const byRound = groupBy(entries.filter((e) => e.report.round !== null), (e) => e.report.round)
  const seen = /** @type {number[]} */ ([...byRound.keys()])
  const rounds = new Set([...planned.map((_, i) => i + 1), ...seen])
  return [...rounds].sort((a, b) => a - b).map((round) => {
    const group = byRound.get(round) ?? []
    const { absolute, uncertaintyMs, ...merged } = mergeEntries(group, clocks, mergedOf?.(round))
    return {
      round,
      count: planned[round - 1]?.count ?? 0,
      intervalMs: planned[round - 1]?.intervalMs ?? 0,
      messages: new Set(group.map((e) => e.report.key)).size,
      ...merged,
      absolute: absolute && { ...absolute, uncertaintyMs },
      floor: roundFloor(group)
    }
  })
}

/**
 * Clients summed over simulators: from their final reports, plus the planned clients of
 * simulators that never sent one (counted in the target, neither connected nor failed);
 * connect errors and disconnects by reason merged (bounded, lib/reasons.js). The counts are
 * the one merge's (measures.js); every other client count it merges is in `measured`.
 * @param {(FinalReport & { simulator: string })[]} finals
 * @param {SimulatorSummary[]} simulatorList
 * @param {import('../../lib/schema/result-schema.js').ClientCounts} [merged] the finals' clients merged, when the caller has them
 * @returns {import('../../lib/schema/result-schema.js').DistributionResult['clients']}
 */
export function sumClients (finals, simulatorList, merged = mergeSimMeasures(finals).clients) {
  const finished = new Set(finals.map((f) => f.simulator))
  const unfinished = simulatorList.filter((s) => !finished.has(s.id)).reduce((sum, s) => sum + s.clients.target, 0)
  return {
    target: (merged?.target ?? 0) + unfinished,
    connected: merged?.connected ?? 0,
    failed: merged?.failed ?? 0,
    errors: merged?.errors ?? {},
    disconnects: merged?.disconnects ?? {},
    unmeasuredEvents: merged?.unmeasuredEvents ?? {},
    // Each simulator's storms, named: a restart shows as one storm per simulator.
    storms: finals.flatMap((f) => (f.clients.storms?.list ?? []).map((s) => ({ ...s, simulator: f.simulator }))).sort((a, b) => a.startedAt - b.startedAt),
    ...optional('namespaces', merged?.namespaces)
  }
}

/**
 * `{ [key]: value }`, or nothing when the value is undefined (absent, not `undefined`, in JSON and deepEqual).
 * @template {string} K
 * @template V
 * @param {K} key
 * @param {V | undefined} value
 * @returns {{ [k in K]?: V }}
 */
function optional (key, value) {
  return /** @type {{ [k in K]?: V }} */ (value === undefined ? {} : { [key]: value })
}

/**
 * A distribution's result (e.g. 2 × 500 clients) from what the collector returned for its run.
 * @param {object} input
 * @param {string} input.name e.g. '2x500'
 * @param {number} input.simulators simulators planned
 * @param {number} input.clientsPerSimulator
 * @param {number} input.startedAt epoch ms
 * @param {number} input.endedAt
 * @param {RunMessage[]} input.messages from getMessages
 * @param {RoundResult[]} input.rounds from getRounds
 * @param {RunSamples} input.samples from getSamples
 * @param {(FinalReport & { simulator: string })[]} input.finals from getFinals
 * @param {SimulatorSummary[]} input.simulatorList from listSimulators
 * @param {import('../../lib/schema/result-schema.js').DeliveryBreakdown} [input.deliveries] from getDeliveries
 * @returns {DistributionResult}
 */
export function buildDistribution (input) {
  const { name, simulators, clientsPerSimulator, startedAt, endedAt, messages, rounds, samples, finals, simulatorList, deliveries } = input
  // What the simulators measured, merged as --workers merges one simulator's processes.
  const { scenario, nodes, custom, ...measured } = mergeSimMeasures(finals)
  const connectTime = measured.clients?.connectTime
  return {
    name,
    simulators,
    clientsPerSimulator,
    startedAt,
    endedAt,
    clients: sumClients(finals, simulatorList, measured.clients),
    simulatorList: simulatorList.map(toSimulatorSummary),
    rounds,
    messages,
    timeline: samples.timeline,
    health: samples.health,
    connectTime: connectTime ? summaryWith(connectTime) : { ...summarize(mergeEncoded([])), curve: percentileCurve(mergeEncoded([])) },
    ...optional('acceptTime', measured.clients?.acceptTime && summaryWith(measured.clients.acceptTime)),
    ...optional('tlsTime', measured.clients?.tlsTime && summaryWith(measured.clients.tlsTime)),
    server: samples.server,
    ...optional('scenario', scenario),
    ...optional('deliveries', deliveries),
    ...optional('nodes', nodes),
    ...optional('custom', custom),
    ...optional('measured', finals.length > 0 ? measured : undefined)
  }
}

/**
 * A merged delay as a distribution shows it: its summary (and curve), without the encoded histogram.
 * @template {{ histogram: string }} T
 * @param {T} delay
 * @returns {Omit<T, 'histogram'>}
 */
function summaryWith ({ histogram, ...summary }) {
  return summary
}

/**
 * Only the SimulatorSummary fields (a SimulatorStatus also carries its final report).
 * @param {SimulatorSummary} s
 * @returns {SimulatorSummary}
 */
function toSimulatorSummary (s) {
  const { id, hostname, pid, engine, transport, clients, stale, clock, health } = s
  return { id, hostname, pid, engine, transport, clients, stale, clock, health }
}
