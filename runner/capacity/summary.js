/**
 * What the simulators reported over one step of a capacity search: its rounds (with the
 * deliveries of messages a simulator never reported counted as missing), the worst round's
 * delays, the simulators' own floor, each simulator's health over the rounds and over the
 * connects before them, and the server's own figures over the rounds.
 */
import { isSaturated } from '../../lib/measure/process-sampler.js'

/**
 * @typedef {import('../../lib/schema/result-schema.js').RoundResult} RoundResult
 * @typedef {import('../../lib/schema/capacity-schema.js').StepSimulator} StepSimulator
 * @typedef {import('../../broadcaster/index.js').SentMessage} SentMessage
 */

/**
 * @param {import('./step.js').StepContext} ctx
 * @param {object} step
 * @param {SentMessage[]} step.sent the step's broadcasts
 * @param {number[]} step.roundNumbers
 * @param {Map<string, number>} step.connectedBy clients each simulator had connected when the rounds began
 * @param {number[]} step.shares clients wanted of each simulator
 * @param {number} step.startedAt epoch ms: the resize
 * @param {number} step.roundsAt epoch ms: the first broadcast
 * @param {number} step.endedAt
 */
export async function summarizeStep (ctx, { sent, roundNumbers, connectedBy, shares, startedAt, roundsAt, endedAt }) {
  const [allRounds, samples] = await Promise.all([ctx.collector.getRounds(ctx.runId), ctx.collector.getSamples(ctx.runId)])
  const unreportedByRound = countUnreported(ctx, sent, connectedBy)
  /** @type {RoundResult[]} */
  const rounds = roundNumbers.map((round) => {
    const r = allRounds.find((x) => x.round === round)
    const unreported = unreportedByRound.get(round) ?? 0
    const base = r ?? emptyRound(round)
    return { ...base, expected: base.expected + unreported, missing: base.missing + unreported }
  })
  const ids = new Set(ctx.children.map((c) => c.id))
  const ours = samples.health.filter((s) => ids.has(s.simulator))
  return {
    rounds,
    messages: rounds.reduce((sum, r) => sum + r.messages, 0),
    expected: rounds.reduce((sum, r) => sum + r.expected, 0),
    missing: rounds.reduce((sum, r) => sum + r.missing, 0),
    unreported: [...unreportedByRound.values()].reduce((a, b) => a + b, 0),
    relative: worstRound(rounds, (r) => r.relative),
    absolute: rounds.some((r) => r.absolute && r.absolute.count > 0) ? worstRound(rounds, (r) => r.absolute) : null,
    floor: stepFloor(rounds),
    simulators: healthOver(ctx, ours, roundsAt, endedAt, connectedBy, shares),
    connecting: healthOver(ctx, ours, startedAt, roundsAt, connectedBy, shares),
    server: serverOver(samples.server, roundsAt, endedAt)
  }
}

/**
 * The server's own figures over a step (fromMs, toMs], from the one-second /stats samples the run
 * took of it (the reference server, or a server with ioswarm's probe): its most CPU, memory,
 * connections and event-loop delay. Null when it gave none (a --target app without /stats).
 * @param {import('../../lib/schema/result-schema.js').ServerSample[]} samples
 * @param {number} fromMs
 * @param {number} toMs
 * @returns {import('../../lib/schema/capacity-schema.js').StepServer | null}
 */
export function serverOver (samples, fromMs, toMs) {
  const over = samples.filter((s) => s.t > fromMs && s.t <= toMs)
  if (over.length === 0) return null
  const max = (/** @type {(s: import('../../lib/schema/result-schema.js').ServerSample) => number} */ pick) => Math.max(...over.map(pick))
  return {
    cpuPctMax: max((s) => s.cpuPct),
    rssMaxBytes: max((s) => s.rssBytes),
    connectedMax: max((s) => s.connected),
    loopDelayP99MaxMs: max((s) => s.loopDelayP99Ms)
  }
}

