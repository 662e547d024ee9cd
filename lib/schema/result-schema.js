/**
 * Result shapes, as JSDoc types checked by tsc: what a simulator reports, what the
 * runner writes to result.json, what reports are built from. Bump SCHEMA_VERSION on any
 * change that breaks a reader.
 */

export const SCHEMA_VERSION = 1

/**
 * @typedef {import('../measure/histogram.js').DelaySummary} DelaySummary
 * @typedef {import('../measure/process-sampler.js').ProcessSample} ProcessSample
 * @typedef {DelaySummary & { histogram: string }} EncodedDelay delay summary + portable HDR histogram (µs)
 */

/**
 * @typedef {object} HostFacts
 * @property {string} hostname
 * @property {string} platform
 * @property {string} arch
 * @property {number} cpus
 * @property {number} memoryBytes
 * @property {string} release
 * @property {string} node
 */

/**
 * @typedef {object} ClockInfo
 * @property {number} offsetMs add to this process's wall clock to get the reference clock
 * @property {number} uncertaintyMs half the best round trip: the offset is within ± this
 * @property {string} reference what the offset is to: 'local' (same clock), 'redis', 'runner'
 */

/**
 * The simulator's own floor for one message in one process: the CPU time the process used
 * draining it to its clients, next to the wall time it took. `cpuMs` close to `spreadMs`
 * means the process was busy the whole time (the simulator may have made the spread);
 * `cpuMs` far below it means the spread came from the server or the network. `cpuMs` can
 * exceed `spreadMs` slightly: it counts every thread of the process (e.g. GC helpers).
 * @typedef {object} FloorReport
 * @property {number} cpuMs process CPU (user + system) from the first receipt until every expected client had it, or else until its last receipt (within 1 ms)
 * @property {number} spreadMs wall time (monotonic) of the same interval
 */

/**
 * One broadcast message as seen by one simulator.
 * @typedef {object} MessageReport
 * @property {string} key event + id (+ namespace when not '/'): unique within a run
 * @property {string} id the message's `id` field, or `content:<hash>` when it has none
 * @property {string} [batch] the `ioswarm broadcast` invocation that sent it (its `batch` field): ids repeat across invocations, keys do not
 * @property {string} event
 * @property {string} [namespace] the namespace it arrived on (absent from reports of older simulators: '/')
 * @property {string | null} [room] its target room, when it carries one and the swarm has rooms; then only that room's clients expect it
 * @property {number | null} round from the message, when it carries one
 * @property {number | null} seq
 * @property {number | null} sentAt its send time (epoch ms) on the run's reference clock (the broadcasts' sender's; --emit stamps its lines on it too), when the message carries it
 * @property {number} firstAt local wall clock (epoch ms) of the first receipt in this process
 * @property {number} received distinct clients that got it
 * @property {number} expected clients connected when the first copy arrived, less those that connected after its send time (when it carries one: simulator/recording/recorder-connects.js)
 * @property {number} missing clients connected when it was sent (at its first receipt, less those that connected after its send time) that never got it
 * @property {number} duplicates copies received twice by the same client
 * @property {number} [misdelivered] copies to clients never meant to be in its target room (not in the histograms)
 * @property {number} [echo] copies back to the client of this simulator that emitted it (a relayed line: never expected of its sender, not in the histograms; absent from older results)
 * @property {number} late receipts after the message was closed (not in the histograms)
 * @property {EncodedDelay} relative delay of each client after the first receipt in this process
 * @property {(EncodedDelay & { negative: number }) | null} absolute sentAt → receipt, clock-corrected; null without sentAt
 * @property {FloorReport} [floor] the simulator's own floor (absent from reports of older simulators); with --workers, the worker with the largest cpuMs
 */

