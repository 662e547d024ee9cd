/**
 * The capacity search for a person: one line per step (progress on stderr) and the answer in
 * one line, as pure functions of the result.
 */
import { formatBusy, formatMs } from '../../lib/format.js'

/** @param {number} n */
export const count = (n) => n.toLocaleString('en-US')

/**
 * `step 3 (grow): 4,000 clients …: pass`
 * @param {import('../../lib/capacity-schema.js').CapacityStep} s
 */
export function formatStepLine (s) {
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
    ...(s.server ? [`server cpu max ${Math.round(s.server.cpuPctMax)}%`] : [])
  ]
  return `${head}: ${facts.join(', ')} → ${s.verdict === 'pass' ? 'pass' : `${s.verdict.toUpperCase()}: ${s.why}`}`
}

/**
 * `websocket (sio), reference server, 2 simulators`
 * @param {Pick<import('../../lib/capacity-schema.js').CapacityResult, 'swarm' | 'target'>} r
 */
export function describeSetup (r) {
  const server = r.target.reference ? 'reference server' : `target ${r.target.url}`
  return `${r.swarm.transport} (${r.swarm.engine}), ${server}, ${r.swarm.simulators} simulator${r.swarm.simulators === 1 ? '' : 's'}`
}

/**
 * The answer in one line.
 * @param {Pick<import('../../lib/capacity-schema.js').CapacityResult, 'outcome' | 'capacity' | 'bounds' | 'slo' | 'swarm' | 'target' | 'steps'>} r
 */
export function formatAnswer (r) {
  const slo = r.slo.join(', ')
  const setup = describeSetup(r)
  const { passed, failed, inconclusive } = r.bounds
  const stopper = r.steps.find((s) => s.clients === inconclusive && s.verdict === 'inconclusive')
  switch (r.outcome) {
    case 'found':
      return `capacity: ${count(/** @type {number} */ (r.capacity))} clients at ${slo} — ${setup} (${count(/** @type {number} */ (failed))} failed: ${r.steps.find((s) => s.clients === failed)?.why})`
    case 'max':
      return `capacity: at least ${count(/** @type {number} */ (r.capacity))} clients at ${slo} — ${setup} (every step passed up to --max)`
    case 'failed-at-start': {
      const first = r.steps[0]
      return `capacity: below ${count(first.clients)} clients at ${slo} — ${setup} (the first step failed: ${first.why}; start lower with --start)`
    }
    case 'inconclusive':
      return `capacity: inconclusive at ${slo} — ${setup}: ${passed === null ? 'no step passed' : `${count(passed)} clients passed`}, but at ${count(/** @type {number} */ (inconclusive))} the simulators limited the step (${stopper?.why ?? 'unknown'}); no capacity is reported that the simulators may have limited`
    default:
      return `capacity: stopped before an answer at ${slo} — ${setup}${passed === null ? '' : ` (${count(passed)} clients passed so far)`}`
  }
}
