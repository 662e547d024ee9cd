/**
 * Time windows for people: a window's label (its wall-clock interval) and its one line, the
 * same for one simulator's window (simulate) and a window merged over a run's simulators.
 */
import { formatMs } from './format.js'

/**
 * `window 14:02:10–14:02:20` (UTC): a window named by its interval on the reference clock.
 * @param {{ startAt: number, endAt: number }} window
 */
export function windowLabel ({ startAt, endAt }) {
  const time = (/** @type {number} */ at) => new Date(at).toISOString().slice(11, 19)
  return `window ${time(startAt)}–${time(endAt)}`
}

/**
 * `, phase 2 (hold)`: with --phases, the step a window measured; empty without.
 * @param {{ index: number, kind: string } | undefined} phase
 */
function phaseLabel (phase) {
  return phase ? `, phase ${phase.index} (${phase.kind})` : ''
}

/**
 * One line for a window (its phase with --phases): clients, messages and deliveries, missing, delays, emits and acks,
 * connects and drops, and the simulators' worst health, with copies to the wrong clients or
 * twice when there were any.
 * @param {Pick<import('../schema/result-schema.js').WindowResult, 'startAt' | 'endAt' | 'simulators' | 'clients' | 'messages' | 'received' | 'missing' | 'duplicates' | 'misdelivered' | 'health' | 'phase'>
 *   & { relative: import('../measure/histogram.js').DelaySummary, absolute: import('../measure/histogram.js').DelaySummary, emits: { sent: number, acked: number, timedOut: number, failed: number, closed?: number, ackTime: import('../measure/histogram.js').DelaySummary },
 *   custom?: { timings: Record<string, import('../measure/histogram.js').DelaySummary>, counts: Record<string, number> },
 *   replies?: { sent: number, replied: number, timedOut: number, failed: number, time: import('../measure/histogram.js').DelaySummary } }} w
 */
export function formatWindowLine (w) {
  const absolute = w.absolute.count > 0 ? `, absolute p50 ${formatMs(w.absolute.p50)} p99 ${formatMs(w.absolute.p99)}` : ''
  const delays = w.received === 0 ? '' : `, relative p50 ${formatMs(w.relative.p50)} p99 ${formatMs(w.relative.p99)}${absolute}`
  const { emits } = w
  const acks = emits.ackTime.count > 0 ? `, ack p50 ${formatMs(emits.ackTime.p50)} p99 ${formatMs(emits.ackTime.p99)}` : ''
  const unacked = (emits.timedOut ? `, ${emits.timedOut} timed out` : '') + (emits.failed ? `, ${emits.failed} failed` : '') +
    (emits.closed ? `, ${emits.closed} closed before their ack` : '')
  const lost = (w.clients.closed ? `, ${w.clients.closed} closed` : '') + (w.clients.errors ? `, ${w.clients.errors} errors` : '')
  return `${windowLabel(w)}${phaseLabel(w.phase)}: ${w.clients.connected} connected (+${w.clients.connects} −${w.clients.drops}${lost}), ` +
    `${w.messages} messages, received ${w.received}, missing ${w.missing}${delays}` +
    (w.misdelivered ? `, MISDELIVERED ${w.misdelivered}` : '') + (w.duplicates ? `, DUPLICATED ${w.duplicates}` : '') +
    (emits.sent > 0 || emits.acked > 0 ? `; emits ${emits.sent} sent, ${emits.acked} acked${acks}${unacked}` : '') +
    formatWindowReplies(w.replies) + formatWindowCustom(w.custom) +
    `; simulator loop p99 ≤ ${formatMs(w.health.loopDelayP99MaxMs)}${w.health.saturatedSeconds ? `, SATURATED ${w.health.saturatedSeconds}s` : ''}` +
    (w.simulators > 1 ? ` (${w.simulators} simulators)` : '')
}

/**
 * The window with the highest value of a figure (null where a window has none), as
 * thresholds name it: a threshold that fails in one window says which.
 * @template {{ startAt: number, endAt: number }} W
 * @param {W[] | undefined} windows
 * @param {(window: W) => number | null} pick
 * @returns {{ value: number, window: W } | null} null: no window has the figure
 */
export function worstWindow (windows, pick) {
  /** @type {{ value: number, window: W } | null} */
  let worst = null
  for (const window of windows ?? []) {
    const value = pick(window)
    if (value !== null && (worst === null || value > worst.value)) worst = { value, window }
  }
  return worst
}

/** Custom figures a window's line names; the rest are in result.json and windows.csv. */
const MAX_WINDOW_FIGURES = 3

/**
 * A window's custom figures (a scenario's ctx.timing, ctx.count), the first few: `; custom
 * join_lobby p50 3 ms p99 12 ms (40), joined 40`.
 * @param {{ timings: Record<string, import('../measure/histogram.js').DelaySummary>, counts: Record<string, number> } | undefined} custom
 */
function formatWindowCustom (custom) {
  if (!custom) return ''
  const figures = [
    ...Object.entries(custom.timings).map(([name, t]) => `${name} p50 ${formatMs(t.p50)} p99 ${formatMs(t.p99)} (${t.count})`),
    ...Object.entries(custom.counts).map(([name, n]) => `${name} ${n}`)
  ]
  if (figures.length === 0) return ''
  const more = figures.length > MAX_WINDOW_FIGURES ? `, … ${figures.length - MAX_WINDOW_FIGURES} more` : ''
  return `; custom ${figures.slice(0, MAX_WINDOW_FIGURES).join(', ')}${more}`
}

/**
 * A window's emits that waited for a reply event: `; replies 40 sent, 39 replied, reply p50 … p99 …, 1 timed out`.
 * @param {{ sent: number, replied: number, timedOut: number, failed: number, time: import('../measure/histogram.js').DelaySummary } | undefined} r
 */
function formatWindowReplies (r) {
  if (!r) return ''
  const time = r.time.count > 0 ? `, reply p50 ${formatMs(r.time.p50)} p99 ${formatMs(r.time.p99)}` : ''
  return `; replies ${r.sent} sent, ${r.replied} replied${time}${r.timedOut ? `, ${r.timedOut} timed out` : ''}${r.failed ? `, ${r.failed} failed` : ''}`
}
