/**
 * What `ioswarm run` writes to result.json: its messages, rounds, simulators, distributions,
 * deliveries and thresholds (RunResult). JSDoc types checked by tsc; lib/schema/result-schema.js
 * re-exports them.
 */

/**
 * @typedef {import('./simulator-schema.js').ClockInfo} ClockInfo
 * @typedef {import('./simulator-schema.js').CustomReport} CustomReport
 * @typedef {import('./simulator-schema.js').DelaySummary} DelaySummary
 * @typedef {import('./simulator-schema.js').FloorReport} FloorReport
 * @typedef {import('./simulator-schema.js').HealthSummary} HealthSummary
 * @typedef {import('./simulator-schema.js').HostFacts} HostFacts
 * @typedef {import('./simulator-schema.js').NamespaceCounts} NamespaceCounts
 * @typedef {import('./simulator-schema.js').NodeReport} NodeReport
 * @typedef {import('./simulator-schema.js').PhaseStep} PhaseStep
 * @typedef {import('./simulator-schema.js').ProcessSample} ProcessSample
 * @typedef {import('./simulator-schema.js').ScenarioReport} ScenarioReport
 * @typedef {import('./simulator-schema.js').SimMeasures} SimMeasures
 * @typedef {import('./simulator-schema.js').SteeringAction} SteeringAction
 * @typedef {import('./simulator-schema.js').Storm} Storm
 * @typedef {import('./simulator-schema.js').TimelinePoint} TimelinePoint
 * @typedef {import('./window-schema.js').WindowResult} WindowResult
 */

/**
 * A message across all simulators of a distribution.
 * @typedef {object} RunMessage
 * @property {string} key
 * @property {string} id
 * @property {string} [batch] the broadcaster invocation that sent it
 * @property {string} event
 * @property {string} [namespace] the namespace it arrived on ('/' by default; absent from older results)
 * @property {string | null} [room] its target room (null: for every client; absent from older results)
 * @property {number | null} round
 * @property {number | null} seq
 * @property {number | null} sentAt
 * @property {number} simulators simulators that reported it
 * @property {number} received
 * @property {number} expected
 * @property {number} missing
 * @property {number} [duplicates] second copies to one client, summed over simulators (absent from older results)
 * @property {number} [misdelivered] copies to clients not in its target room, summed over simulators (absent from older results)
 * @property {number} [echo] copies back to their sender (a relayed line), summed over simulators (absent from older results)
 * @property {DelaySummary} relative merged histogram percentiles
 * @property {(DelaySummary & { uncertaintyMs: number }) | null} absolute
 * @property {{ relativeMs: number, absoluteMs: number | null }} avgOfAverages the 2012 rig's figure: mean of the simulators' means
 * @property {MessageFloor | null} [floor] the simulators' own floors; null when none reported one
 */

/**
 * A message's floors over simulators: the largest (the slowest drain) with its own spread, and
 * the busiest simulator's share.
 * @typedef {FloorReport & { simulator: string, busyMax: number }} MessageFloor
 *   cpuMs, spreadMs and simulator: the simulator with the largest cpuMs; busyMax: the largest
 *   cpuMs ÷ spreadMs of any simulator (about 1 = busy all along, so that simulator may have made
 *   its spread; 0 when every spread was 0)
 */

/**
 * Floors over the messages of a round, each message's floor being its largest over simulators.
 * @typedef {object} RoundFloor
 * @property {number} messages messages with a floor
 * @property {number} p50Ms median message floor (CPU ms)
 * @property {number} maxMs largest message floor
 * @property {number} spreadAtMaxMs the wall spread of the simulator and message with the largest floor
 * @property {number} busyMax the largest cpuMs ÷ spreadMs of any simulator and message (1 = busy all along); 0 when every spread was 0
 */

/**
 * @typedef {object} RoundResult
 * @property {number} round
 * @property {number} count messages planned
 * @property {number} intervalMs
 * @property {number} messages messages seen by at least one simulator
 * @property {number} received
 * @property {number} expected
 * @property {number} missing
 * @property {number} [duplicates] second copies to one client (absent from older results)
 * @property {number} [misdelivered] copies to clients not in the message's target room (absent from older results)
 * @property {DelaySummary} relative
 * @property {(DelaySummary & { uncertaintyMs: number }) | null} absolute
 * @property {{ relativeMs: number, absoluteMs: number | null }} avgOfAverages
 * @property {RoundFloor | null} [floor] the simulators' own floors; null when none reported one
 */

