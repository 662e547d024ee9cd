/**
 * What `ioswarm capacity` writes to result.json (kind 'capacity'), as JSDoc types: the
 * search's steps and its answer. Carries lib/schema/result-schema.js's SCHEMA_VERSION.
 */

/**
 * @typedef {'pass' | 'fail' | 'inconclusive'} StepVerdict
 * @typedef {'found' | 'max' | 'failed-at-start' | 'inconclusive' | 'stopped'} CapacityOutcome
 *   found: narrowed to --precision; max: every step passed up to --max; failed-at-start: the
 *   first step failed; inconclusive: a step the simulators limited stopped the search;
 *   stopped: interrupted before an answer
 */

/**
 * @typedef {object} StepDelays the worst round of a step
 * @property {number | null} p50
 * @property {number | null} p99
 * @property {number | null} max
 */

/**
 * One simulator's health over a step's rounds (or over its connects, when that decided).
 * @typedef {object} StepSimulator
 * @property {string} id
 * @property {number} clients wanted of it in this step
 * @property {number} connected when the rounds began
 * @property {number} samples one-second samples in the window
 * @property {number} saturatedSeconds samples with event-loop utilisation ≥ 0.9 or loop delay p99 ≥ 50 ms
 * @property {number} eluMax
 * @property {number} loopDelayP99MaxMs
 * @property {number} loopDelayMaxMs the longest its event loop was held up
 * @property {number} cpuPctMax % of one core
 */

/**
 * The server's own figures over a step (the reference server's /stats, one sample a second): the most of each.
 * @typedef {object} StepServer
 * @property {number} cpuPctMax % of one core (a cluster: the total)
 * @property {number} rssMaxBytes
 * @property {number} connectedMax
 * @property {number} [loopDelayP99MaxMs] the worst one-second event-loop delay p99 (absent from older results)
 */

/**
 * @typedef {object} CapacityStep
 * @property {number} step 1-based
 * @property {'grow' | 'narrow' | 'again'} phase again: an inconclusive step measured once more
 * @property {number} clients wanted over all simulators
 * @property {number} connected when the rounds began
 * @property {number} startedAt epoch ms (the resize)
 * @property {number} roundsAt epoch ms (the first broadcast)
 * @property {number} endedAt
 * @property {number} connectMs from the resize until every client was connected (or the wait ended)
 * @property {number[]} roundNumbers the broadcast rounds of this step (message ids ROUND.SEQ)
 * @property {number} messages distinct messages the simulators reported
 * @property {number} expected deliveries expected (clients connected at each message), unreported simulators included
 * @property {number} missing
 * @property {number} unreported deliveries of messages a simulator never reported (none of its clients got them): in missing
 * @property {StepDelays} relative relative delay, worst round
 * @property {StepDelays | null} absolute absolute latency, worst round; null without sentAt
 * @property {{ busyMax: number, p50Ms: number, maxMs: number } | null} floor the simulators' own floor over the rounds:
 *   busyMax the largest CPU share of a message's spread, maxMs the most CPU a simulator spent draining one message
 * @property {StepSimulator[]} simulators
 * @property {StepServer | null} server the server's /stats over the rounds (without rounds: over the hold); null without /stats
 * @property {import('./result-schema.js').ThresholdVerdict[]} slo each SLO (and the implicit one: every client connected)
 * @property {{ fdsPerSimulator: number, fdLimit: number, warnings: string[] }} limits checked before the step
 * @property {StepVerdict} verdict
 * @property {string} why what decided the verdict, for a person
 * @property {'saturated' | 'busy' | 'limit' | null} limitedBy inconclusive steps: which simulator limit
 * @property {StepWindowed} [windowed] a step without rounds (judged on its windows; roundsAt is the start of its hold,
 *   relative/absolute its worst window, messages/expected/missing summed over its windows)
 */

/**
 * What a step without rounds measured over the windows wholly inside its hold.
 * @typedef {object} StepWindowed
 * @property {number} windows how many windows judged it
 * @property {number | null} emitRate messages a second wanted over the swarm (--vary emit-rate), else null
 * @property {number} emitsPerSecond emits the clients sent a second over those windows
 * @property {StepDelays | null} ack emit → ack of the worst window; null: no ack
 * @property {number} timedOut emits whose ack never came
 */

/**
 * @typedef {object} CapacityResult
 * @property {number} schemaVersion
 * @property {'capacity'} kind
 * @property {{ id: string, name: string, startedAt: number, endedAt: number }} run
 * @property {{ name: string, version: string }} tool
 * @property {import('./result-schema.js').HostFacts} host
 * @property {Record<string, unknown>} options as given (no token)
 * @property {{ url: string, reference: boolean }} target
 * @property {{ simulators: number, engine: string, transport: string }} swarm
 * @property {string[]} slo the SLO expressions
 * @property {CapacityOutcome} outcome
 * @property {'clients' | 'emit-rate'} [vary] what the search varied (absent in older results: clients)
 * @property {number | null} capacity the last passing step's clients, or its messages a second (--vary emit-rate), for found and max; null otherwise
 * @property {{ passed: number | null, failed: number | null, inconclusive: number | null }} bounds
 *   largest passing step, smallest failing one above it, the step that stopped the search
 * @property {string} answer the one line the CLI prints
 * @property {string[]} advice what to change when the simulators limited the search, or the start failed
 * @property {CapacityStep[]} steps in the order they ran
 * @property {import('./result-schema.js').ReportsRefused} [reportsRefused] message reports the collector refused past its bound (absent when none)
 * @property {import('./result-schema.js').IpcErrors} [ipcErrors] collector writes of the simulators over IPC that failed (absent when none)
 * @property {import('./result-schema.js').SteeringAction[]} [actions] the search's timeline of steering actions, done or refused; absent when none
 * @property {number} durationMs
 */

/**
 * What a search varied at a step: its clients, or its messages a second (--vary emit-rate).
 * @param {Pick<CapacityStep, 'clients' | 'windowed'>} step
 * @returns {number}
 */
export function stepLevel (step) {
  return step.windowed?.emitRate ?? step.clients
}
