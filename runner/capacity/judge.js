/**
 * A step's verdict. Pass when every SLO holds (a busy simulator only adds delay and loss, so
 * a pass stands). A failed SLO fails the step only when the simulators cannot have made the
 * failure themselves; if every failed SLO could be theirs the step is *inconclusive*, so a
 * capacity figure is always the server's (docs/measurement.md):
 *
 * - a simulator saturated by its own work (event-loop utilisation ≥ 0.9 in any second) makes
 *   every failure of that window possibly its own;
 * - a failed delay SLO (measured V against the limit) could be the simulators' when their own
 *   time D, the larger of the most CPU a simulator spent draining a message (its floor) and
 *   the longest its event loop was held up, is at least half of V (the floor is a large share
 *   of the spread: busiest ≥ 50 %), or when V − D would have met the SLO;
 * - a failed missing or connected SLO could be the simulators' when an event loop stalled for
 *   a second or more (late reads, missed pings).
 */
import { formatMs } from '../../lib/text/format.js'
import { measureThreshold, meetsThreshold, verdictOf } from '../../results/index.js'

/** Share of a failing delay that the simulators' own time must reach for the failure to be possibly theirs. */
const BUSY_LIMIT = 0.5
/** Event-loop utilisation at or above which a simulator counts as saturated by its own work. */
const BUSY_ELU = 0.9
/** A loop held up this long can lose or delay what a missing or connected SLO counts. */
const LOOP_STALL_MS = 1000

/**
 * @typedef {import('../../lib/schema/capacity-schema.js').StepSimulator} StepSimulator
 * @typedef {import('./capacity-options.js').Slo} Slo
 * @typedef {{ verdict: import('../../lib/schema/capacity-schema.js').StepVerdict, why: string, limitedBy: 'saturated' | 'busy' | null }} Judgement
 * @typedef {import('../../lib/schema/capacity-schema.js').CapacityStep} CapacityStep
 */

/**
 * A measured step's record, the one way for a step with rounds (step.js) and one judged on its
 * windows (step-windows.js): its SLOs evaluated over the step alone by the one evaluator of
 * `run --assert` (results/thresholds/thresholds.js; the implicit one labelled), then judged (judgeStep) on
 * the step's simulators and floor, a failed delay SLO weighed at the value that evaluator measured.
 * @param {Slo[]} slos
 * @param {object} over
 * @param {object} over.distribution what evaluateThresholds reads of a run's distribution (name, rounds or windows, clients, …)
 * @param {StepSimulator[]} over.connecting health from the resize until the step's load began
 * @param {Omit<CapacityStep, 'slo' | 'verdict' | 'why' | 'limitedBy'>} measured the rest of the record
 * @returns {CapacityStep}
 */
export function judgedStep (slos, { distribution, connecting }, measured) {
  const stepRun = /** @type {any} */ ({ distributions: [{ simulatorList: [], ...distribution }] })
  // Each SLO measured once: its verdict, and the value a failed delay SLO is weighed at.
  const values = slos.map((slo) => measureThreshold(stepRun, slo))
  const verdicts = slos.map((slo, k) => verdictOf(slo, values[k]))
  const floorMaxMs = measured.floor?.maxMs ?? null
  const valueOf = (/** @type {Slo} */ slo) => values[slos.indexOf(slo)]?.value ?? null
  const { verdict, why, limitedBy } = judgeStep({ slos, verdicts, valueOf, simulators: measured.simulators, connecting, floorMaxMs })
  const slo = verdicts.map((v, k) => (slos[k].implicit ? { ...v, expression: `${v.expression} (every client must connect)` } : v))
  return { ...measured, slo, verdict, why, limitedBy }
}

/**
 * @param {object} step
 * @param {Slo[]} step.slos
 * @param {import('../../lib/schema/result-schema.js').ThresholdVerdict[]} step.verdicts one per SLO, in order
 * @param {(slo: Slo) => number | null} step.valueOf the measured value of a delay SLO's metric (ms: the worst round or window)
 * @param {StepSimulator[]} step.simulators health over the rounds
 * @param {StepSimulator[]} step.connecting health from the resize until the rounds began
 * @param {number | null} step.floorMaxMs the most CPU a simulator spent draining one message
 * @returns {Judgement}
 */
export function judgeStep ({ slos, verdicts, valueOf, simulators, connecting, floorMaxMs }) {
  const failed = slos.flatMap((slo, k) => (verdicts[k].ok ? [] : [{ slo, actual: verdicts[k].actual }]))
  if (failed.length === 0) return { verdict: 'pass', why: 'every SLO held', limitedBy: null }
  const excuses = failed.map((f) => excuseFor(f.slo, { valueOf, simulators, connecting, floorMaxMs }))
  const failures = failed.map((f) => f.actual).join('; ')
  // One failure the simulators cannot have made is the server's: the step fails.
  if (excuses.some((e) => e === null)) return { verdict: 'fail', why: failures, limitedBy: null }
  const first = /** @type {{ text: string, limitedBy: 'saturated' | 'busy' }} */ (excuses[0])
  return { verdict: 'inconclusive', why: `${failures}, but ${first.text}: the failure may be the simulators'`, limitedBy: first.limitedBy }
}

