/**
 * Hand-made simulator reports for the collector and aggregation tests, built with the
 * real HDR histograms from known raw delays.
 */
import { createHistogram, encode, recordMs, summarize } from '../../lib/measure/histogram.js'
import { createRecorder } from '../../simulator/recording/recorder.js'

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
 * @param {{ round: number | null, seq: number | null, relativeMs: number[], absoluteMs?: number[] | null, missing?: number, firstAt?: number, sentAt?: number | null, event?: string, floor?: import('../../lib/schema/result-schema.js').FloorReport, id?: string, namespace?: string, room?: string | null, misdelivered?: number, duplicates?: number }} spec
 *   without `floor`, the report has none (as from a simulator older than the field); without `namespace`, none either (older simulators)
 * @returns {import('../../lib/schema/result-schema.js').MessageReport}
 */
export function messageReport ({
  round, seq, relativeMs, absoluteMs = null, missing = 0, firstAt = 1_700_000_000_000, sentAt = null, event = 'broadcast', floor, id: givenId,
  namespace, room, misdelivered, duplicates = 0
}) {
  const id = givenId ?? (round === null ? `free-${seq}` : `${round}.${seq}`)
  return {
    key: `${namespace === undefined || namespace === '/' ? '' : `${namespace}#`}${event}:${id}`,
    id,
    event,
    ...(namespace === undefined ? {} : { namespace }),
    ...(room === undefined ? {} : { room }),
    round,
    seq,
    sentAt,
    firstAt,
    received: relativeMs.length,
    expected: relativeMs.length + missing,
    missing,
    duplicates,
    ...(misdelivered === undefined ? {} : { misdelivered }),
    late: 0,
    relative: encodedDelay(relativeMs),
    absolute: absoluteMs ? { ...encodedDelay(absoluteMs), negative: 0 } : null,
    ...(floor ? { floor } : {})
  }
}

/**
 * A simulator's final report with connect times.
 * @param {{ target: number, connected: number, failed: number, connectMs: number[], clock?: import('../../lib/schema/result-schema.js').ClockInfo }} spec
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

/**
 * Message reports of one simulator as its real recorder closes them: client i is in room
 * `room-{i mod rooms}` (assigned and joined) and connected; each message reaches the clients
 * in `to` (default: its room's), and the clients in `twice` a second time. Delays are what
 * the recorder measures (close to 0: one synchronous burst).
 * @param {{ clients: number, rooms: number, namespace?: string, messages: { id: string, room: string | null, event?: string, to?: number[], twice?: number[] }[] }} spec
 * @returns {import('../../lib/schema/result-schema.js').MessageReport[]}
 */
export function recordRoomMessages ({ clients, rooms, namespace = '/', messages }) {
  const recorder = createRecorder({ clients, messageTimeoutMs: 60_000, namespace })
  const roomOf = (/** @type {number} */ i) => `room-${i % rooms}`
  for (let i = 0; i < clients; i++) {
    recorder.setConnected(i, true)
    recorder.assignRoom(i, roomOf(i))
    recorder.setJoined(i, roomOf(i), true)
  }
  for (const m of messages) {
    const to = m.to ?? Array.from({ length: clients }, (_, i) => i).filter((i) => m.room === null || roomOf(i) === m.room)
    const args = [{ id: m.id, sentAt: Date.now(), ...(m.room === null ? {} : { room: m.room }) }]
    for (const i of [...to, ...(m.twice ?? [])]) recorder.receive(i, m.event ?? 'broadcast', args)
  }
  recorder.closeAll()
  return recorder.reports()
}

/**
 * A simulator's (or a worker's) SimResult: what mergeSimResults reads.
 * @param {string} id
 * @param {Partial<import('../../lib/schema/result-schema.js').SimResult>} over
 * @returns {import('../../lib/schema/result-schema.js').SimResult}
 */
export function simResult (id, over) {
  return /** @type {import('../../lib/schema/result-schema.js').SimResult} */ (/** @type {unknown} */ ({
    id,
    pid: 1,
    startedAt: 1000,
    endedAt: 2000,
    options: { clients: 6 },
    clients: {
      target: 6,
      connected: 6,
      failed: 0,
      everConnected: 6,
      byTransport: {},
      attempts: 6,
      reconnects: 0,
      disconnects: {},
      errors: {},
      connectTime: { ...encodedDelay([1, 2]), curve: [] }
    },
    messages: [],
    health: { samples: [], summary: { loopDelayP99MaxMs: 1, cpuPctMax: 1, eluMax: 0.1, rssMaxBytes: 1, saturatedSeconds: 0 } },
    timeline: [],
    ...over
  }))
}