/**
 * Messages older than the simulator's newest `keepClosed`, folded together per (event, round)
 * so a long run's memory stays flat: counts summed, histograms merged. Event '*' (round null)
 * holds messages past the recorder's number of rollups.
 * @typedef {object} MessageRollup
 * @property {string} event
 * @property {number | null} round
 * @property {number} messages
 * @property {number} received
 * @property {number} expected
 * @property {number} missing
 * @property {number} duplicates
 * @property {number} [misdelivered]
 * @property {number} [echo]
 * @property {number} late
 * @property {number} firstAt first receipt of the oldest message folded in (epoch ms)
 * @property {number} lastAt first receipt of the newest message folded in
 * @property {EncodedDelay} relative
 * @property {(EncodedDelay & { negative: number }) | null} absolute
 */

/**
 * The recorder's memory bounds and what they cost in a run.
 * @typedef {object} RecorderInfo
 * @property {number} maxOpen most messages open at once (--max-open-messages)
 * @property {number} keepClosed closed reports kept whole (--keep-messages)
 * @property {number} rolledUpMessages reports folded into messageRollups
 * @property {number} untrackedMessages new messages seen while maxOpen were open: not recorded
 * @property {number} untrackedReceipts copies of those messages
 * @property {number} lateReceipts copies after their message closed
 */

/**
 * One second of a simulator's connection state.
 * @typedef {object} TimelinePoint
 * @property {number} t wall clock epoch ms
 * @property {number} connected
 * @property {import('../transports.js').ByTransport} byTransport connected by the transport in use now
 * @property {number} connects connections established in this second
 * @property {number} disconnects in this second
 * @property {number} [closed] of those, closed on purpose ('io client disconnect': a ramp-down of --phases, the swarm's end), not drops
 * @property {number} errors connect errors in this second
 * @property {number} messages distinct messages seen so far
 * @property {Record<string, number>} [byNode] --node-from: connected by node (bounded as NodeReport's rows)
 */

/**
 * @typedef {object} Storm
 * @property {number} startedAt wall-clock epoch ms of the first drop
 * @property {number} dropped clients that dropped during the storm
 * @property {number} back of them, connected again
 * @property {Record<string, number>} reasons disconnects by reason
 * @property {Record<string, number>} errors failed connection attempts by reason, during the storm
 * @property {number} attempts connection attempts during the storm
 * @property {{ p50: number | null, p90: number | null, p99: number | null, p100: number | null }} backMs time from the first drop until that share of the dropped clients was connected again (null: never)
 * @property {number | null} endedMs time from the first drop until every dropped client was back (null: some never came back)
 * @property {number} [recovered] of the clients back, those whose session the server restored (socket.io connection state recovery)
 * @property {number} [replayed] deliveries of messages sent while a dropped client was away that reached it afterwards (replayed by recovery)
 * @property {number} [lost] deliveries of messages sent while a dropped client was away that never reached it (messages no client of the simulator received are not seen)
 */

/**
 * @typedef {object} ClientCounts
 * @property {number} target
 * @property {number} connected connected at the end (before the simulator closed them)
 * @property {number} failed clients that never connected
 * @property {number} everConnected
 * @property {Record<string, { target: number, connected: number, upgraded: number }>} byTransport by requested mode; `upgraded` = clients that upgraded to WebSocket at least once
 * @property {number} attempts connection attempts, reconnects included
 * @property {number} reconnects
 * @property {Record<string, number>} disconnects by reason (keys bounded and escaped, lib/reasons.js)
 * @property {Record<string, number>} errors connect errors by reason (the server's text: keys bounded in length and number, lib/reasons.js)
 * @property {{ list: Storm[], more: number }} [storms] reconnect storms: waves of disconnects, from the first drop until every dropped client was back
 * @property {Record<string, number>} [unmeasuredEvents] receipts of events that were not measured (not in --event), by event name (bounded as reasons)
 * @property {NamespaceCounts[]} [namespaces] per namespace (with several, or one other than '/'): connected now, connects, drops and refusals by reason
 * @property {EncodedDelay & { curve: { percentile: number, ms: number }[] }} connectTime attempt → socket.io connected
 * @property {EncodedDelay} [acceptTime] attempt → Engine.IO open packet (the server accepted the handshake), every attempt that got one
 * @property {EncodedDelay} [tlsTime] TCP connection up → TLS ready, every TLS connection of the clients (https://, wss://): part of the connect time
 */

