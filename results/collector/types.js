/**
 * The collector's interface and the shapes it stores, as JSDoc types. Both backends
 * (memory, Redis) implement Collector and pass the same contract tests.
 */

/**
 * @typedef {import('../../lib/schema/result-schema.js').MessageReport} MessageReport
 * @typedef {import('../../lib/schema/result-schema.js').TimelinePoint} TimelinePoint
 * @typedef {import('../../lib/schema/result-schema.js').ProcessSample} ProcessSample
 * @typedef {import('../../lib/schema/result-schema.js').ServerSample} ServerSample
 * @typedef {import('../../lib/schema/result-schema.js').ClientCounts} ClientCounts
 * @typedef {import('../../lib/schema/result-schema.js').HealthSummary} HealthSummary
 * @typedef {import('../../lib/schema/result-schema.js').ClockInfo} ClockInfo
 * @typedef {import('../../lib/schema/result-schema.js').RunMessage} RunMessage
 * @typedef {import('../../lib/schema/result-schema.js').RoundResult} RoundResult
 * @typedef {import('../../lib/schema/result-schema.js').SimulatorSummary} SimulatorSummary
 */

/**
 * @typedef {object} RunInfo
 * @property {string} name
 * @property {number} startedAt epoch ms
 * @property {Record<string, unknown>} options the run's options (no secrets)
 */

/**
 * @typedef {object} SimulatorInfo
 * @property {string} id unique within the run
 * @property {string} hostname
 * @property {number} pid
 * @property {number} clients clients this simulator will open
 * @property {string} transport transport or mix, as given
 * @property {string} engine
 * @property {number} startedAt epoch ms
 */

/**
 * A simulator's end-of-run summary: what it measured besides its messages and samples (client
 * counts, health summary, joins and emits with their histograms, destinations, source
 * addresses, the recorder's costs, churn: results/merge/measures.js measuresOf), its clock and end.
 * @typedef {import('../../lib/schema/result-schema.js').SimMeasures & { clock: ClockInfo, endedAt: number, phases?: import('../../lib/schema/result-schema.js').PhaseStep[], rampedDown?: number }} FinalReport
 */

/**
 * @typedef {object} SampleReport
 * @property {TimelinePoint} timeline
 * @property {ProcessSample} health
 * @property {import('../../lib/schema/result-schema.js').SecondFigures} [figures] the clients' emits, acks, replies and custom figures in that second
 *   (none: nothing of them happened); fed to the live metrics (results/metrics/families/figure-metrics.js)
 */

/**
 * A simulator as the collector sees it now.
 * @typedef {SimulatorSummary & { startedAt: number, alive: boolean, lastHeartbeatAt: number | null, final: FinalReport | null }} SimulatorStatus
 */

/**
 * @typedef {object} RunSamples
 * @property {(TimelinePoint & { simulator: string })[]} timeline
 * @property {(ProcessSample & { simulator: string, saturated: boolean })[]} health
 * @property {ServerSample[]} server
 */

/** @typedef {{ count: number, intervalMs: number }} PlannedRound */

/**
 * One stored message report and who sent it.
 * @typedef {{ simulator: string, report: MessageReport }} MessageEntry
 */

/**
 * Where a reader stopped in a run's three append-only records: message reports, simulator
 * samples and server samples. Opaque (stream ids in Redis, positions in memory): pass back
 * what readSince returned; null reads from the start.
 * @typedef {{ messages: string, samples: string, serverSamples: string }} ReadCursor
 */

/**
 * What was stored after a cursor, in the order it was stored, and the cursor after it.
 * @typedef {object} NewRecords
 * @property {MessageEntry[]} messages a report refused as a duplicate was never stored, so is never read
 * @property {(SampleReport & { simulator: string })[]} samples
 * @property {ServerSample[]} serverSamples with `server` set
 * @property {ReadCursor} cursor
 * @property {boolean} more some record had `limit` entries after the cursor: read again for the rest
 */

/**
 * Everything a distribution's result takes from its message reports.
 * @typedef {object} MessageResults
 * @property {RunMessage[]} messages as getMessages
 * @property {RoundResult[]} rounds as getRounds
 * @property {import('../../lib/schema/result-schema.js').DeliveryBreakdown} deliveries as getDeliveries
 */

