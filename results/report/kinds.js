/**
 * What a result file is, decided once (resultKind), and each kind as a report reads it: a run
 * result as it is; a simulate result (`ioswarm simulate --json`, one process or --workers) as
 * a run of one distribution with one simulator, merged by the same functions a run's
 * collector uses, so every table, chart and threshold reads it unchanged; a capacity result
 * as it is (its own page). Pure functions of the parsed JSON.
 */
import { isSaturated } from '../../lib/measure/process-sampler.js'
import { groupRounds, mergeMessageReports } from '../merge/aggregate.js'
import { deliveryBreakdown } from '../merge/delivery-rows.js'
import { RELATIVE_NOTE } from '../merge/sim-merge.js'
import { windowRow } from '../merge/measures.js'
import { mergeCustomReports } from '../../lib/measure/custom-measures.js'
import { mergeScenarioReports } from '../merge/scenario-merge.js'

/**
 * @typedef {import('../../lib/schema/result-schema.js').RunResult} RunResult
 * @typedef {import('../../lib/schema/result-schema.js').SimResult} SimResult
 * @typedef {import('../../lib/schema/result-schema.js').MessageRollup} MessageRollup
 * @typedef {import('../../lib/schema/result-schema.js').MessageReport} MessageReport
 * @typedef {import('../../lib/schema/capacity-schema.js').CapacityResult} CapacityResult
 * @typedef {'run' | 'simulator' | 'capacity'} ResultKind
 * @typedef {{ kind: 'run' | 'simulator', result: RunResult } | { kind: 'capacity', result: CapacityResult }} Reportable
 *   what a report is built from: a simulator result already read as a run
 */

/** The kinds of result a report reads, by their `kind` field. */
export const RESULT_KINDS = Object.freeze(/** @type {const} */ (['run', 'simulator', 'capacity']))

/**
 * The kind of a parsed result, or null when its `kind` is none a report reads.
 * @param {unknown} value
 * @returns {ResultKind | null}
 */
export function resultKind (value) {
  const kind = /** @type {{ kind?: unknown } | null} */ (value)?.kind
  return RESULT_KINDS.find((k) => k === kind) ?? null
}

/**
 * A checked result as a report reads it.
 * @param {RunResult | SimResult | CapacityResult} result
 * @returns {Reportable}
 */
export function toReportable (result) {
  if (result.kind === 'capacity') return { kind: 'capacity', result }
  if (result.kind === 'simulator') return { kind: 'simulator', result: simulatorAsRun(result) }
  return { kind: 'run', result }
}

/**
 * A simulate result as a run of one distribution (`1x<clients>`) with one simulator. Older
 * messages the simulator folded into rollups (--keep-messages) count in the rounds and the
 * delivery breakdown, not as messages of their own.
 * @param {SimResult} sim
 * @returns {RunResult}
 */
