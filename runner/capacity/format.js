/**
 * The capacity search for a person: one line per step (progress on stderr) and the answer in
 * one line, as pure functions of the result.
 */
import { stepLevel } from '../../lib/schema/capacity-schema.js'
import { formatBusy, formatMs } from '../../lib/text/format.js'
import { ipcErrorsWarning, refusedWarning } from '../../results/index.js'

/** @param {number} n */
export const count = (n) => n.toLocaleString('en-US')

/** What a search varied at a step: its clients, or its messages a second (--vary emit-rate). */
export const levelOf = stepLevel

/**
 * `4,000 clients`, or `300 messages/s`
 * @param {'clients' | 'emit-rate' | undefined} vary
 * @param {number} n
 */
function formatLevel (vary, n) {
  return vary === 'emit-rate' ? `${count(n)} messages/s` : `${count(n)} clients`
}

/**
 * `step 3 (grow): 4,000 clients …: pass`
 * @param {import('../../lib/schema/capacity-schema.js').CapacityStep} s
 */
export function formatStepLine (s) {
  if (s.windowed) return formatWindowedStepLine(s, s.windowed)
  const head = `step ${s.step} (${s.phase}): ${count(s.clients)} clients`
  if (s.limitedBy === 'limit') return `${head}: INCONCLUSIVE: ${s.why}`
  const sims = s.simulators
  const saturated = sims.reduce((sum, x) => sum + x.saturatedSeconds, 0)
  const abs = s.absolute && s.absolute.p99 !== null ? `, absolute p99 ${formatMs(s.absolute.p99)}` : ''
  const facts = [
    `connected ${count(s.connected)} in ${formatMs(s.connectMs)}`,
    `relative p50 ${formatMs(s.relative.p50)} p99 ${formatMs(s.relative.p99)} max ${formatMs(s.relative.max)}${abs}`,
    `missing ${count(s.missing)} of ${count(s.expected)}`,
    `simulators busiest ${formatBusy(s.floor?.busyMax)}, saturated ${saturated} s, elu max ${formatBusy(Math.max(0, ...sims.map((x) => x.eluMax)))}`,
    `fds ${count(s.limits.fdsPerSimulator)}/${Number.isFinite(s.limits.fdLimit) ? count(s.limits.fdLimit) : 'unlimited'} per simulator`,
    ...serverFacts(s.server)
  ]
  return `${head}: ${facts.join(', ')} → ${s.verdict === 'pass' ? 'pass' : `${s.verdict.toUpperCase()}: ${s.why}`}`
}

/**
 * A step without rounds: `step 2 (grow): 400 messages/s (200 clients): …, worst of 3 windows … → pass`
 * @param {import('../../lib/schema/capacity-schema.js').CapacityStep} s
 * @param {import('../../lib/schema/capacity-schema.js').StepWindowed} w
 */
function formatWindowedStepLine (s, w) {
  const levelText = w.emitRate === null ? `${count(s.clients)} clients` : `${count(w.emitRate)} messages/s (${count(s.clients)} clients)`
  const head = `step ${s.step} (${s.phase}): ${levelText}`
  if (s.limitedBy === 'limit') return `${head}: INCONCLUSIVE: ${s.why}`
  const sims = s.simulators
  const facts = [
    `connected ${count(s.connected)} in ${formatMs(s.connectMs)}`,
    `worst of ${w.windows} window${w.windows === 1 ? '' : 's'}: ` +
      (s.relative.p99 === null ? 'no deliveries' : `relative p50 ${formatMs(s.relative.p50)} p99 ${formatMs(s.relative.p99)}`) +
      (w.ack ? `, ack p50 ${formatMs(w.ack.p50)} p99 ${formatMs(w.ack.p99)}` : ''),
    `emits ${w.emitsPerSecond}/s${w.timedOut ? `, ${count(w.timedOut)} timed out` : ''}`,
    `missing ${count(s.missing)} of ${count(s.expected)}`,
    `simulators saturated ${sims.reduce((sum, x) => sum + x.saturatedSeconds, 0)} s, elu max ${formatBusy(Math.max(0, ...sims.map((x) => x.eluMax)))}`,
    ...serverFacts(s.server)
  ]
  return `${head}: ${facts.join(', ')} → ${s.verdict === 'pass' ? 'pass' : `${s.verdict.toUpperCase()}: ${s.why}`}`
}

