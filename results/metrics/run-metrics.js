/**
 * The live metrics of a run (or of one simulator): prom-client metrics fed from what the
 * collector already receives — simulator registrations, one-second samples (with the clients'
 * emits, acks, replies and custom figures of that second), closed message reports, final
 * reports, server samples, the simulator list and the rounds — never from the simulator's
 * per-receipt path.
 */
import client from 'prom-client'
import { metricMakers, setQuantiles } from './makers.js'
import { isSaturated } from '../../lib/measure/process-sampler.js'
import { createHdrHistogramMetric } from './families/hdr-histogram-metric.js'
import { boundedGaugeSetter, createLabelBound } from './labels.js'
import { createRoomMetrics } from './families/room-metrics.js'
import { createStormMetrics } from './families/storm-metrics.js'
import { createCustomMetrics } from './families/custom-metrics.js'
import { createScenarioMetrics } from './families/scenario-metrics.js'
import { createFigureMetrics } from './families/figure-metrics.js'

/** Simulators with their own series (a fleet bigger than this folds the rest into "other"). */
const MAX_SIMULATOR_LABELS = 200
/** Reasons with their own series (lib/reasons.js bounds them to 50 per simulator already). */
const MAX_REASON_LABELS = 20

/**
 * @typedef {import('../collector/types.js').SampleReport} SampleReport
 * @typedef {import('../../lib/schema/result-schema.js').MessageReport} MessageReport
 * @typedef {import('../../lib/schema/result-schema.js').ServerSample} ServerSample
 * @typedef {import('../../lib/schema/result-schema.js').RoundResult} RoundResult
 * @typedef {import('../collector/types.js').SimulatorStatus} SimulatorStatus
 * @typedef {import('../collector/types.js').FinalReport} FinalReport
 * @typedef {ReturnType<typeof createRunMetrics>} RunMetrics
 */

/**
 * @param {{ run: string, distribution?: string, maxSimulators?: number, maxReasons?: number, maxNamespaces?: number, maxRooms?: number }} labels
 */
