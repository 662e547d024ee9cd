/**
 * The clients' own figures over one span of time: emits sent and how their acks ended (with
 * the ack time), the waits for a reply event, a scenario's ctx.timing and ctx.count. A --window
 * keeps one per window (windows.js), its times as encoded HDR histograms; the swarm one per
 * second, sent with its one-second sample to the live metrics (`ioswarm_emits_acked`,
 * results/metrics/families/figure-metrics.js), its times already in the metrics' buckets. Told
 * once per emit, once per ack's or wait's end and once per record: never per receipt.
 */
import { isAckClosed, isAckTimeout } from '../../lib/errors.js'
import { createHistogram, encode, recordMs, summarize } from '../../lib/measure/histogram.js'
import { createCustomFigures } from '../../lib/measure/custom-measures.js'
import { bucketCountsOf } from '../../lib/measure/hdr-buckets.js'

/**
 * @typedef {import('../../lib/measure/histogram.js').Histogram} Histogram
 * @typedef {import('../../lib/schema/result-schema.js').ClientFigures} FiguresReport
 * @typedef {import('../../lib/schema/result-schema.js').SecondFigures} SecondFigures
 */

/**
 * What emitting, replies and a scenario tell of each emit, ack, wait and record (a window
 * book, one span's figures, or both through teeFigures).
 * @typedef {object} FiguresSink
 * @property {() => void} sent a line was emitted (an emit with counts: --emit, a scenario's)
 * @property {(error: Error | null, elapsedMs: number) => void} ack an emit's ack ended: acked (timed), timed out, failed or closed
 * @property {() => void} replySent an emit that waits for a reply event was sent
 * @property {(error: Error | null, elapsedMs: number) => void} replyEnded a wait ended: replied (timed), timed out or failed
 * @property {(name: string, ms: number) => void} timing a scenario's timing, already admitted by the process's own figures
 * @property {(name: string, n: number) => void} count a scenario's count, likewise
 */

/** @param {Histogram} h */
const encoded = (h) => ({ ...summarize(h), histogram: encode(h) })

/**
 * One span's figures.
 * @returns {FiguresSink & { report: () => FiguresReport, take: () => SecondFigures | null }}
 */
export function createFigures () {
  let emits = { sent: 0, acked: 0, timedOut: 0, failed: 0, closed: 0 }
  let ackTime = createHistogram()
  /** made at the first wait @type {{ sent: number, replied: number, timedOut: number, failed: number, time: Histogram } | null} */
  let replies = null
  /** made at the first record @type {ReturnType<typeof createCustomFigures> | null} */
  let custom = null
  let told = false

  /** @returns {FiguresReport} */
  function report () {
    const customReport = custom?.record()
    return {
      emits: { ...emits, ackTime: encoded(ackTime) },
      ...(customReport ? { custom: customReport } : {}),
      ...(replies ? { replies: { ...replies, time: encoded(replies.time) } } : {})
    }
  }

  return {
    sent () {
      told = true
      emits.sent++
    },
    ack (error, elapsedMs) {
      told = true
      if (error === null) {
        emits.acked++
        recordMs(ackTime, elapsedMs)
      } else if (isAckTimeout(error)) emits.timedOut++
      else if (isAckClosed(error)) emits.closed++
      else emits.failed++
    },
    replySent () {
      told = true
      ;(replies ??= { sent: 0, replied: 0, timedOut: 0, failed: 0, time: createHistogram() }).sent++
    },
    replyEnded (error, elapsedMs) {
      told = true
      const r = (replies ??= { sent: 0, replied: 0, timedOut: 0, failed: 0, time: createHistogram() })
      if (error === null) {
        r.replied++
        recordMs(r.time, elapsedMs)
      } else if (isAckTimeout(error)) r.timedOut++
      else r.failed++
    },
    timing (name, ms) {
      told = true
      ;(custom ??= createCustomFigures()).timing(name, ms)
    },
    count (name, n) {
      told = true
      ;(custom ??= createCustomFigures()).count(name, n)
    },
    report,
    /** The figures since the last take, times in the live metrics' buckets (null: nothing was told), and a fresh start. */
    take () {
      if (!told) return null
      const recorded = custom?.live()
      const timings = recorded ? Object.fromEntries([...recorded.timings].map(([name, h]) => [name, bucketCountsOf(h)])) : {}
      /** @type {SecondFigures} */
      const taken = {
        emits: { ...emits, ackTime: bucketCountsOf(ackTime) },
        ...(recorded ? { custom: { counts: Object.fromEntries(recorded.counts), timings } } : {}),
        ...(replies ? { replies: { ...replies, time: bucketCountsOf(replies.time) } } : {})
      }
      emits = { sent: 0, acked: 0, timedOut: 0, failed: 0, closed: 0 }
      ackTime = createHistogram()
      replies = null
      custom = null
      told = false
      return taken
    }
  }
}

/**
 * One sink telling each of `sinks` (null ones left out).
 * @param {(FiguresSink | null)[]} sinks
 * @returns {FiguresSink}
 */
export function teeFigures (sinks) {
  const all = /** @type {FiguresSink[]} */ (sinks.filter((s) => s !== null))
  if (all.length === 1) return all[0]
  return {
    sent: () => { for (const s of all) s.sent() },
    ack: (error, elapsedMs) => { for (const s of all) s.ack(error, elapsedMs) },
    replySent: () => { for (const s of all) s.replySent() },
    replyEnded: (error, elapsedMs) => { for (const s of all) s.replyEnded(error, elapsedMs) },
    timing: (name, ms) => { for (const s of all) s.timing(name, ms) },
    count: (name, n) => { for (const s of all) s.count(name, n) }
  }
}