/**
 * @typedef {object} SimulatorSummary
 * @property {string} id
 * @property {string} hostname
 * @property {number} pid
 * @property {string} engine
 * @property {string} transport
 * @property {{ target: number, connected: number, failed: number }} clients
 * @property {boolean} stale stopped reporting before the end
 * @property {ClockInfo} clock
 * @property {HealthSummary | null} health
 */

/**
 * What the reference server's app namespaces counted since it started (GET /stats `app`).
 * @typedef {object} AppCounts
 * @property {Record<string, number>} namespaces sockets connected to each app namespace now
 * @property {number} refused namespace connections refused by --auth-token
 * @property {{ joins: number, leaves: number, rejected: number }} rooms join and leave requests accepted, and refused (bad room, too many rooms)
 * @property {{ received: number, relayed: number, rejected: number, limited: number }} relay
 *   emits of the relay event: received, relayed, refused for a bad payload, refused by the per-client rate
 */

/**
 * One second of a server process; `server` (its id, e.g. a cluster worker) is set by the collector.
 * @typedef {ProcessSample & { connected: number, byTransport: import('../transports.js').ByTransport, app?: AppCounts, server?: string, workers?: (ProcessSample & { worker: number, pid?: number })[], primary?: ProcessSample }} ServerSample
 *   a cluster (`serve --cluster K`) adds each worker's and the primary's own sample to the totals;
 *   `app`: the reference server's app counts (absent from probes)
 */

/**
 * @typedef {object} PublishSummary what a run's --publish requests did, apart from delivery
 * @property {string} request `METHOD URL` as given
 * @property {number} requests
 * @property {number} ok answered 2xx
 * @property {Record<string, number>} byStatus answers by HTTP status
 * @property {number} unanswered no answer (refused, reset, timed out)
 * @property {{ p50: number | null, p99: number | null, max: number | null }} requestMs each request's round trip
 */

/**
 * @typedef {object} DistributionResult
 * @property {string} name e.g. '2x500'
 * @property {number} simulators
 * @property {number} clientsPerSimulator
 * @property {number} startedAt
 * @property {number} endedAt
 * @property {{ target: number, connected: number, failed: number, errors?: Record<string, number>, disconnects?: Record<string, number>, unmeasuredEvents?: Record<string, number>, storms?: (Storm & { simulator: string })[], namespaces?: NamespaceCounts[] }} clients
 *   errors and disconnects: by reason, summed over the simulators' final reports (bounded as in lib/reasons.js; absent in older results);
 *   namespaces: per namespace, summed over the simulators (with --namespace)
 * @property {SimulatorSummary[]} simulatorList
 * @property {RoundResult[]} rounds
 * @property {RunMessage[]} messages
 * @property {(TimelinePoint & { simulator: string })[]} timeline
 * @property {(ProcessSample & { simulator: string, saturated: boolean })[]} health
 * @property {DelaySummary & { curve: { percentile: number, ms: number }[] }} connectTime
 * @property {DelaySummary} [acceptTime] attempt → Engine.IO open packet, merged over the simulators (absent from older results)
 * @property {DelaySummary} [tlsTime] TCP up → TLS ready of every TLS connection, merged over the simulators (https:// and wss:// only)
 * @property {ServerSample[]} server
 * @property {ScenarioReport} [scenario] joins and emits of every simulator: counts summed, reasons merged, histograms merged (with --join, --emit, --scenario)
 * @property {DeliveryBreakdown} [deliveries] delivery figures per namespace, room and event (absent from older results)
 * @property {LineRollup} [lines] a run without rounds: its lines were rolled up as they came (results/follow/lines.js), so `messages` is
 *   empty and `deliveries` holds them per namespace, room and event (absent from runs with rounds and from older results)
 * @property {ReportsRefused} [reportsRefused] message reports the collector refused past its bound (absent when none)
 * @property {IpcErrors} [ipcErrors] collector writes of the local simulators over IPC that failed (absent when none)
 * @property {PublishSummary} [publish] with --publish: its requests' answers and latency
 * @property {NodeReport} [nodes] --node-from: which node served whom, merged over the simulators
 * @property {WindowResult[]} [windows] --window (a run without rounds): each window merged over the simulators, in order
 * @property {PhaseStep[]} [phases] --phases: each step as the simulators ran it, clients summed, boundaries the widest (a run's report shades them)
 * @property {number} [rampedDown] --phases: clients the ramp-downs closed on purpose (a Socket.IO disconnect), not drops
 * @property {CustomReport} [custom] a scenario's own figures (ctx.timing, ctx.count), merged over the simulators
 * @property {Omit<SimMeasures, 'scenario' | 'nodes' | 'custom'>} [measured] what the simulators' final reports measured, merged as `simulate --workers`
 *   merges its processes (results/merge/measures.js): every client count (attempts, reconnects, byTransport, …), the health summary (the worst
 *   of any simulator), destinations, source addresses, the recorder's costs, churn (absent from older results; scenario is `scenario`)
 */

