/**
 * What one simulator reports: its clients, messages, timeline, health, server, nodes, logins,
 * scenario and phases (SimResult), and how the reports of several simulators merge
 * (MERGE_RULES). JSDoc types checked by tsc; lib/schema/result-schema.js re-exports them.
 */

/**
 * @typedef {import('./run-schema.js').ReportsRefused} ReportsRefused
 * @typedef {import('./window-schema.js').WindowReport} WindowReport
 */

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
export const HEALTH_SUMMARY_FROM = Object.freeze({
  loopDelayP99MaxMs: 'loopDelayP99Ms',
  cpuPctMax: 'cpuPct',
  eluMax: 'elu',
  rssMaxBytes: 'rssBytes',
  saturatedSeconds: 'saturated'
})

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
 * @property {RampGuardReport} [rampGuard] --ramp-guard: how long the ramp waited, and the reconnects it deferred
 */

/**
 * --ramp-guard (simulator/swarm/ramp-guard.js): its bounds, and what it held. Merged over processes: holds,
 * time held and deferred reconnects summed (a process's held time is its own: two processes held 10 s each
 * are 20 s held), the longest hold the longest of any process.
 * @typedef {object} RampGuardReport
 * @property {number} loopDelayMs the ramp waits while the process's event-loop delay (p99 of a second) is above it
 * @property {number} failuresPct … or while more than this share of the connect attempts answered in the last 3 s failed
 * @property {number} [connectMs] the ramp also waits while more than 1 % of the connects of the last 3 s took longer (0: not watched; absent in
 *   results written before the bound existed)
 * @property {number} reconnectsPerS most reconnect attempts a second of one process
 * @property {number} holds times the ramp was held
 * @property {number} heldMs time the ramp was held in all
 * @property {number} longestHoldMs the longest hold
 * @property {number} deferredReconnects reconnect attempts that waited for the bucket (over reconnectsPerS)
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
 *   logins: { readonly [K in keyof LoginReport]: MergeRule }, rampGuard: { readonly [K in keyof RampGuardReport]: MergeRule } }}
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
  custom: 'custom',
  rampGuard: {
    loopDelayMs: 'first',
    failuresPct: 'first',
    connectMs: 'first',
    reconnectsPerS: 'first',
    holds: 'sum',
    heldMs: 'sum',
    longestHoldMs: 'max',
    deferredReconnects: 'sum'
  }
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
 * @property {RampGuardReport} [rampGuard] --ramp-guard: its bounds, the ramp's holds and the reconnects it deferred
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
