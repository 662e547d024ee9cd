/**
 * `--phases`: a swarm that follows a load profile (lib/input/phase-profile.js parses it) on the resize
 * machinery (simulator/swarm/resize.js). A ramp up opens clients spread over its step; a ramp down
 * closes the highest-indexed ones, spread the same way, on purpose (a Socket.IO disconnect,
 * 'io client disconnect': no storm, counted in `rampedDown`, apart from drops). Each step's
 * boundaries are recorded for the report. Also the warning of a --duration shorter than the
 * ramp, which --phases makes impossible.
 */
import { monotonicMs, wallMs } from '../lib/measure/clock.js'
import { invalidOption } from '../lib/errors.js'
import { formatMs } from '../lib/text/format.js'
import { maxClientsOf, totalMsOf } from '../lib/input/phase-profile.js'
import { startRamp } from './swarm/ramp.js'

/**
 * @typedef {import('../lib/input/phase-profile.js').Phase} Phase
 * @typedef {import('../lib/schema/result-schema.js').PhaseStep} PhaseStep
 */

/** The flags --phases replaces, by their input key. */
const REPLACED = /** @type {const} */ ([
  ['clients', '--clients', 'the swarm\'s size is the largest ramp target'],
  ['ramp', '--ramp', 'each ramp step spreads its own clients over its duration'],
  ['duration', '--duration', 'the run lasts the phases\' total']
])

/**
 * The normaliser's check of --phases against the flags it replaces, and what it sets instead
 * (the swarm's size: the largest target; no first ramp; the run lasts the profile's total).
 * @param {Record<string, unknown>} input raw values (given or not)
 * @param {{ phases: Phase[] | null, emit: string | null }} parsed
 * @returns {{ clients?: number, rampMs?: number, durationMs?: number }} empty without --phases
 */
export function checkPhases (input, { phases, emit }) {
  if (!phases) return {}
  for (const [key, flag, why] of REPLACED) {
    if (input[key] !== undefined && input[key] !== null) throw invalidOption('--phases', `cannot go with ${flag} (${why}): drop ${flag}`)
  }
  if (phases.some((p) => p.emitIntervalMs !== undefined) && !emit) {
    throw invalidOption('--phases', '"at RATE" sets the rate of --emit in a step: give --emit (and --emit-rate for the steps without one)')
  }
  return { clients: maxClientsOf(phases), rampMs: 0, durationMs: totalMsOf(phases) }
}

/**
 * Moves the swarm through the phases from now on: each step starts at the sum of the steps
 * before it (on the monotonic clock, so late timers do not add up).
 * @param {Phase[]} phases
 * @param {ReturnType<typeof import('./swarm/resize.js').createSizer>} sizer a swarm opened with 0 clients
 * @param {{ emitIntervalMs: number, setEmitInterval: (ms: number) => void }} [emits] --emit's rate (--emit-rate) and how to change it, for steps `at RATE`
 */
export function followPhases (phases, sizer, emits) {
  const rated = phases.some((p) => p.emitIntervalMs !== undefined)
  const startedMono = monotonicMs()
  /** @type {PhaseStep[]} */
  const steps = []
  let closed = 0
  let n = -1
  let atMs = 0
  /** @type {NodeJS.Timeout | undefined} */
  let timer
  /** @type {ReturnType<typeof startRamp> | null} */
  let closing = null

  function next () {
    // One instant ends a step and starts the next: the boundaries meet.
    const nowMs = Math.round(wallMs())
    end(nowMs)
    if (++n >= phases.length) return
    const phase = phases[n]
    const from = sizer.target()
    const to = phase.to ?? from
    const rate = phase.emitIntervalMs === undefined ? {} : { emitIntervalMs: phase.emitIntervalMs }
    steps.push({ kind: phase.kind, startMs: nowMs, endMs: 0, from, to, closed: 0, ...rate })
    // A step without `at RATE` emits at --emit-rate.
    if (rated && emits) emits.setEmitInterval(phase.emitIntervalMs ?? emits.emitIntervalMs)
    if (to > from) sizer.resize(to, phase.durationMs)
    if (to < from) closing = rampDown(from, to, phase.durationMs, steps[n])
    atMs += phase.durationMs
    due()
  }

  /**
   * Starts the next step at its time, never before: a timer counts from the loop's cached time,
   * so one set late in a long turn (a busy host) fires early by that turn's length.
   */
  function due () {
    const leftMs = atMs - (monotonicMs() - startedMono)
    timer = leftMs > 0 ? setTimeout(due, leftMs) : setTimeout(next, 0)
  }

  /**
   * Closes from-1 … to one at a time, spread over `windowMs` as a ramp up opens them.
   * @param {number} from
   * @param {number} to
   * @param {number} windowMs
   * @param {PhaseStep} step
   */
  function rampDown (from, to, windowMs, step) {
    return startRamp({
      count: from - to,
      rampMs: windowMs,
      onStart: (k) => {
        // A client a late ramp up never opened is not closed (nor opened now).
        const open = sizer.started()
        const target = Math.min(from - k - 1, open)
        sizer.resize(target)
        step.closed += open - target
        closed += open - target
      }
    })
  }

  /**
   * Closes the step under way (its ramp down stops where it is).
   * @param {number} nowMs wall-clock ms
   */
  function end (nowMs) {
    closing?.stop()
    closing = null
    if (n >= 0 && n < steps.length && steps[n].endMs === 0) {
      steps[n].endMs = nowMs
      steps[n].to = sizer.target()
    }
  }

  next()
  return {
    /** Stops following (the swarm is ending); the step under way ends now. */
    stop () {
      clearTimeout(timer)
      end(Math.round(wallMs()))
    },

    /** @returns {{ phases: PhaseStep[], rampedDown: number }} */
    record: () => ({ phases: steps.map((s) => ({ ...s })), rampedDown: closed })
  }
}

