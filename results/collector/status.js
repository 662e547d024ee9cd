/**
 * Shared by both backends: checks on what writers send, and the assembly of query
 * answers from stored records (the merging itself is in ../aggregate.js).
 */
import { CODES, IoswarmError, invalidOption } from '../../lib/errors.js'
import { isSaturated } from '../../lib/measure/process-sampler.js'

/**
 * @typedef {import('./types.js').SimulatorInfo} SimulatorInfo
 * @typedef {import('./types.js').SimulatorStatus} SimulatorStatus
 * @typedef {import('./types.js').FinalReport} FinalReport
 * @typedef {import('./types.js').RunSamples} RunSamples
 * @typedef {import('../../lib/schema/result-schema.js').ClockInfo} ClockInfo
 * @typedef {import('../../lib/schema/result-schema.js').TimelinePoint} TimelinePoint
 * @typedef {import('../../lib/schema/result-schema.js').ProcessSample} ProcessSample
 * @typedef {import('../../lib/schema/result-schema.js').ServerSample} ServerSample
 */

/** The clock of a simulator that never reported one. */
const UNMEASURED_CLOCK = Object.freeze({ offsetMs: 0, uncertaintyMs: 0, reference: 'unmeasured' })

// Ids become parts of Redis keys and of `simId|messageKey` fields: no braces (hash tags),
// no `|`, no `:` so that a key splits back unambiguously.
const ID_PATTERN = /^[A-Za-z0-9._-]{1,128}$/

/**
 * Checks a run, simulator or server id before it goes into a key.
 * @param {unknown} id
 * @param {string} what e.g. 'run id'
 * @returns {string}
 */
export function checkId (id, what) {
  if (typeof id !== 'string' || !ID_PATTERN.test(id)) {
    throw invalidOption(what, `must be 1 to 128 characters of A-Z a-z 0-9 . _ -, got ${JSON.stringify(id)}`)
  }
  return id
}

/**
 * Checks a heartbeat's time to live.
 * @param {unknown} ttlMs
 * @returns {number} whole milliseconds, at least 1
 */
export function checkTtl (ttlMs) {
  if (typeof ttlMs !== 'number' || !Number.isFinite(ttlMs) || ttlMs <= 0) {
    throw invalidOption('heartbeat ttlMs', `must be a positive number of milliseconds, got ${JSON.stringify(ttlMs)}`)
  }
  return Math.max(1, Math.round(ttlMs))
}

/**
 * Checks the parts of a message report the collector relies on.
 * @param {import('../../lib/schema/result-schema.js').MessageReport} report
 */
export function checkMessageReport (report) {
  if (!report || typeof report.key !== 'string' || report.key === '' || typeof report.relative?.histogram !== 'string') {
    throw new IoswarmError(CODES.COLLECTOR, 'a message report must have a non-empty string key and a relative.histogram')
  }
  return report
}

/**
 * A window report as the collector takes it (--window): a whole-number index and the relative histogram.
 * @param {import('../../lib/schema/result-schema.js').WindowReport} report
 */
export function checkWindowReport (report) {
  if (!report || !Number.isSafeInteger(report.index) || typeof report.relative?.histogram !== 'string') {
    throw new IoswarmError(CODES.COLLECTOR, 'a window report must have a whole-number index and a relative.histogram')
  }
  return report
}

/**
 * Checks readWindows' cursor (null, or what it returned) and limit.
 * @param {unknown} cursor
 * @param {unknown} limit
 * @returns {{ cursor: string | null, limit: number }}
 */
export function checkWindowRead (cursor, limit) {
  if (cursor !== null && (typeof cursor !== 'string' || !/^\d+(-\d+)?$/.test(cursor))) {
    throw invalidOption('read cursor', `must be null or what readWindows returned, got ${JSON.stringify(cursor)?.slice(0, 100)}`)
  }
  return { cursor, limit: checkRead(null, limit).limit }
}

/**
 * Checks dropWindows' cursor: what readWindows returned (never null: dropping "everything" is deleteRun).
 * @param {unknown} cursor
 * @returns {string}
 */
export function checkWindowDrop (cursor) {
  const checked = checkWindowRead(cursor, READ_LIMIT).cursor
  if (checked === null) throw invalidOption('drop cursor', 'must be what readWindows returned, got null')
  return checked
}