export function createRunMetrics ({ run, distribution = '', maxSimulators = MAX_SIMULATOR_LABELS, maxReasons = MAX_REASON_LABELS, maxNamespaces, maxRooms }) {
  const registry = new client.Registry()
  registry.setDefaultLabels({ run, distribution })
  const simulators = createLabelBound(maxSimulators)
  const reasons = createLabelBound(maxReasons)
  const sim = (/** @type {string} */ id) => simulators.value(id)
  const { gauge: g, counter: c } = metricMakers(registry)

  const m = {
    connected: g('ioswarm_clients_connected', 'Clients connected now, by the transport in use', ['simulator', 'transport']),
    target: g('ioswarm_clients_target', 'Clients the simulator opens', ['simulator', 'transport']),
    up: g('ioswarm_simulator_up', '1 while the simulator heartbeats, 0 once it stopped', ['simulator']),
    connects: c('ioswarm_connects_total', 'Connections established', ['simulator']),
    connectErrors: c('ioswarm_connect_errors_total', 'Connect errors', ['simulator']),
    disconnects: c('ioswarm_disconnects_total', 'Disconnects', ['simulator']),
    errorsByReason: g('ioswarm_connect_errors_by_reason', 'Connect errors by reason, from the simulators\' final reports', ['reason']),
    disconnectsByReason: g('ioswarm_disconnects_by_reason', 'Disconnects by reason, from the simulators\' final reports', ['reason']),
    messages: c('ioswarm_messages_total', 'Messages seen (closed reports)', ['simulator']),
    received: c('ioswarm_messages_received_total', 'Deliveries: distinct clients that got a message', ['simulator']),
    expected: c('ioswarm_messages_expected_total', 'Deliveries expected: clients connected at a message\'s first receipt', ['simulator']),
    missing: c('ioswarm_messages_missing_total', 'Deliveries missing: connected when the message was sent, never received', ['simulator']),
    relative: createHdrHistogramMetric({
      registry,
      name: 'ioswarm_message_relative_delay_seconds',
      help: 'Delay of each client after the first receipt in its simulator',
      labelNames: ['simulator']
    }),
    absolute: createHdrHistogramMetric({
      registry,
      name: 'ioswarm_message_latency_seconds',
      help: 'Absolute latency sentAt to receipt, clock-corrected',
      labelNames: ['simulator']
    }),
    roundNumber: g('ioswarm_round_last', 'The last completed round (rounds with every message reported)'),
    roundRelative: g('ioswarm_round_relative_delay_seconds',
      'Exact HDR percentiles of the relative delay over the last completed round, all simulators merged', ['quantile']),
    roundAbsolute: g('ioswarm_round_latency_seconds',
      'Exact HDR percentiles of the absolute latency over the last completed round, all simulators merged', ['quantile']),
    roundMissing: g('ioswarm_round_missing', 'Missing deliveries in the last completed round'),
    loopDelay: g('ioswarm_simulator_loop_delay_p99_seconds', 'Simulator event-loop delay p99 over the last second', ['simulator']),
    cpu: g('ioswarm_simulator_cpu_percent', 'Simulator CPU over the last second, % of one core', ['simulator']),
    rss: g('ioswarm_simulator_rss_bytes', 'Simulator resident memory', ['simulator']),
    saturated: g('ioswarm_simulator_saturated', '1 when the simulator itself was saturated in the last second (its numbers are suspect)', ['simulator']),
    serverConnected: g('ioswarm_server_clients_connected', 'Clients connected to the server, by transport (server probe)', ['transport']),
    serverCpu: g('ioswarm_server_cpu_percent', 'Server CPU over the last second, % of one core (server probe)'),
    serverRss: g('ioswarm_server_rss_bytes', 'Server resident memory (server probe)'),
    serverLoopDelay: g('ioswarm_server_loop_delay_p99_seconds', 'Server event-loop delay p99 (server probe)')
  }
  const byRoom = createRoomMetrics(registry, { maxNamespaces, maxRooms })
  const storms = createStormMetrics(registry)
  const custom = createCustomMetrics(registry)
  const scenario = createScenarioMetrics(registry)
  const figures = createFigureMetrics(registry)
  let finalsSeen = -1
  /** @type {Map<string, number>} simulator → newest sample time applied */
  const lastSampleAt = new Map()
  // Per-simulator gauges: past the bound, "other" is the sum (counts) or the largest (health).
  const set = Object.fromEntries(/** @type {const} */ ([
    ['connected', 'sum'], ['target', 'sum'], ['up', 'sum'], ['loopDelay', 'max'], ['cpu', 'max'], ['rss', 'max'], ['saturated', 'max']
  ]).map(([name, combine]) => [name, boundedGaugeSetter(m[name], 'simulator', simulators, combine)]))
  /** @param {string} simId @param {string} mix @param {number} clients */
  const setTarget = (simId, mix, clients) => {
    for (const [transport, share] of transportShares(mix)) set.target(simId, { transport }, Math.round(clients * share))
  }

  return {
    registry,
    /**
     * A simulator registered: its target by transport mix (`websocket:70,polling:30`).
     * @param {{ id: string, clients: number, transport: string }} info
     */
    observeSimulator (info) {
      setTarget(info.id, info.transport, info.clients)
      set.up(info.id, {}, 1)
    },
    /**
     * One second of a simulator (its clients' emits, acks, replies and custom figures in it too);
     * applied once per (simulator, t), so it can be fed twice.
     * @param {string} simId
     * @param {SampleReport} sample
     */
    observeSample (simId, { timeline, health, figures: second }) {
      if ((lastSampleAt.get(simId) ?? -Infinity) >= timeline.t) return
      lastSampleAt.set(simId, timeline.t)
      const simulator = sim(simId)
      for (const [transport, n] of Object.entries(timeline.byTransport)) set.connected(simId, { transport }, n)
      m.connects.inc({ simulator }, timeline.connects)
      m.connectErrors.inc({ simulator }, timeline.errors)
      m.disconnects.inc({ simulator }, timeline.disconnects)
      set.loopDelay(simId, {}, health.loopDelayP99Ms / 1000)
      set.cpu(simId, {}, health.cpuPct)
      set.rss(simId, {}, health.rssBytes)
      set.saturated(simId, {}, isSaturated(health) ? 1 : 0)
      figures.observeSample(simId, second)
    },
    /**
     * A closed message report: counts, and its HDR histograms into the Prometheus buckets.
     * @param {string} simId
     * @param {MessageReport} report
     */
    observeMessage (simId, report) {
      const simulator = sim(simId)
      m.messages.inc({ simulator })
      m.received.inc({ simulator }, report.received)
      m.expected.inc({ simulator }, report.expected)
      m.missing.inc({ simulator }, report.missing)
      m.relative.addEncoded({ simulator }, report.relative.histogram)
      m.absolute.addEncoded({ simulator }, report.absolute?.histogram)
      byRoom.observeMessage(report)
    },
    /**
     * Final reports of every simulator so far: reasons summed (their keys are bounded already), storms, custom figures, emits and
     * replies (each simulator's share of the live figures raised to its final ones).
     * @param {(FinalReport & { simulator: string })[]} finals
     */
    observeFinals (finals) {
      // Final reports only come: they are summed and merged again only when one more did.
      if (finals.length === finalsSeen) return
      finalsSeen = finals.length
      setByReason(m.errorsByReason, reasons, finals.map((f) => f.clients.errors))
      setByReason(m.disconnectsByReason, reasons, finals.map((f) => f.clients.disconnects))
      storms.observeFinals(finals)
      custom.observeFinals(finals)
      scenario.observeFinals(finals)
      figures.observeFinals(finals)
    },
    /**
     * The collector's simulator list (every simulator of the run, whoever it reports to):
     * up, and the target by transport (the final report's once there is one).
     * @param {SimulatorStatus[]} list
     */
    observeSimulators (list) {
      for (const s of list) {
        set.up(s.id, {}, s.alive && !s.final ? 1 : 0)
        setTarget(s.id, s.transport, s.clients.target)
      }
    },
    /**
     * The rounds so far: the exact percentiles of the last round whose messages are all in.
     * @param {RoundResult[]} rounds
     */
    observeRounds (rounds) {
      const done = rounds.filter((r) => r.messages > 0 && r.messages >= r.count).at(-1)
      if (!done) return
      m.roundNumber.set(done.round)
      m.roundMissing.set(done.missing)
      setQuantiles(m.roundRelative, done.relative)
      setQuantiles(m.roundAbsolute, done.absolute)
    },
    /** @param {ServerSample} sample */
    observeServerSample (sample) {
      for (const [transport, n] of Object.entries(sample.byTransport ?? {})) m.serverConnected.set({ transport }, n)
      m.serverCpu.set(sample.cpuPct)
      m.serverRss.set(sample.rssBytes)
      m.serverLoopDelay.set(sample.loopDelayP99Ms / 1000)
    },
    /** The label bounds' use (admitted values, folded lookups). */
    labelStats: () => ({ simulators: simulators.stats(), reasons: reasons.stats(), ...byRoom.labelStats() })
  }
}

/**
 * @param {client.Gauge<string>} gauge
 * @param {ReturnType<typeof createLabelBound>} bound
 * @param {(Record<string, number> | undefined)[]} records
 */
function setByReason (gauge, bound, records) {
  /** @type {Map<string, number>} */
  const sums = new Map()
  for (const record of records) {
    for (const [reason, n] of Object.entries(record ?? {})) {
      const label = bound.value(reason)
      sums.set(label, (sums.get(label) ?? 0) + n)
    }
  }
  for (const [reason, n] of sums) gauge.set({ reason }, n)
}

/**
 * `websocket:70,polling:30` → [['websocket', 0.7], ['polling', 0.3]]; a single name → 1.
 * @param {string} mix
 * @returns {[string, number][]}
 */
export function transportShares (mix) {
  const parts = String(mix).split(',').map((p) => p.trim().split(':'))
  const total = parts.reduce((sum, [, w]) => sum + (Number(w) || 1), 0)
  return parts.map(([name, w]) => [name, (Number(w) || 1) / total])
}
