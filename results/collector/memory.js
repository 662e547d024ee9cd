/**
 * The in-memory collector: for a runner that forks its simulators locally (their writes
 * arrive over IPC) and for tests. Stores what the Redis backend stores, with the same
 * bounds, as JSON copies, so that both behave alike.
 */
import { wallMs } from '../../lib/measure/clock.js'
import { EventEmitter } from 'node:events'
import { performance } from 'node:perf_hooks'
import { CODES, IoswarmError } from '../../lib/errors.js'
import { mergeMessageReports, groupRounds } from '../merge/aggregate.js'
import { messageResults } from '../merge/message-results.js'
import { deliveryBreakdown } from '../merge/delivery-rows.js'
import {
  READ_LIMIT, assembleSamples, checkId, checkRead, checkMessageDrop, checkMessageReport, checkTtl, checkWindowDrop, checkWindowRead, checkWindowReport,
  compareText, finalsList, simulatorStatus
} from './status.js'
import { LIMITS } from '../../lib/schema/collector-keys.js'

/** @typedef {import('./types.js').Collector} Collector */

/** @param {string} runId */
function emptyRun (runId) {
  return {
    /** @type {(import('./types.js').RunInfo & { id: string }) | null} */
    info: null,
    id: runId,
    /** @type {Map<string, import('./types.js').SimulatorInfo>} */
    simulators: new Map(),
    /** @type {Map<string, { expiresAt: number, at: number }>} expiresAt on the monotonic clock */
    heartbeats: new Map(),
    /** @type {Map<string, import('./types.js').MessageEntry>} by `simId|messageKey` */
    messages: new Map(),
    /** @type {import('./types.js').MessageEntry[]} the same entries in the order stored (trimmed only by dropMessages: reports past the bound are refused) */
    messageLog: [],
    /** @type {{ simulator: string, timeline: import('../../lib/schema/result-schema.js').TimelinePoint, health: import('../../lib/schema/result-schema.js').ProcessSample }[]} */
    samples: [],
    /** @type {import('../../lib/schema/result-schema.js').ServerSample[]} */
    serverSamples: [],
    /** @type {{ simulator: string, report: import('../../lib/schema/result-schema.js').WindowReport }[]} window reports (--window), in the order stored */
    windows: [],
    /** Entries trimmed off the front so far: a cursor is a position counted from the first ever stored. */
    trimmed: { messages: 0, samples: 0, serverSamples: 0, windows: 0 },
    /** @type {Map<string, import('./types.js').FinalReport>} */
    finals: new Map(),
    /** @type {Map<string, import('../../lib/schema/result-schema.js').ClockInfo>} */
    clocks: new Map(),
    /** @type {Map<string, import('../../lib/schema/result-schema.js').TimelinePoint>} */
    last: new Map(),
    /** @type {Map<string, number>} message reports refused past the bound, by simulator */
    refused: new Map()
  }
}

/** @template T @param {T} value @returns {T} a JSON copy, as Redis would return it */
const copy = (value) => JSON.parse(JSON.stringify(value))

/**
 * Drops the oldest entries past the bound, in batches (like MAXLEN ~).
 * @param {unknown[]} list
 * @param {number} max
 * @returns {number} entries dropped
 */
function trim (list, max) {
  return list.length > max + Math.ceil(max / 10) ? list.splice(0, list.length - max).length : 0
}

/**
 * The entries of a trimmed list after position `from` (counted from the first ever stored).
 * @template T
 * @param {T[]} list
 * @param {number} trimmed entries dropped off its front so far
 * @param {string} from
 * @param {number} limit
 */
function after (list, trimmed, from, limit) {
  const start = Math.max(0, Number.parseInt(from, 10) - trimmed)
  const entries = list.slice(start, start + limit)
  return { entries, next: String(trimmed + start + entries.length), full: entries.length >= limit }
}

/**
 * An in-memory collector (same interface and bounds as the Redis one).
 * @param {{ maxMessageReports?: number, maxSamples?: number }} [limits]
 * @returns {Collector}
 */
