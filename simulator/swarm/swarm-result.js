/**
 * A swarm's SimResult, built once the swarm has ended from what its parts recorded: the
 * clients' counts, the deliveries, the samples, the scenario's records.
 */
import { wallMs } from '../../lib/measure/clock.js'
import { hostFacts } from '../../lib/host.js'
import { formatTransportMix } from '../../lib/values/parsers.js'
import { summarizeHealth } from '../../lib/measure/process-sampler.js'
import { SCHEMA_VERSION } from '../../lib/schema/result-schema.js'
import { VERSION } from '../../lib/version.js'
import { labelPhases } from '../phase-options.js'

/**
 * @typedef {import('../../lib/schema/result-schema.js').SimResult} SimResult
 * @typedef {import('../../lib/measure/process-sampler.js').ProcessSample} ProcessSample
 */

/**
 * @param {object} ended
 * @param {string} ended.id
 * @param {import('../sim-options.js').SimOptions} ended.options
 * @param {number} ended.startedAt wall-clock ms
 * @param {SimResult['agent']} ended.agent the polling agent
 * @param {SimResult['server']} ended.server the inspection's (simulator/inspection/inspect.js)
 * @param {SimResult['clock']} ended.clock
 * @param {SimResult['clients']} ended.clients
 * @param {NonNullable<SimResult['destinations']>} ended.destinations
 * @param {NonNullable<SimResult['sourceAddresses']>} ended.sourceAddresses
 * @param {SimResult['preflight']} ended.preflight
 * @param {ReturnType<typeof import('../recording/namespace-recorders.js').createDeliveries>} ended.deliveries
 * @param {{ samples: ProcessSample[], timeline: import('../../lib/schema/result-schema.js').TimelinePoint[] }} ended.sampled
 * @param {SimResult['scenario'] | null} ended.scenario
 * @param {SimResult['nodes'] | null} ended.nodes --node-from: which node served whom
 * @param {SimResult['logins'] | null} ended.logins --login: the clients' HTTP logins
 * @param {SimResult['custom'] | null} [ended.custom] a scenario's own figures
 * @param {{ closed: number } | null} ended.churn sessions closed by --session-lifetime
 * @param {{ phases: import('../../lib/schema/result-schema.js').PhaseStep[], rampedDown: number } | null} [ended.phases] --phases: its steps as they ran
 * @param {import('../recording/window-recorder.js').WindowBook | null} [ended.windows] --window: its windows
 * @param {SimResult['rampGuard'] | null} [ended.rampGuard] --ramp-guard: its holds and deferred reconnects
 * @returns {SimResult}
 */
export function swarmResult (ended) {
  const { id, options, startedAt, server, clients, destinations, sourceAddresses, preflight, deliveries, sampled, scenario, nodes, churn } = ended
  const endedAt = wallMs()
  return {
    schemaVersion: SCHEMA_VERSION,
    kind: 'simulator',
    id,
    tool: { name: 'ioswarm', version: VERSION },
    host: hostFacts(),
    pid: process.pid,
    startedAt: Math.round(startedAt),
    endedAt: Math.round(endedAt),
    options: { ...options, transport: formatTransportMix(options.transport) },
    engine: options.engine,
    agent: ended.agent,
    server,
    clock: ended.clock,
    clients,
    destinations,
    ...(sourceAddresses.length > 0 ? { sourceAddresses } : {}),
    preflight,
    messages: deliveries.reports(),
    messageRollups: deliveries.rollups(),
    recorder: deliveries.info(),
    // Each sample names its process: the samples of --workers, merged, stay apart by it (bench/scale.js).
    health: { samples: sampled.samples.map((s) => ({ ...s, pid: process.pid })), summary: summarizeHealth(sampled.samples) },
    timeline: sampled.timeline,
    ...(scenario ? { scenario } : {}),
    ...(nodes ? { nodes } : {}),
    ...(ended.logins ? { logins: ended.logins } : {}),
    ...(ended.custom ? { custom: ended.custom } : {}),
    ...(churn && options.sessionLifetime ? { churn: churnSummary(options.sessionLifetime, churn.closed, endedAt - startedAt) } : {}),
    ...ended.phases,
    ...(ended.rampGuard ? { rampGuard: ended.rampGuard } : {}),
    // --phases: each window labelled with its step, as a run labels its merged windows.
    ...(ended.windows ? { windows: labelPhases(ended.windows.reports(), ended.phases?.phases) } : {})
  }
}

/**
 * @param {{ minMs: number, maxMs: number }} lifetime
 * @param {number} closed sessions closed at the end of their lifetime
 * @param {number} elapsedMs
 */
function churnSummary (lifetime, closed, elapsedMs) {
  return { lifetimeMs: lifetime, sessionsClosed: closed, perSecond: Math.round(closed / Math.max(1, elapsedMs / 1000) * 100) / 100 }
}