/**
 * How the simulators could have made one failure themselves, or null when they could not.
 * @param {Slo} slo
 * @param {Omit<Parameters<typeof judgeStep>[0], 'slos' | 'verdicts'>} step
 * @returns {{ text: string, limitedBy: 'saturated' | 'busy' } | null}
 */
function excuseFor (slo, { valueOf, simulators, connecting, floorMaxMs }) {
  const connects = slo.metric === 'connected' || slo.metric === 'failed'
  const window = connects ? connecting : simulators
  const when = connects ? 'while its clients connected' : 'during the rounds'
  const busy = window.filter((s) => s.eluMax >= BUSY_ELU)
  if (busy.length > 0) return { text: `${saturationText(busy)} ${when}`, limitedBy: 'saturated' }
  const stall = worst(window, (s) => s.loopDelayMaxMs)
  // A delay SLO (its unit ms: a delivery, an ack, a reply, a hook's timing) is weighed against the simulators' own time.
  if (slo.unit !== 'ms') {
    if (!stall || stall.loopDelayMaxMs < LOOP_STALL_MS) return null
    return { text: `the event loop of simulator ${stall.id} was held up ${formatMs(stall.loopDelayMaxMs)} ${when}`, limitedBy: 'saturated' }
  }
  const value = valueOf(slo)
  if (value === null) return null
  const loopMs = stall?.loopDelayMaxMs ?? 0
  const ownMs = Math.max(floorMaxMs ?? 0, loopMs)
  // Theirs to answer for: half the delay or more, or the margin by which it failed.
  if (ownMs < value * BUSY_LIMIT && !meetsThreshold(value - ownMs, slo)) return null
  const share = `too large a share of the ${formatMs(value)} measured to tell the server's part`
  return (floorMaxMs ?? 0) >= loopMs
    ? { text: `a simulator spent up to ${formatMs(floorMaxMs)} of CPU draining one message (its floor), ${share}`, limitedBy: 'busy' }
    : { text: `the event loop of simulator ${stall?.id} was held up ${formatMs(loopMs)} (its CPU shared or busy), ${share}`, limitedBy: 'saturated' }
}

/**
 * @param {StepSimulator[]} sims
 * @param {(s: StepSimulator) => number} pick
 */
function worst (sims, pick) {
  return sims.reduce((/** @type {StepSimulator | null} */ a, b) => (a === null || pick(b) > pick(a) ? b : a), null)
}

/**
 * `simulator cap-sim2 was saturated (event-loop utilisation up to 97 %, 3 s)`
 * @param {StepSimulator[]} sims at least one
 */
function saturationText (sims) {
  const top = /** @type {StepSimulator} */ (worst(sims, (s) => s.eluMax))
  const names = sims.map((s) => s.id).join(', ')
  const how = `event-loop utilisation up to ${Math.round(top.eluMax * 100)} %, ${top.saturatedSeconds} s saturated, ` +
    `loop delay up to ${formatMs(top.loopDelayMaxMs)}`
  return `simulator${sims.length > 1 ? 's' : ''} ${names} ${sims.length > 1 ? 'were' : 'was'} saturated (${top.id}: ${how})`
}

/**
 * What to change when the simulators limited the search: more simulator processes (one core
 * each), and past this machine's cores, simulators on more hosts.
 * @param {'saturated' | 'busy' | 'limit'} limitedBy
 * @param {{ simulators: number, clients: number, cores: number, engine: string }} at
 * @returns {string[]}
 */
export function simulatorAdvice (limitedBy, { simulators, clients, cores, engine }) {
  const more = simulators * 2
  const perSim = Math.ceil(clients / simulators)
  const advice = [
    limitedBy === 'limit'
      ? `spread the clients over more simulator processes (--simulators ${more}: file descriptors are per process), or raise the limit as the message says`
      : `add simulator processes: --simulators ${more} (each is one process on one core; ${simulators} held ${perSim} clients each at this step)`
  ]
  if (engine !== 'lean') advice.push('use --engine lean: less CPU and memory per client than socket.io-client')
  if (more >= cores) {
    advice.push(`this machine has ${cores} core${cores === 1 ? '' : 's'} for the simulators and the server together: ` +
      'past that, run the server on another host and point --target at it, so they do not compete')
  }
  return advice
}
