/**
 * `--phases 'ramp 60s to 2000, hold 3m, ramp 20s to 0'`: a load profile of clients over time,
 * as k6's stages and Artillery's phases. A leaf: the options table parses with it, the
 * simulator follows what it parses (simulator/phase-options.js), `--workers` slices it.
 */
import { invalidOption } from '../errors.js'
import { parseDurationMs, parseInteger } from '../values/parsers.js'
import { parseRate } from '../values/option-values.js'

/**
 * @typedef {object} Phase
 * @property {'ramp' | 'hold'} kind ramp: move to `to` clients, spread over the phase; hold: stay
 * @property {number} durationMs
 * @property {number} [to] clients at the end of a ramp
 * @property {number} [emitIntervalMs] `at RATE`: each emitting client's mean interval in this phase (--emit-rate's form)
 */

/** What a step may be, said by every refusal. */
const ALLOWED = '"ramp DURATION to CLIENTS" or "hold DURATION", each optionally followed by "at RATE" (--emit\'s rate in the step, as --emit-rate: 2/s), ' +
  'separated by commas: \'ramp 60s to 2000, hold 3m at 2/s, ramp 20s to 0\''
const STEP = /^(ramp|hold)\s+(\S+)(?:\s+to\s+(\S+))?(?:\s+at\s+(\S+))?$/i

/** Most clients a ramp may go to (one simulator's --clients bound). */
const MAX_TO = 1_000_000

/**
 * @param {unknown} value the flag's text; undefined or null = no phases
 * @param {string} flag
 * @returns {Phase[] | null}
 */
export function parsePhases (value, flag) {
  if (value === undefined || value === null || value === '') return null
  const steps = String(value).split(',').map((s) => s.trim().replace(/\s+/g, ' '))
  const phases = steps.map((text, n) => parseStep(text, `${flag} step ${n + 1}`))
  if (maxClientsOf(phases) === 0) throw invalidOption(flag, `must ramp to at least 1 client: ${ALLOWED}; got ${JSON.stringify(value)}`)
  return phases
}

/**
 * @param {string} text one step, spaces collapsed
 * @param {string} where the flag and the step's number, for errors
 * @returns {Phase}
 */
function parseStep (text, where) {
  const match = STEP.exec(text)
  const kind = /** @type {'ramp' | 'hold' | undefined} */ (match?.[1].toLowerCase())
  if (!match || !kind || (kind === 'ramp') !== (match[3] !== undefined)) {
    throw invalidOption(where, `must be ${ALLOWED}; got ${JSON.stringify(text)}`)
  }
  const durationMs = parseDurationMs(match[2], where)
  if (durationMs <= 0 && kind === 'hold') throw invalidOption(where, `must hold for more than 0, got ${JSON.stringify(text)}`)
  /** @type {Phase} */
  const phase = { kind, durationMs }
  if (kind === 'ramp') phase.to = parseInteger(match[3], where, { min: 0, max: MAX_TO })
  if (match[4] !== undefined) phase.emitIntervalMs = parseRate(match[4], where)
  return phase
}

/**
 * The most clients the profile asks for at once: the swarm's size.
 * @param {Phase[]} phases
 */
export function maxClientsOf (phases) {
  return phases.reduce((most, p) => Math.max(most, p.to ?? 0), 0)
}

/**
 * The profile's length: the run's duration.
 * @param {Phase[]} phases
 */
export function totalMsOf (phases) {
  return phases.reduce((sum, p) => sum + p.durationMs, 0)
}

/**
 * Worker k's part of a profile spread over `count` processes: each ramp's target is split as
 * the clients are (the first `to % count` workers take one more), so the workers' sum is it.
 * @param {Phase[]} phases
 * @param {number} count
 * @param {number} k 0 … count-1
 * @returns {Phase[]}
 */
export function slicePhases (phases, count, k) {
  return phases.map((p) => (p.to === undefined ? p : { ...p, to: Math.floor(p.to / count) + (k < p.to % count ? 1 : 0) }))
}

/**
 * The steps written back as --phases takes them (the summary, the start line).
 * @param {Phase[]} phases
 */
export function formatPhases (phases) {
  return phases.map((p) => `${p.kind} ${p.durationMs}ms${p.to === undefined ? '' : ` to ${p.to}`}`).join(', ')
}

/**
 * A phased run's clients, said by its peak and profile: its target at the end is the last
 * step's (0 after a ramp down to 0), which says nothing of the run.
 * @param {import('../schema/result-schema.js').PhaseStep[]} steps
 * @param {{ connected: number, as: string, rampedDown?: number }} clients connected: the most that were (`as` says how it
 *   was counted: 'ever connected', 'connected at peak'); rampedDown: closed by the ramp-downs
 */
export function formatPhasedClients (steps, { connected, as, rampedDown = 0 }) {
  const peak = Math.max(0, ...steps.map((s) => Math.max(s.from, s.to)))
  return `phases to ${peak} clients, ${connected}/${peak} ${as}, ${rampedDown} closed by the ramp-downs`
}

/**
 * The steps as the live stream's `mark` events (each step shaded on the dashboard's charts),
 * from when the profile started.
 * @param {Phase[]} phases
 * @param {number} startAt epoch ms
 * @returns {{ type: 'mark', kind: 'phase', at: number, endAt: number, label: string }[]}
 */
export function phaseMarks (phases, startAt) {
  let at = startAt
  return phases.map((p, i) => {
    const label = `${i + 1}: ${p.kind}${p.to === undefined ? '' : ` to ${p.to}`}`
    const mark = { type: /** @type {const} */ ('mark'), kind: /** @type {const} */ ('phase'), at, endAt: at + p.durationMs, label }
    at += p.durationMs
    return mark
  })
}