/**
 * What a run without rounds rolled up of its lines (results/follow/lines.js): never a row per line.
 * @typedef {object} LineRollup
 * @property {number} lines distinct lines (a line reported by several simulators counts once)
 * @property {number} reports the simulators' reports of them, each added to its row of `deliveries` and freed
 * @property {number} roomRows (namespace, room, event) rows kept with delays of their own; the top rooms are chosen among them
 * @property {number} roomsPastBound rooms first seen past roomRows: counted in their folded row only
 * @property {RunMessage[]} sample the run's first lines (at most 10), merged over the simulators, as examples
 */

/**
 * Collector writes of a run's local simulators over IPC that failed (the write was lost), by
 * simulator: how many, and the first (the write method, why). Refused reports are not here.
 * @typedef {object} IpcErrors
 * @property {number} total
 * @property {Record<string, { count: number, method: string, message: string }>} bySimulator
 */

/**
 * Message reports the collector refused past the run's bound: missing from `affects`.
 * @typedef {object} ReportsRefused
 * @property {number} total
 * @property {number} limit the bound (message reports per run)
 * @property {Record<string, number>} bySimulator
 * @property {string[]} affects
 */

/**
 * Delivery figures of a set of messages over every simulator of a distribution: counts
 * summed, delays from merged histograms (true percentiles).
 * @typedef {object} DeliveryRow
 * @property {string} namespace '*' in the total row
 * @property {string | null} room the target room; null for messages to every client, for the folded rooms (foldedRooms > 0) and in total rows
 * @property {number} foldedRooms rooms folded into this row (past the top rooms by traffic); 0 otherwise
 * @property {string} event '*' in total rows
 * @property {number} messages distinct messages
 * @property {number} expected
 * @property {number} received
 * @property {number} missing
 * @property {number} misdelivered
 * @property {number} duplicates
 * @property {number} [echo] copies back to their sender (absent from older results)
 * @property {DelaySummary} relative
 * @property {(DelaySummary & { uncertaintyMs: number }) | null} absolute
 */

/**
 * @typedef {object} DeliveryBreakdown
 * @property {number} topRooms most rooms listed on their own; the others are folded into one row per namespace and event
 * @property {number} rooms distinct (namespace, room) pairs that had a message
 * @property {DeliveryRow[]} rows per (namespace, room, event): rooms by traffic (received + missing + misdelivered + duplicates), most first; messages to everyone first, folded rooms last
 * @property {DeliveryRow[]} namespaces one total row per namespace (every room and event)
 * @property {DeliveryRow} total every message of the distribution
 */

/**
 * @typedef {object} ThresholdVerdict
 * @property {string} expression
 * @property {boolean} ok
 * @property {string} actual
 */

/**
 * What `ioswarm run` writes to result.json.
 * @typedef {object} RunResult
 * @property {number} schemaVersion
 * @property {'run'} kind
 * @property {{ id: string, name: string, startedAt: number, endedAt: number, collector: 'memory' | 'redis' }} run
 * @property {{ name: string, version: string }} tool
 * @property {HostFacts} host
 * @property {Record<string, unknown>} options
 * @property {{ url: string, reference: boolean, restarts?: { atMs: number, downMs: number | null, error: string | null }[] }} target restarts: --restart-server-at's restarts of the reference server
 * @property {DistributionResult[]} distributions
 * @property {ThresholdVerdict[]} [thresholds]
 * @property {SteeringAction[]} [actions] the run's timeline of steering actions, done or refused; absent when none was asked for
 * @property {{ kind: 'simulator', workers: number, workersNote: string | null, rolledUpMessages: number }} [from] set when a report read another kind of
 *   result as a run (results/report/kinds.js: a simulate result, its worker processes and the messages it rolled up); never in a result.json
 */

// Types only: a module, so other files can import its typedefs.
export {}