/**
 * @typedef {object} HealthSummary
 * @property {number} loopDelayP99MaxMs worst one-second event-loop delay p99
 * @property {number} cpuPctMax
 * @property {number} eluMax
 * @property {number} rssMaxBytes
 * @property {number} saturatedSeconds seconds in which the simulator itself was saturated
 */

/**
 * The health summary's fields, listed once: each the largest value of a field of the
 * process's one-second samples (`saturated`: the number of samples with the process
 * saturated), and, merged over processes, the worst of any.
 * @type {{ readonly [K in keyof HealthSummary]: 'loopDelayP99Ms' | 'cpuPct' | 'elu' | 'rssBytes' | 'saturated' }}
 */
export const HEALTH_SUMMARY_FROM = Object.freeze({ loopDelayP99MaxMs: 'loopDelayP99Ms', cpuPctMax: 'cpuPct', eluMax: 'elu', rssMaxBytes: 'rssBytes', saturatedSeconds: 'saturated' })

/**
 * How a measure merges over processes (results/merge/sim-merge.js): `sum` adds, `max` takes the largest,
 * `first` keeps the first process's (a setting, the same in each), `counts` adds records of
 * numbers key by key at any depth, `reasons` merges counts by reason (bounded), `storms` lists
 * each process's storms side by side (each saw its own clients'), `namespaces` adds per
 * namespace, `delay` merges histograms (`delayCurve`: with the percentile curve), `byUrl` and
 * `byAddress` add per destination and per source address, `scenario` merges joins, emits and hooks,
 * `nodes` merges the per-node reports (lib/input/node-from.js mergeNodeReports: rows of one name summed, histograms
 * merged, names past 50 folded into `other`, imbalance recomputed), `custom` merges the hooks' own figures
 * (lib/measure/custom-measures.js mergeCustomReports: counts summed and timings' histograms merged by name, names past 50 refused).
 * @typedef {'sum' | 'max' | 'first' | 'counts' | 'reasons' | 'storms' | 'namespaces' | 'delay' | 'delayCurve' | 'byUrl' | 'byAddress' | 'scenario' | 'nodes' | 'custom'} MergeRule
 */

/**
 * What a simulator measured besides its messages and samples: what its final report carries to
 * a run's collector, and what the one merge of simulator results merges (the processes of
 * `simulate --workers`, the simulators of a run: a distribution's `measured`).
 * @typedef {object} SimMeasures
 * @property {ClientCounts} clients
 * @property {HealthSummary} health its summary (the samples travel one by one)
 * @property {ScenarioReport} [scenario]
 * @property {SimResult['destinations']} [destinations]
 * @property {SimResult['sourceAddresses']} [sourceAddresses]
 * @property {RecorderInfo} [recorder]
 * @property {SimResult['churn']} [churn]
 * @property {NodeReport} [nodes] --node-from: which node served whom
 * @property {LoginReport} [logins] --login (or a scenario's login hook): each client's HTTP login before it connects
 * @property {CustomReport} [custom] a scenario's own figures (ctx.timing, ctx.count)
 */

/**
 * One steering action asked of a running test (lib/steering.js), as it was decided.
 * @typedef {object} SteeringAction
 * @property {'action'} type
 * @property {number} at wall-clock ms when it was asked
 * @property {string} action stop, clients, emit-rate or stop-after-step
 * @property {number | string | null} value the clients (a number), the rate as given ('5/s'), or null
 * @property {string} by who asked: api, dashboard, signal
 * @property {boolean} ok done (true) or refused (false)
 * @property {string} [message] why it was refused, or a note on what was done
 */