/**
 * Deliveries of the step's messages that a simulator never reported (none of its clients got
 * the message, so it never opened it), by round: each such simulator's connected clients.
 * A broadcast the server refused or never answered counts the same way, unless some
 * simulator got it after all. Broadcasts to everyone only (no --rooms, one namespace).
 * @param {import('./step.js').StepContext} ctx
 * @param {SentMessage[]} sent
 * @param {Map<string, number>} connectedBy
 * @returns {Map<number, number>}
 */
function countUnreported (ctx, sent, connectedBy) {
  /** @type {Map<number, number>} */
  const byRound = new Map()
  // A message to a room (or into one of several namespaces) is not meant for every client of a
  // simulator: there, each simulator's own expected count is all there is (as in a run).
  if (ctx.options.rooms !== null || ctx.options.namespaces !== null) return byRound
  for (const m of sent) {
    const reported = ctx.reportedBy(m.id, m.batch)
    let missing = 0
    for (const c of ctx.children) if (!reported.has(c.id)) missing += connectedBy.get(c.id) ?? 0
    byRound.set(m.round, (byRound.get(m.round) ?? 0) + missing)
  }
  return byRound
}

/**
 * p50, p99 and max of the worst round (the highest of each over the rounds with deliveries).
 * @param {RoundResult[]} rounds
 * @param {(r: RoundResult) => import('../../lib/schema/result-schema.js').DelaySummary | null} pick
 */
function worstRound (rounds, pick) {
  const summaries = rounds.flatMap((r) => {
    const s = pick(r)
    return s && s.count > 0 ? [s] : []
  })
  if (summaries.length === 0) return { p50: null, p99: null, max: null }
  return {
    p50: Math.max(...summaries.map((s) => s.p50)),
    p99: Math.max(...summaries.map((s) => s.p99)),
    max: Math.max(...summaries.map((s) => s.max))
  }
}

/**
 * The simulators' floor over the step: the busiest share of a spread, the largest median and
 * the largest CPU any simulator spent draining a message.
 * @param {RoundResult[]} rounds
 */
function stepFloor (rounds) {
  const floors = rounds.flatMap((r) => (r.floor ? [r.floor] : []))
  if (floors.length === 0) return null
  return {
    busyMax: Math.max(...floors.map((f) => f.busyMax)),
    p50Ms: Math.max(...floors.map((f) => f.p50Ms)),
    maxMs: Math.max(...floors.map((f) => f.maxMs))
  }
}

/**
 * Each simulator's one-second samples taken in (fromMs, toMs]: how many, how many saturated,
 * the worst event-loop utilisation, loop delay and CPU.
 * @param {import('./step.js').StepContext} ctx
 * @param {(import('../../lib/schema/result-schema.js').ProcessSample & { simulator: string })[]} samples
 * @param {number} fromMs
 * @param {number} toMs
 * @param {Map<string, number>} connectedBy
 * @param {number[]} shares clients wanted of each simulator
 * @returns {StepSimulator[]}
 */
export function healthOver (ctx, samples, fromMs, toMs, connectedBy, shares) {
  return ctx.children.map((c, k) => {
    const own = samples.filter((s) => s.simulator === c.id && s.t > fromMs && s.t <= toMs)
    const max = (/** @type {(s: import('../../lib/schema/result-schema.js').ProcessSample) => number} */ pick) => own.reduce((m, s) => Math.max(m, pick(s)), 0)
    return {
      id: c.id,
      clients: shares[k],
      connected: connectedBy.get(c.id) ?? 0,
      samples: own.length,
      saturatedSeconds: own.filter(isSaturated).length,
      eluMax: max((s) => s.elu),
      loopDelayP99MaxMs: max((s) => s.loopDelayP99Ms),
      loopDelayMaxMs: max((s) => s.loopDelayMaxMs),
      cpuPctMax: max((s) => s.cpuPct)
    }
  })
}

/**
 * A round no simulator reported a message of (yet).
 * @param {number} round
 * @returns {RoundResult}
 */
function emptyRound (round) {
  const relative = { count: 0, min: 0, max: 0, mean: 0, p50: 0, p90: 0, p99: 0 }
  const counts = { count: 0, intervalMs: 0, messages: 0, received: 0, expected: 0, missing: 0 }
  return { round, ...counts, relative, absolute: null, avgOfAverages: { relativeMs: 0, absoluteMs: null }, floor: null }
}