/**
 * Checks dropMessages' cursor: the `messages` part of what readSince returned.
 * @param {unknown} upTo
 * @returns {string}
 */
export function checkMessageDrop (upTo) {
  if (typeof upTo !== 'string' || !/^\d+(-\d+)?$/.test(upTo)) {
    throw invalidOption('drop cursor', `must be the messages part of what readSince returned, got ${JSON.stringify(upTo)?.slice(0, 100)}`)
  }
  return upTo
}

/** Entries of each record that one readSince returns at most, unless told. */
export const READ_LIMIT = 1000

/**
 * Checks readSince's cursor and limit.
 * @param {unknown} cursor
 * @param {unknown} limit
 * @returns {{ cursor: import('./types.js').ReadCursor | null, limit: number }}
 */
export function checkRead (cursor, limit) {
  if (cursor !== null) {
    const c = /** @type {Record<string, unknown>} */ (cursor)
    const isId = (/** @type {string} */ k) => typeof c[k] === 'string' && /^\d+(-\d+)?$/.test(/** @type {string} */ (c[k]))
    if (typeof c !== 'object' || !['messages', 'samples', 'serverSamples'].every(isId)) {
      throw invalidOption('read cursor', `must be null or what readSince returned, got ${JSON.stringify(cursor)?.slice(0, 100)}`)
    }
  }
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > 100_000) {
    throw invalidOption('read limit', `must be a whole number from 1 to 100000, got ${JSON.stringify(limit)}`)
  }
  return { cursor: /** @type {import('./types.js').ReadCursor | null} */ (cursor), limit }
}

/**
 * A simulator's state from its stored records.
 * @param {SimulatorInfo} info as registered
 * @param {{ alive: boolean, lastHeartbeatAt: number | null, final: FinalReport | null, clock: ClockInfo | null, last: TimelinePoint | null }} state
 * @returns {SimulatorStatus}
 */
export function simulatorStatus (info, { alive, lastHeartbeatAt, final, clock, last }) {
  const clients = final
    ? { target: final.clients.target, connected: final.clients.connected, failed: final.clients.failed }
    // No final report (yet): the last second it reported is the best known state.
    : { target: info.clients, connected: last?.connected ?? 0, failed: 0 }
  return {
    id: info.id,
    hostname: info.hostname,
    pid: info.pid,
    engine: info.engine,
    transport: info.transport,
    startedAt: info.startedAt,
    clients,
    alive,
    stale: !alive && !final,
    lastHeartbeatAt,
    clock: clock ?? final?.clock ?? { ...UNMEASURED_CLOCK },
    health: final?.health ?? null,
    final
  }
}

/**
 * Sorts samples by time (then simulator) and flags the seconds a simulator was saturated.
 * @param {{ simulator: string, timeline: TimelinePoint, health: ProcessSample }[]} simulatorSamples
 * @param {ServerSample[]} serverSamples
 * @returns {RunSamples}
 */
export function assembleSamples (simulatorSamples, serverSamples) {
  const order = (/** @type {{ t: number, simulator: string }} */ a, /** @type {{ t: number, simulator: string }} */ b) =>
    a.t - b.t || compareText(a.simulator, b.simulator)
  return {
    timeline: simulatorSamples.map((s) => ({ ...s.timeline, simulator: s.simulator })).sort(order),
    health: simulatorSamples.map((s) => ({ ...s.health, simulator: s.simulator, saturated: isSaturated(s.health) })).sort(order),
    server: [...serverSamples].sort((a, b) => a.t - b.t || compareText(a.server ?? '', b.server ?? ''))
  }
}

/**
 * Finals as a list sorted by simulator id.
 * @param {Iterable<[string, FinalReport]>} finals
 * @returns {(FinalReport & { simulator: string })[]}
 */
export function finalsList (finals) {
  return [...finals].sort(([a], [b]) => compareText(a, b)).map(([simulator, f]) => ({ ...f, simulator }))
}

/**
 * Code-unit order (not locale order: ids sort the same everywhere).
 * @param {string} a
 * @param {string} b
 */
export function compareText (a, b) {
  return a < b ? -1 : a > b ? 1 : 0
}
