/**
 * Hand-made simulator reports for the collector and aggregation tests, built with the
 * real HDR histograms from known raw delays.
 */
import { createHistogram, encode, recordMs, summarize } from '../../lib/histogram.js'

/**
 * Deterministic pseudo-random delays (ms, 3 decimals) in [0, spreadMs).
 * @param {number} seed
 * @param {number} count
 * @param {number} [spreadMs]
 */
export function delays (seed, count, spreadMs = 80) {
  let x = (seed * 2654435761) >>> 0
  const out = []
  for (let i = 0; i < count; i++) {
    x = (x * 1103515245 + 12345) >>> 0
    out.push(Math.round((x / 2 ** 32) * spreadMs * 1000) / 1000)
  }
  return out
}

/**
 * Summary + encoded histogram of raw delays.
 * @param {number[]} delaysMs
 */
export function encodedDelay (delaysMs) {
  const h = createHistogram()
  for (const d of delaysMs) recordMs(h, d)
  return { ...summarize(h), histogram: encode(h) }
}

/** @param {number[]} delaysMs */
export function summaryOf (delaysMs) {
  const h = createHistogram()
  for (const d of delaysMs) recordMs(h, d)
  return summarize(h)
}

/**
 * A MessageReport as one simulator would send it.
 * @param {{ round: number | null, seq: number | null, relativeMs: number[], absoluteMs?: number[] | null, missing?: number, firstAt?: number, sentAt?: number | null, event?: string, floor?: import('../../lib/schema.js').FloorReport }} spec
 *   without `floor`, the report has none (as from a simulator older than the field)
 * @returns {import('../../lib/schema.js').MessageReport}
 */
export function messageReport ({ round, seq, relativeMs, absoluteMs = null, missing = 0, firstAt = 1_700_000_000_000, sentAt = null, event = 'broadcast', floor }) {
  const id = round === null ? `free-${seq}` : `${round}.${seq}`
  return {
    key: `${event}:${id}`,
    id,
    event,
    round,
    seq,
    sentAt,
    firstAt,
    received: relativeMs.length,
    expected: relativeMs.length + missing,
    missing,
    duplicates: 0,
    late: 0,
    relative: encodedDelay(relativeMs),
    absolute: absoluteMs ? { ...encodedDelay(absoluteMs), negative: 0 } : null,
    ...(floor ? { floor } : {})
  }
}

/**
 * A simulator's final report with connect times.
 * @param {{ target: number, connected: number, failed: number, connectMs: number[], clock?: import('../../lib/schema.js').ClockInfo }} spec
 * @returns {import('../../results/collector/types.js').FinalReport}
 */
export function finalReport ({ target, connected, failed, connectMs, clock = { offsetMs: 0, uncertaintyMs: 0, reference: 'local' } }) {
  return {
    clients: {
      target,
      connected,
      failed,
      everConnected: connected,
      byTransport: { websocket: { target, connected, upgraded: 0 } },
      attempts: target,
      reconnects: 0,
      disconnects: {},
      errors: failed ? { timeout: failed } : {},
      connectTime: { ...encodedDelay(connectMs), curve: [] }
    },
    health: { loopDelayP99MaxMs: 3, cpuPctMax: 40, eluMax: 0.4, rssMaxBytes: 80e6, saturatedSeconds: 0 },
    clock,
    endedAt: 1_700_000_100_000
  }
}

/**
 * One second of a simulator: timeline point and process sample.
 * @param {number} t
 * @param {{ connected?: number, elu?: number, loopDelayP99Ms?: number }} [values]
 */
export function sample (t, { connected = 10, elu = 0.2, loopDelayP99Ms = 2 } = {}) {
  return {
    timeline: { t, connected, byTransport: { websocket: connected, polling: 0 }, connects: 1, disconnects: 0, errors: 0, messages: 0 },
    health: { t, loopDelayP50Ms: 1, loopDelayP99Ms, loopDelayMaxMs: loopDelayP99Ms + 1, elu, cpuPct: 20, rssBytes: 70e6, heapUsedBytes: 30e6 }
  }
}
