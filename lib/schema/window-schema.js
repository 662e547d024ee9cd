/**
 * Time windows (--window): what a window holds (WindowReport), the figures of a second or a
 * window, and how windows merge (WINDOW_MERGE_RULES). JSDoc types checked by tsc;
 * lib/schema/result-schema.js re-exports them.
 */
import { MERGE_RULES } from './simulator-schema.js'

/**
 * @typedef {import('./simulator-schema.js').CustomReport} CustomReport
 * @typedef {import('./simulator-schema.js').DelaySummary} DelaySummary
 * @typedef {import('./simulator-schema.js').EncodedDelay} EncodedDelay
 * @typedef {import('./simulator-schema.js').HealthSummary} HealthSummary
 * @typedef {import('./simulator-schema.js').MergeRule} MergeRule
 */

/**
 * One time window of one simulator (--window): a row like a round, for traffic that is not
 * ioswarm's rounds (the app's own, the clients' emits). Windows are aligned on the reference
 * clock (epoch ms, window k = [k × windowMs, (k + 1) × windowMs)), so the windows of every
 * simulator, on any host, are the same intervals and merge by index. A message belongs to the
 * window of its first receipt in the simulator; an emit to the window it was sent in, its ack
 * to the window the ack came in; connects, drops and health to the window of their second.
 * The window's fields are listed once, in WINDOW_MERGE_RULES: a figure added there reaches the
 * simulator's windows, their merge (workers, a run's simulators), result.json and windows.csv.
 * @typedef {object} WindowReport
 * @property {number} index window number since the epoch (startAt ÷ windowMs)
 * @property {number} startAt epoch ms (reference clock)
 * @property {number} endAt epoch ms
 * @property {number} simulators simulators whose report is in it (1 for one simulator's)
 * @property {{ connected: number, connects: number, drops: number, errors: number, closed: number }} clients connected at the window's last second; connects, drops and
 *   connect errors in it, and clients closed on purpose in it (a ramp-down of --phases, the end: a Socket.IO disconnect, not a drop)
 * @property {number} messages distinct messages first seen in it (merged: the most any simulator saw)
 * @property {number} received deliveries of those messages
 * @property {number} expected
 * @property {number} missing
 * @property {number} duplicates
 * @property {number} misdelivered
 * @property {number} echo copies back to their sender (relayed lines)
 * @property {EncodedDelay} relative delay after the first receipt in the simulator process
 * @property {EncodedDelay} absolute sentAt → receipt, clock-corrected (count 0: no message carried sentAt)
 * @property {{ sent: number, acked: number, timedOut: number, failed: number, closed?: number, ackTime: EncodedDelay }} emits lines emitted by the clients (--emit, a scenario's emits) and their acks
 * @property {HealthSummary} health the simulator's worst second in it (merged: the worst simulator's)
 * @property {CustomReport} [custom] a scenario's own figures (ctx.timing, ctx.count) recorded in it
 * @property {{ sent: number, replied: number, timedOut: number, failed: number, time: EncodedDelay }} [replies] emits that waited for a reply
 *   event (--reply-event, emitAndWait): sent in it, and those whose wait ended in it (replied and timed, timed out, failed)
 * @property {{ index: number, kind: 'ramp' | 'hold' }} [phase] --phases: the step (1-based) the window's middle fell in, as its simulator
 *   saw it when the window was reported (a run's and --workers' windows are labelled again from the merged steps)
 */

/**
 * The clients' own figures over a window (--window): emits and their acks, the waits for a reply
 * event, a scenario's ctx.timing and ctx.count.
 * @typedef {Pick<WindowReport, 'emits' | 'replies' | 'custom'>} ClientFigures
 */

/**
 * Delays as the live metrics' histogram counts them (lib/measure/hdr-buckets.js): per bucket, not
 * cumulative, the last +Inf; their sum in seconds and their count.
 * @typedef {{ counts: number[], sumSeconds: number, count: number }} BucketCounts
 */

/**
 * The clients' own figures in one second of a simulator, sent with its sample to the live
 * metrics (results/metrics/families/figure-metrics.js): as a window's, with the times already in the
 * metrics' buckets (≈ 100 bytes each, where an encoded HDR histogram takes about a kilobyte and
 * its summary a millisecond: a sample is stored for every simulator second).
 * @typedef {object} SecondFigures
 * @property {Omit<WindowReport['emits'], 'ackTime'> & { ackTime: BucketCounts }} emits
 * @property {Omit<NonNullable<WindowReport['replies']>, 'time'> & { time: BucketCounts }} [replies]
 * @property {{ counts: Record<string, number>, timings: Record<string, BucketCounts> }} [custom]
 */

/**
 * A merged window as result.json keeps it: the merged WindowReport with its delays as
 * summaries (the histograms are merged, then dropped: a 30-minute run keeps 180 small rows).
 * @typedef {Omit<WindowReport, 'relative' | 'absolute' | 'emits' | 'custom' | 'replies'> & { relative: DelaySummary, absolute: DelaySummary, emits: Omit<WindowReport['emits'], 'ackTime'> & { ackTime: DelaySummary },
 *   custom?: Omit<CustomReport, 'timings'> & { timings: Record<string, DelaySummary> }, replies?: Omit<NonNullable<WindowReport['replies']>, 'time'> & { time: DelaySummary },
 *   phase?: { index: number, kind: 'ramp' | 'hold' } }} WindowResult phase: with --phases, the step (1-based) the window's middle fell in
 */

/**
 * Each window field's merge over simulators (results/merge/measures.js mergeWindowReports), checked
 * against WindowReport by tsc: the one place that lists a window's measures.
 * @type {{ readonly [K in keyof Omit<WindowReport, 'clients' | 'emits' | 'health' | 'replies'>]-?: MergeRule } & { clients: { readonly [K in keyof WindowReport['clients']]: MergeRule }, emits: { readonly [K in keyof WindowReport['emits']]: MergeRule }, health: { readonly [K in keyof HealthSummary]: MergeRule }, replies: { readonly [K in keyof NonNullable<WindowReport['replies']>]: MergeRule } }}
 */
export const WINDOW_MERGE_RULES = {
  index: 'first',
  startAt: 'first',
  endAt: 'first',
  simulators: 'sum',
  clients: { connected: 'sum', connects: 'sum', drops: 'sum', errors: 'sum', closed: 'sum' },
  // The same message is seen by every simulator that has a receiver: not summed.
  messages: 'max',
  received: 'sum',
  expected: 'sum',
  missing: 'sum',
  duplicates: 'sum',
  misdelivered: 'sum',
  echo: 'sum',
  relative: 'delay',
  absolute: 'delay',
  emits: { sent: 'sum', acked: 'sum', timedOut: 'sum', failed: 'sum', closed: 'sum', ackTime: 'delay' },
  health: MERGE_RULES.health,
  custom: 'custom',
  replies: { sent: 'sum', replied: 'sum', timedOut: 'sum', failed: 'sum', time: 'delay' },
  // The live label (a window's line as it closes); the result's windows are labelled from the merged steps.
  phase: 'first'
}