/**
 * A --duration shorter than the ramp leaves clients never started; said before the start.
 * @param {{ clients: number, rampMs: number, rampSource?: string, durationMs: number | null }} run rampSource: where the ramp came from (--ramp, the server's pingInterval)
 * @returns {string | null}
 */
export function rampCutWarning ({ clients, rampMs, rampSource = '--ramp', durationMs }) {
  if (durationMs === null || durationMs >= rampMs || clients <= 1) return null
  // Client i starts at i × rampMs / clients (simulator/swarm/ramp.js).
  const starting = Math.min(clients, Math.floor(durationMs / (rampMs / clients)) + 1)
  const never = clients - starting
  if (never === 0) return null
  return `--duration ${durationMs} ms is shorter than the ramp, ${rampMs} ms (${rampSource}): ${never} of ${clients} clients will never start ` +
    '(the run ends first); make --duration longer than --ramp, or use --phases'
}

/**
 * The phases of K workers' results as one: each step's clients summed, its boundaries the
 * earliest start and latest end. Null when no worker followed phases.
 * @param {Pick<import('../lib/schema/result-schema.js').SimResult, 'phases' | 'rampedDown'>[]} results the workers' results, or a run's simulators' final reports
 * @returns {{ phases: PhaseStep[], rampedDown: number } | null}
 */
export function mergePhases (results) {
  const phased = results.filter((r) => r.phases)
  if (phased.length === 0) return null
  const phases = /** @type {PhaseStep[]} */ (phased[0].phases).map((s, n) => {
    const all = phased.map((r) => /** @type {PhaseStep[]} */ (r.phases)[n]).filter(Boolean)
    const sum = (/** @type {(s: PhaseStep) => number} */ pick) => all.reduce((total, x) => total + pick(x), 0)
    const startMs = Math.min(...all.map((x) => x.startMs))
    const endMs = Math.max(...all.map((x) => x.endMs))
    return { ...s, startMs, endMs, from: sum((x) => x.from), to: sum((x) => x.to), closed: sum((x) => x.closed) }
  })
  return { phases, rampedDown: phased.reduce((total, r) => total + (r.rampedDown ?? 0), 0) }
}

/**
 * Each window's phase: the step its middle falls in (1-based `phase`, and its kind), so a
 * window row, windows.csv and the report's bands say which part of the profile it measured.
 * @template {{ startAt: number, endAt: number }} W
 * @param {W[] | undefined} windows
 * @param {import('../lib/schema/result-schema.js').PhaseStep[] | undefined} steps
 * @returns {W[] | undefined}
 */
export function labelPhases (windows, steps) {
  if (!windows || !steps || steps.length === 0) return windows
  return windows.map((w) => ({ ...w, phase: phaseAt(w, steps) }))
}

/**
 * A window's phase: the step its middle falls in (the step under way, whose end is not known
 * yet, holds every later instant), or undefined without steps.
 * @param {{ startAt: number, endAt: number }} window
 * @param {Pick<PhaseStep, 'kind' | 'endMs'>[] | undefined} steps
 * @returns {{ index: number, kind: 'ramp' | 'hold' } | undefined}
 */
export function phaseAt ({ startAt, endAt }, steps) {
  if (!steps || steps.length === 0) return undefined
  const middle = (startAt + endAt) / 2
  const found = steps.findIndex((s) => s.endMs !== 0 && middle < s.endMs)
  const n = found === -1 ? steps.length - 1 : found
  return { index: n + 1, kind: steps[n].kind }
}

/**
 * The summary's line of a phased run: each step as it ran, and the clients ramp-downs closed.
 * @param {PhaseStep[]} steps
 * @param {number} rampedDown
 */
export function formatPhaseSteps (steps, rampedDown) {
  const parts = steps.map((s) => (s.kind === 'hold'
    ? `hold ${s.to} for ${formatMs(s.endMs - s.startMs)}`
    : `ramp ${s.from}→${s.to} over ${formatMs(s.endMs - s.startMs)}${s.closed > 0 ? ` (${s.closed} closed)` : ''}`))
  return `phases: ${parts.join(', ')}; ramped down: ${rampedDown} clients closed on purpose (a Socket.IO disconnect, not a drop)`
}