/**
 * The server's own figures over a step, when it gave any: `server cpu max 97%, loop p99 max 12ms` (the rest in result.json).
 * @param {import('../../lib/schema/capacity-schema.js').CapacityStep['server']} server
 * @returns {string[]}
 */
function serverFacts (server) {
  if (!server) return []
  const loop = server.loopDelayP99MaxMs === undefined ? '' : `, loop p99 max ${formatMs(server.loopDelayP99MaxMs)}`
  return [`server cpu max ${Math.round(server.cpuPctMax)}%${loop}`]
}

/**
 * `websocket (sio), reference server, 2 simulators`
 * @param {Pick<import('../../lib/schema/capacity-schema.js').CapacityResult, 'swarm' | 'target'>} r
 */
function describeSetup (r) {
  const server = r.target.reference ? 'reference server' : `target ${r.target.url}`
  return `${r.swarm.transport} (${r.swarm.engine}), ${server}, ${r.swarm.simulators} simulator${r.swarm.simulators === 1 ? '' : 's'}`
}

/**
 * The warnings of a search's summary, the same lines a run's summary says: reports the collector
 * refused past its bound, collector writes that failed over IPC.
 * @param {Pick<import('../../lib/schema/capacity-schema.js').CapacityResult, 'run' | 'reportsRefused' | 'ipcErrors'>} r
 * @returns {string[]}
 */
export function capacityWarnings (r) {
  const d = { name: r.run.name, reportsRefused: r.reportsRefused, ipcErrors: r.ipcErrors }
  return [refusedWarning(d), ipcErrorsWarning(d)].filter((line) => line !== null)
}

/**
 * The answer in one line.
 * @param {Pick<import('../../lib/schema/capacity-schema.js').CapacityResult, 'outcome' | 'capacity' | 'bounds' | 'slo' | 'swarm' | 'target' | 'steps' | 'vary'>} r
 */
export function formatAnswer (r) {
  const slo = r.slo.join(', ')
  const rate = r.vary === 'emit-rate'
  const setup = `${describeSetup(r)}${rate ? `, ${count(r.steps[0]?.clients ?? 0)} clients` : ''}`
  const level = (/** @type {number} */ n) => formatLevel(r.vary, n)
  // A bound beside the answer: a bare count of clients, as ever; messages a second are named.
  const bound = (/** @type {number} */ n) => (rate ? level(n) : count(n))
  const { passed, failed, inconclusive } = r.bounds
  const stopper = r.steps.find((s) => levelOf(s) === inconclusive && s.verdict === 'inconclusive')
  switch (r.outcome) {
    case 'found':
      return `capacity: ${level(/** @type {number} */ (r.capacity))} at ${slo} — ${setup} ` +
        `(${bound(/** @type {number} */ (failed))} failed: ${r.steps.find((s) => levelOf(s) === failed)?.why})`
    case 'max':
      return `capacity: at least ${level(/** @type {number} */ (r.capacity))} at ${slo} — ${setup} (every step passed up to --max)`
    case 'failed-at-start': {
      const first = r.steps[0]
      return `capacity: below ${level(levelOf(first))} at ${slo} — ${setup} (the first step failed: ${first.why}; start lower with --start)`
    }
    case 'inconclusive':
      return `capacity: inconclusive at ${slo} — ${setup}: ${passed === null ? 'no step passed' : `${level(passed)} passed`}, ` +
        `but at ${bound(/** @type {number} */ (inconclusive))} the simulators limited the step (${stopper?.why ?? 'unknown'}); ` +
        'no capacity is reported that the simulators may have limited'
    default:
      return `capacity: stopped before an answer at ${slo} — ${setup}${passed === null ? '' : ` (${level(passed)} passed so far)`}`
  }
}