export function simulatorAsRun (sim) {
  const entries = sim.messages.map((report) => ({ simulator: sim.id, report }))
  const folded = [...entries, ...(sim.messageRollups ?? []).map((g, i) => ({ simulator: sim.id, report: rollupReport(g, i) }))]
  const clocks = { [sim.id]: sim.clock }
  const c = sim.clients
  const { histogram, curve, ...connectSummary } = c.connectTime
  const scenario = mergeScenarioReports([sim.scenario])
  // Through the merge: a result read from a file is not trusted (names checked again).
  const custom = mergeCustomReports([sim.custom])
  const transport = String(sim.options.transport ?? Object.keys(c.byTransport).join(','))
  const workers = sim.workers?.list.length ?? 0
  const distribution = {
    name: `1x${c.target}`,
    simulators: 1,
    clientsPerSimulator: c.target,
    startedAt: sim.startedAt,
    endedAt: sim.endedAt,
    clients: {
      target: c.target,
      connected: c.connected,
      failed: c.failed,
      errors: c.errors,
      disconnects: c.disconnects,
      unmeasuredEvents: c.unmeasuredEvents ?? {},
      storms: (c.storms?.list ?? []).map((s) => ({ ...s, simulator: sim.id })),
      ...(c.namespaces ? { namespaces: c.namespaces } : {})
    },
    simulatorList: [{
      id: sim.id,
      hostname: sim.host.hostname,
      pid: sim.pid,
      engine: sim.engine,
      transport,
      clients: { target: c.target, connected: c.connected, failed: c.failed },
      stale: false,
      clock: sim.clock,
      health: sim.health.summary
    }],
    rounds: groupRounds(folded, clocks),
    messages: mergeMessageReports(entries, clocks),
    timeline: sim.timeline.map((p) => ({ ...p, simulator: sim.id })),
    health: healthSeries(sim, workers > 0),
    connectTime: { ...connectSummary, curve },
    ...(c.acceptTime ? { acceptTime: withoutHistogram(c.acceptTime) } : {}),
    ...(c.tlsTime ? { tlsTime: withoutHistogram(c.tlsTime) } : {}),
    server: [],
    // What a run's distribution carries as `measured` and the report reads there (the logins).
    measured: { clients: c, health: sim.health.summary, ...(sim.logins ? { logins: sim.logins } : {}) },
    ...(scenario ? { scenario } : {}),
    ...(custom ? { custom } : {}),
    deliveries: countRolledUp(deliveryBreakdown(folded, clocks), sim.messageRollups ?? []),
    // --window: its windows, as a run keeps them (summaries), whole-numbered ones only (a file is not trusted).
    ...(Array.isArray(sim.windows) ? { windows: sim.windows.filter((w) => Number.isSafeInteger(w?.index)).map(windowRow) } : {})
  }
  return {
    schemaVersion: sim.schemaVersion,
    kind: 'run',
    run: { id: sim.id, name: `simulate ${sim.id}`, startedAt: sim.startedAt, endedAt: sim.endedAt, collector: 'memory' },
    tool: sim.tool,
    host: sim.host,
    options: sim.options,
    target: { url: (sim.destinations ?? []).map((d) => d.url).join(', ') || String(sim.options.url ?? ''), reference: false },
    distributions: [distribution],
    // Its steering actions (simulate's dashboard or Ctrl-C), as a run keeps them.
    ...(Array.isArray(sim.actions) && sim.actions.length > 0 ? { actions: sim.actions } : {}),
    from: { kind: 'simulator', workers, workersNote: workers > 0 ? RELATIVE_NOTE : null, rolledUpMessages: sim.recorder?.rolledUpMessages ?? 0 }
  }
}

/**
 * A rollup as one message report of its (event, round), so rounds and the breakdown count it.
 * @param {MessageRollup} g
 * @param {number} i
 * @returns {MessageReport}
 */
function rollupReport (g, i) {
  return {
    key: `\u0000rollup ${i}`,
    id: `(${g.messages} rolled-up messages)`,
    event: g.event,
    round: g.round,
    seq: null,
    sentAt: null,
    firstAt: g.firstAt,
    received: g.received,
    expected: g.expected,
    missing: g.missing,
    duplicates: g.duplicates,
    misdelivered: g.misdelivered ?? 0,
    late: g.late,
    relative: g.relative,
    absolute: g.absolute
  }
}

/**
 * The breakdown counts each rollup as one message (one report); it stands for `messages`. A
 * rollup's report lands in the row of its event for everyone on '/' (it carries no namespace
 * or room), so that row, the namespace's and the total count the rest.
 * @param {import('../../lib/schema/result-schema.js').DeliveryBreakdown} breakdown
 * @param {MessageRollup[]} rollups
 */
function countRolledUp (breakdown, rollups) {
  for (const g of rollups) {
    const more = g.messages - 1
    const own = breakdown.rows.find((r) => r.namespace === '/' && r.room === null && r.foldedRooms === 0 && r.event === g.event)
    for (const row of [own, breakdown.namespaces.find((r) => r.namespace === '/'), breakdown.total]) if (row) row.messages += more
  }
  return breakdown
}

/**
 * The simulator's one-second health samples, each flagged saturated as a run's collector does.
 * With --workers the samples of every worker are interleaved: per second, the worst worker's.
 * @param {SimResult} sim
 * @param {boolean} workers
 */
function healthSeries (sim, workers) {
  let samples = sim.health.samples
  if (workers) {
    /** @type {Map<number, import('../../lib/schema/result-schema.js').ProcessSample>} */
    const bySecond = new Map()
    for (const s of samples) {
      const second = Math.floor(s.t / 1000)
      const into = /** @type {Record<string, number> | undefined} */ (bySecond.get(second))
      const worst = into && Object.fromEntries(Object.entries(s).map(([k, v]) => [k, k === 't' ? into.t : Math.max(v, into[k])]))
      bySecond.set(second, /** @type {typeof s} */ (worst || s))
    }
    samples = [...bySecond.values()]
  }
  return samples.map((s) => ({ ...s, simulator: sim.id, saturated: isSaturated(s) }))
}

/**
 * @param {import('../../lib/schema/result-schema.js').EncodedDelay} delay
 * @returns {import('../../lib/schema/result-schema.js').DelaySummary}
 */
function withoutHistogram ({ histogram, ...summary }) {
  return summary
}