/**
 * The app's own measurements, recorded by a scenario's hooks (lib/measure/custom-measures.js): names are plain
 * (a letter, then letters, digits, _), at most 50; a name is a timing or a count.
 * @typedef {object} CustomReport
 * @property {Record<string, EncodedDelay>} timings ctx.timing(name, ms), by name
 * @property {Record<string, number>} counts ctx.count(name, n), summed by name
 * @property {number} refused records refused: their name came after the first 50
 * @property {string[]} refusedNames the first few names refused
 */

/**
 * The HTTP logins of a simulator's clients (simulator/sessions/login.js).
 * @typedef {object} LoginReport
 * @property {string} request what logged in: `POST /login` (--login), or `login hook`
 * @property {number} attempts logins made (first ones, and again after a refusal)
 * @property {number} ok logins that succeeded (status below 400)
 * @property {number} relogins logins made again after a reconnect was refused (HTTP 401/403 on the handshake, or the app's middleware refusing the CONNECT)
 * @property {Record<string, number>} failed failed logins by reason: `HTTP 500`, `timeout`, `ECONNREFUSED` (bounded as reasons)
 * @property {EncodedDelay} time request → answer of each successful login
 */

/**
 * The merge of every measure, field by field, checked against the shapes above by tsc: a field
 * added to ClientCounts, HealthSummary, RecorderInfo or SimMeasures without a rule here fails
 * the type check, and with one it reaches both merges and a run's result.json.
 * @type {{ clients: { readonly [K in keyof Required<ClientCounts>]: MergeRule }, health: { readonly [K in keyof HealthSummary]: MergeRule }, recorder: { readonly [K in keyof RecorderInfo]: MergeRule }, churn: { readonly [K in keyof Required<SimResult>['churn']]: MergeRule }, scenario: MergeRule, destinations: MergeRule, sourceAddresses: MergeRule, nodes: MergeRule, custom: MergeRule,
 *   logins: { readonly [K in keyof LoginReport]: MergeRule } }}
 */
export const MERGE_RULES = {
  clients: {
    target: 'sum',
    connected: 'sum',
    failed: 'sum',
    everConnected: 'sum',
    byTransport: 'counts',
    attempts: 'sum',
    reconnects: 'sum',
    disconnects: 'reasons',
    errors: 'reasons',
    unmeasuredEvents: 'reasons',
    storms: 'storms',
    namespaces: 'namespaces',
    connectTime: 'delayCurve',
    acceptTime: 'delay',
    tlsTime: 'delay'
  },
  health: /** @type {{ readonly [K in keyof HealthSummary]: 'max' }} */ (Object.fromEntries(Object.keys(HEALTH_SUMMARY_FROM).map((k) => [k, 'max']))),
  // maxOpen and keepClosed are settings; messages rolled up or untracked are counted per process, the same messages in each.
  recorder: { maxOpen: 'first', keepClosed: 'first', rolledUpMessages: 'max', untrackedMessages: 'max', untrackedReceipts: 'sum', lateReceipts: 'sum' },
  churn: { lifetimeMs: 'first', sessionsClosed: 'sum', perSecond: 'sum' },
  scenario: 'scenario',
  destinations: 'byUrl',
  sourceAddresses: 'byAddress',
  nodes: 'nodes',
  logins: { request: 'first', attempts: 'sum', ok: 'sum', relogins: 'sum', failed: 'reasons', time: 'delay' },
  custom: 'custom'
}

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