export function createMemoryCollector ({ maxMessageReports = LIMITS.messageReports, maxSamples = LIMITS.samples } = {}) {
  /** @type {Map<string, ReturnType<typeof emptyRun>>} */
  const runs = new Map()
  const control = new EventEmitter()
  /** @param {string} runId for writes: created on first use */
  const write = (runId) => {
    let run = runs.get(checkId(runId, 'run id'))
    if (!run) runs.set(runId, (run = emptyRun(runId)))
    return run
  }
  /** @param {string} runId for queries: an unknown run reads as empty */
  const read = (runId) => runs.get(checkId(runId, 'run id')) ?? emptyRun(runId)
  const clocksOf = (/** @type {ReturnType<typeof emptyRun>} */ run) => Object.fromEntries(run.clocks)

  return {
    kind: 'memory',
    /** The reference clock: this process's wall clock (every simulator shares the host's). */
    async time () {
      return wallMs()
    },
    async registerRun (runId, { name, startedAt, options }) {
      write(runId).info = copy({ id: runId, name, startedAt, options })
    },
    async registerSimulator (runId, info) {
      write(runId).simulators.set(checkId(info.id, 'simulator id'), copy(info))
    },
    async heartbeat (runId, simId, ttlMs) {
      write(runId).heartbeats.set(checkId(simId, 'simulator id'), { expiresAt: performance.now() + checkTtl(ttlMs), at: Date.now() })
    },
    async reportMessage (runId, simId, report) {
      const run = write(runId)
      const field = `${checkId(simId, 'simulator id')}|${checkMessageReport(report).key}`
      if (run.messages.has(field)) return
      if (run.messages.size >= maxMessageReports) {
        run.refused.set(simId, (run.refused.get(simId) ?? 0) + 1)
        throw tooManyReports(runId, maxMessageReports)
      }
      const entry = { simulator: simId, report: copy(report) }
      run.messages.set(field, entry)
      run.messageLog.push(entry)
    },
    async reportSample (runId, simId, { timeline, health, figures }) {
      const run = write(runId)
      run.samples.push(copy({ simulator: checkId(simId, 'simulator id'), timeline, health, ...(figures ? { figures } : {}) }))
      run.last.set(simId, copy(timeline))
      run.trimmed.samples += trim(run.samples, maxSamples)
    },
    async reportServerSample (runId, serverId, sample) {
      const run = write(runId)
      run.serverSamples.push(copy({ ...sample, server: checkId(serverId, 'server id') }))
      run.trimmed.serverSamples += trim(run.serverSamples, maxSamples)
    },
    async reportFinal (runId, simId, final) {
      const run = write(runId)
      run.finals.set(checkId(simId, 'simulator id'), copy(final))
      run.clocks.set(simId, copy(final.clock))
    },
    async reportClock (runId, simId, clock) {
      write(runId).clocks.set(checkId(simId, 'simulator id'), copy(clock))
    },
    async reportWindow (runId, simId, report) {
      const run = write(runId)
      run.windows.push(copy({ simulator: checkId(simId, 'simulator id'), report: checkWindowReport(report) }))
      run.trimmed.windows += trim(run.windows, maxSamples)
    },

    async listRuns () {
      const infos = [...runs.values()].flatMap((r) => r.info ? [copy(r.info)] : [])
      return infos.sort((a, b) => a.startedAt - b.startedAt)
    },
    async listSimulators (runId) {
      const run = read(runId)
      const now = performance.now()
      return [...run.simulators.values()].sort((a, b) => compareText(a.id, b.id)).map((info) => {
        const heartbeat = run.heartbeats.get(info.id)
        return copy(simulatorStatus(info, {
          alive: heartbeat !== undefined && heartbeat.expiresAt > now,
          lastHeartbeatAt: heartbeat?.at ?? null,
          final: run.finals.get(info.id) ?? null,
          clock: run.clocks.get(info.id) ?? null,
          last: run.last.get(info.id) ?? null
        }))
      })
    },
    async getMessages (runId) {
      const run = read(runId)
      return mergeMessageReports([...run.messages.values()], clocksOf(run))
    },
    async getRounds (runId, planned) {
      const run = read(runId)
      return groupRounds([...run.messages.values()], clocksOf(run), planned)
    },
    async getDeliveries (runId, options) {
      const run = read(runId)
      return deliveryBreakdown([...run.messages.values()], clocksOf(run), options)
    },
    async getMessageResults (runId, { planned, topRooms } = {}) {
      const run = read(runId)
      return messageResults([...run.messages.values()], clocksOf(run), planned, topRooms)
    },
    async getSamples (runId) {
      const run = read(runId)
      return copy(assembleSamples(run.samples, run.serverSamples))
    },
    async getRefused (runId) {
      return { limit: maxMessageReports, bySimulator: Object.fromEntries(read(runId).refused) }
    },
    async getFinals (runId) {
      return copy(finalsList(read(runId).finals))
    },
    async readWindows (runId, cursor, limit = READ_LIMIT) {
      const run = read(runId)
      const r = checkWindowRead(cursor, limit)
      const w = after(run.windows, run.trimmed.windows, r.cursor ?? '0', r.limit)
      return copy({ windows: w.entries, cursor: w.next, more: w.full })
    },
    async dropWindows (runId, cursor) {
      const upTo = Number.parseInt(checkWindowDrop(cursor), 10)
      const run = runs.get(checkId(runId, 'run id'))
      if (run) run.trimmed.windows += run.windows.splice(0, Math.max(0, upTo - run.trimmed.windows)).length
    },
    async dropMessages (runId, upTo) {
      const last = Number.parseInt(checkMessageDrop(upTo), 10)
      const run = runs.get(checkId(runId, 'run id'))
      if (!run) return
      const dropped = run.messageLog.splice(0, Math.max(0, last - run.trimmed.messages))
      run.trimmed.messages += dropped.length
      for (const e of dropped) run.messages.delete(`${e.simulator}|${e.report.key}`)
    },
    async readSince (runId, cursor, limit = READ_LIMIT) {
      const run = read(runId)
      const r = checkRead(cursor, limit)
      const from = r.cursor ?? { messages: '0', samples: '0', serverSamples: '0' }
      const m = after(run.messageLog, run.trimmed.messages, from.messages, r.limit)
      const s = after(run.samples, run.trimmed.samples, from.samples, r.limit)
      const v = after(run.serverSamples, run.trimmed.serverSamples, from.serverSamples, r.limit)
      return copy({
        messages: m.entries,
        samples: s.entries,
        serverSamples: v.entries,
        cursor: { messages: m.next, samples: s.next, serverSamples: v.next },
        more: m.full || s.full || v.full
      })
    },

    async publishControl (runId, message) {
      const event = `control:${checkId(runId, 'run id')}`
      const payload = copy(message)
      // Delivered later, like Redis pub/sub: never inside the publisher's call.
      setImmediate(() => control.emit(event, payload))
    },
    async subscribeControl (runId, handler) {
      const event = `control:${checkId(runId, 'run id')}`
      control.on(event, handler)
      return async () => { control.off(event, handler) }
    },
    async deleteRun (runId) {
      runs.delete(checkId(runId, 'run id'))
    },
    async close () {
      control.removeAllListeners()
    }
  }
}

/**
 * The error for a message report past the run's bound (both backends).
 * @param {string} runId
 * @param {number} max
 */
export function tooManyReports (runId, max) {
  const error = new IoswarmError(CODES.COLLECTOR,
    `run ${runId} already holds ${max} message reports (the collector's bound, maxMessageReports); further reports are refused and counted (getRefused)`)
  // Counted by the collector already: a writer drops it instead of retrying (simulator/reporting/reporter.js).
  return Object.assign(error, { refused: true, limit: max })
}