/**
 * @typedef {object} CollectorWriter
 * @property {(runId: string, info: RunInfo) => Promise<void>} registerRun
 * @property {(runId: string, info: SimulatorInfo) => Promise<void>} registerSimulator
 * @property {(runId: string, simId: string, ttlMs: number) => Promise<void>} heartbeat
 * @property {(runId: string, simId: string, report: MessageReport) => Promise<void>} reportMessage a second report of the same (simId, report.key) is ignored
 * @property {(runId: string, simId: string, sample: SampleReport) => Promise<void>} reportSample
 * @property {(runId: string, serverId: string, sample: ServerSample) => Promise<void>} reportServerSample
 * @property {(runId: string, simId: string, final: FinalReport) => Promise<void>} reportFinal
 * @property {(runId: string, simId: string, clock: ClockInfo) => Promise<void>} reportClock
 * @property {(runId: string, simId: string, window: import('../../lib/schema/result-schema.js').WindowReport) => Promise<void>} reportWindow a simulator's window once it is over (--window)
 */

/**
 * @typedef {object} CollectorReader
 * @property {() => Promise<(RunInfo & { id: string })[]>} listRuns oldest first
 * @property {(runId: string) => Promise<SimulatorStatus[]>} listSimulators by id
 * @property {(runId: string) => Promise<RunMessage[]>} getMessages
 * @property {(runId: string, planned?: PlannedRound[]) => Promise<RoundResult[]>} getRounds
 * @property {(runId: string) => Promise<RunSamples>} getSamples
 * @property {(runId: string) => Promise<(FinalReport & { simulator: string })[]>} getFinals by simulator id
 * @property {(runId: string) => Promise<{ limit: number, bySimulator: Record<string, number> }>} getRefused message reports refused
 *   past the run's bound (limit), counted by simulator: each is missing from getMessages, getRounds and getDeliveries
 * @property {(runId: string, options?: { topRooms?: number }) => Promise<import('../../lib/schema/result-schema.js').DeliveryBreakdown>} getDeliveries delivery figures per namespace, room and event (merged histograms), the top rooms by traffic
 * @property {(runId: string, options?: { planned?: PlannedRound[], topRooms?: number }) => Promise<MessageResults>} getMessageResults getMessages, getRounds and getDeliveries from one read of the reports (the end of a distribution)
 * @property {(runId: string, cursor: string | null, limit?: number) => Promise<{ windows: { simulator: string, report: import('../../lib/schema/result-schema.js').WindowReport }[], cursor: string, more: boolean }>} readWindows
 *   the window reports stored after `cursor` (opaque; null: from the start), in the order stored, at most `limit` (default 1000)
 * @property {(runId: string, cursor: ReadCursor | null, limit?: number) => Promise<NewRecords>} readSince what was stored after `cursor`, at most `limit` entries of each record (default 1000): a live reader's way to see each report once, without reading the whole run again
 */

/**
 * @typedef {object} CollectorControl
 * @property {(runId: string, message: Record<string, unknown>) => Promise<void>} publishControl e.g. { type: 'stop' }
 * @property {(runId: string, handler: (message: Record<string, unknown>) => void) => Promise<() => Promise<void>>} subscribeControl resolves to an unsubscribe function once subscribed
 * @property {(runId: string, cursor: string) => Promise<void>} dropWindows drops the window reports stored up to `cursor` (what
 *   readWindows returned): their reader holds them now (results/follow/window-follow.js, until it merges them), so a run without rounds
 *   keeps only the reports not read yet however long it runs; a readWindows from null starts after them
 * @property {(runId: string, upTo: string) => Promise<void>} dropMessages drops the message reports stored up to `upTo` (the `messages`
 *   part of a cursor readSince returned) and their dedupe entries: a run without rounds rolls its lines up as it reads them
 *   (results/follow/lines.js), so the collector holds only the reports not read yet (and its bound is never reached however long
 *   it runs); getMessages, getRounds and getDeliveries no longer see them, and a report of one of them sent again is stored again
 * @property {(runId: string) => Promise<void>} deleteRun
 * @property {() => Promise<void>} close
 */

/**
 * @typedef {CollectorWriter & CollectorReader & CollectorControl & { kind: 'memory' | 'redis', time: () => Promise<number> }} Collector the reference clock `time()` (epoch ms) is what clock offsets are measured against
 */

/** The write methods, by name: what a simulator may call (also over IPC). */
export const WRITE_METHODS = Object.freeze(/** @type {const} */ ([
  'registerRun', 'registerSimulator', 'heartbeat', 'reportMessage',
  'reportSample', 'reportServerSample', 'reportFinal', 'reportClock', 'reportWindow'
]))