/**
 * The server as a simulator's inspection saw it before the swarm (simulator/inspection/inspect.js).
 * @typedef {object} ServerInfo
 * @property {number | null} pingIntervalMs from the handshake; null: no handshake read
 * @property {number | null} pingTimeoutMs
 * @property {string[]} [upgrades] the transports the handshake offers to upgrade to
 * @property {number} rampMs
 * @property {string} rampSource
 * @property {string | null} handshakeError why no handshake was read (the timeouts said so)
 * @property {string | null} diagnosis the first contact's finding: a parser mismatch, a refused namespace
 * @property {3 | 4 | null} eio null: a plain WebSocket server (--protocol websocket)
 * @property {string} eioSource
 * @property {string} protocol
 */

/**
 * The result of one simulator process (`ioswarm simulate --json`).
 * @typedef {object} SimResult
 * @property {number} schemaVersion
 * @property {'simulator'} kind
 * @property {string} id simulator id, unique within a run
 * @property {{ name: string, version: string }} tool
 * @property {HostFacts} host
 * @property {number} pid
 * @property {number} startedAt epoch ms
 * @property {number} endedAt
 * @property {Record<string, unknown>} options the options that produced it (no secrets)
 * @property {string} engine
 * @property {{ keepAlive: boolean, maxSockets: number | null }} agent HTTP agent used by polling clients
 * @property {ServerInfo} server the server as its handshake showed it (simulator/inspection/inspect.js)
 * @property {ClockInfo} clock
 * @property {ClientCounts} clients
 * @property {{ url: string, target: number, connected: number, everConnected: number }[]} [destinations] clients by destination (round-robin over --url)
 * @property {{ address: string, refused: number, exhausted: number }[]} [sourceAddresses] --source-address: per address, source ports the kernel refused (skipped) and connections that found no free port (failed)
 * @property {{ needs: { fdsPerProcess: number, portsPerDestination: number, memoryBytes: number }, limits: Record<string, number | string>, warnings: string[] }} [preflight] what the run needed against the machine's limits
 * @property {{ note: string, list: { id: string, pid: number, clients: { target: number, connected: number, failed: number }, rssMaxBytes: number, exitCode: number | null, died?: string, messagesBeforeDeath?: number }[] }} [workers] set when --workers K merged K processes into this result
 * @property {MessageReport[]} messages the newest --keep-messages messages, whole
 * @property {MessageRollup[]} [messageRollups] older messages, folded per (event, round)
 * @property {RecorderInfo} [recorder] the recorder's bounds and what they cost
 * @property {{ samples: ProcessSample[], summary: HealthSummary }} health
 * @property {TimelinePoint[]} timeline
 * @property {ScenarioReport} [scenario] joins and emits (--join, --emit), when the clients do either
 * @property {{ lifetimeMs: { minMs: number, maxMs: number }, sessionsClosed: number, perSecond: number }} [churn] --session-lifetime: sessions closed and reopened at the end of their lifetime, and their rate
 * @property {PhaseStep[]} [phases] --phases: each step as it ran, so a report can draw its boundaries
 * @property {number} [rampedDown] --phases: clients closed on purpose by ramp-downs (a Socket.IO disconnect), not drops
 * @property {ReportsRefused} [reportsRefused] joined to a run's collector (--redis): its message reports the collector refused past the run's bound
 * @property {NodeReport} [nodes] --node-from: which node served whom
 * @property {LoginReport} [logins] --login: the clients' HTTP logins
 * @property {WindowReport[]} [windows] --window: each window of this simulator (the newest MAX_WINDOWS)
 * @property {CustomReport} [custom] a scenario's own figures (ctx.timing, ctx.count)
 * @property {SteeringAction[]} [actions] `simulate`'s timeline of steering actions (the dashboard, its HTTP API, Ctrl-C), done or refused;
 *   absent when none was asked for. A merge of several simulators keeps none: actions belong to the command that ran them
 */

/**
 * One node of the deployment behind a balancer (--node-from), as its clients saw it.
 * @typedef {object} NodeRow
 * @property {string} name the node's name (cookie, header or event value); `other` for the folded row
 * @property {number} [folded] on the `other` row: names folded into it (past the first 50)
 * @property {number} connected clients on it at the end
 * @property {number} connects connections that landed on it, reconnects included
 * @property {number} drops connections on it that ended
 * @property {number} moved clients that came back on it after a reconnect, having been on another node before
 * @property {number} received deliveries to its clients (relayed lines and broadcasts)
 * @property {number} missing deliveries its clients were expected to get and never did
 * @property {EncodedDelay} relative its clients' delays after the first receipt in their process
 * @property {EncodedDelay} [absolute] its clients' delays after the send (messages stamped with a send time; absent from older results)
 */

/**
 * Which node served whom (--node-from), per node. Merge rule (lib/input/node-from.js mergeNodeReports):
 * rows of one name summed and their histograms merged, names past 50 folded into `other`,
 * unknown and moved summed, imbalance recomputed from the merged rows.
 * @typedef {object} NodeReport
 * @property {string} from the --node-from given (cookie:NAME, header:NAME, event:NAME[.path])
 * @property {NodeRow[]} nodes the first 50 names by arrival (merged: by connects), then `other`
 * @property {number} unknown clients connected at the end whose node was never read
 * @property {number} moved clients that came back on another node after a reconnect, over every node
 * @property {number | null} imbalance connected at the end on the fullest node ÷ on the emptiest (nodes holding a client; the `other` row left out); null: none
 */

/**
 * One step of --phases as it ran.
 * @typedef {object} PhaseStep
 * @property {'ramp' | 'hold'} kind
 * @property {number} startMs wall-clock ms
 * @property {number} endMs wall-clock ms
 * @property {number} from clients wanted when it started
 * @property {number} to clients wanted when it ended
 * @property {number} closed clients a ramp-down closed
 * @property {number} [emitIntervalMs] its emit rate (`at RATE`), when it has one
 */

/**
 * What a simulator's clients did besides listening (--join, --emit): counts, and the time
 * from a join or an emit to its ack.
 * @typedef {object} ScenarioReport
 * @property {{ event: string, sent: number, acked: number, unacked: number, failed: number, reasons: Record<string, number>, time: EncodedDelay }} [joins]
 *   unacked: no ack within --ack-timeout (taken as joined: a server that does not ack); failed: an ack of {ok:false} or {error}, or the connection ended first
 * @property {{ event: string, emitters: number, sent: number, acked: number, timedOut: number, failed: number, closed?: number, reasons: Record<string, number>, ackTime: EncodedDelay | null }} [emits]
 *   ackTime: emit → ack (--emit-ack), else null; timedOut: no ack within --ack-timeout; failed: the connection ended first;
 *   closed: the swarm closed the client on purpose first (a ramp down, the run's end): sent = acked + timedOut + failed + closed
 * @property {{ calls: Record<string, number>, errors: Record<string, number>, emits: { sent: number, acked: number, timedOut: number, failed: number, closed?: number, ackTime: EncodedDelay } }} [hooks]
 *   --scenario: hook calls, errors thrown by hooks (by message), and the hooks' own emits (emitWithAck timed)
 * @property {{ events: string[], sent: number, replied: number, timedOut: number, failed: number, reasons: Record<string, number>, time: EncodedDelay }} [replies]
 *   emits whose answer is an event (--reply-event, a hook's emitAndWait): sent, replied (timed emit → reply), timed out (--ack-timeout),
 *   failed (the namespace dropped or the run ended first); events: the reply events waited for (the first 10)
 */

/**
 * One namespace of a swarm's clients (--namespace).
 * @typedef {object} NamespaceCounts
 * @property {string} name
 * @property {number} connected now
 * @property {number} connects namespace CONNECTs acknowledged, reconnects included
 * @property {Record<string, number>} disconnects drops of this namespace by reason
 * @property {Record<string, number>} refused CONNECT_ERRORs of this namespace (its middleware's) by reason
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
