/**
 * One step of a capacity search against the running swarm: check that the step fits this
 * machine, resize every simulator to its share (the connected clients stay), wait for the
 * clients, broadcast the step's rounds (message ids of their own), and sum up what the
 * simulators reported over them; judge.js gives the verdict.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import { CODES, IoswarmError } from '../../lib/errors.js'
import { runBroadcast } from '../../broadcaster/index.js'
import { waitForRound } from '../../results/index.js'
import { judgedStep } from './judge.js'
import { checkStepLimits } from './limits.js'
import { runWindowStep } from './step-windows.js'
import { summarizeStep } from './summary.js'
import { shareOf } from '../../simulator/index.js'
import { broadcastOf } from '../run-options.js'

/**
 * @typedef {import('../../lib/schema/capacity-schema.js').CapacityStep} CapacityStep
 * @typedef {object} StepContext
 * @property {import('./capacity-options.js').CapacityOptions} options
 * @property {import('../../results/collector/types.js').Collector} collector
 * @property {string} runId
 * @property {string} url
 * @property {string} token
 * @property {number} rampMs
 * @property {import('../../simulator/processes/spawn.js').SimulatorChild[]} children
 * @property {(id: string, batch: string) => Set<string>} reportedBy simulators that reported message `id` of `batch`
 * @property {() => import('../../lib/limits.js').Limits} limits
 * @property {AbortSignal} [signal]
 * @property {(line: string) => void} status
 * @property {import('../../lib/schema/result-schema.js').WindowResult[]} windows without rounds: every window merged so far, in order
 * @property {import('../../results/dashboard/index.js').LiveStreamLike} [stream] --dashboard: each judged step is a mark of the live stream
 */

/** Simulator k's share of a step: the one partition's (simulator/processes/partition.js), as when they were forked. */
export { shareOf }

/**
 * @param {StepContext} ctx
 * @param {{ step: number, level: number, phase: 'grow' | 'narrow' | 'again', current: number }} plan level: the clients (--vary clients)
 *   or messages a second (--vary emit-rate); current: clients connected now
 * @returns {Promise<CapacityStep>}
 */
export async function runStep (ctx, { step, level, phase, current }) {
  const startedAt = Date.now()
  if (ctx.options.rounds.length === 0) {
    return runWindowStep(ctx, { step, level, phase, current }, {
      limitedStep: (why) => {
        const clients = ctx.options.vary === 'emit-rate' ? ctx.options.clients : level
        return { ...limitedStep({ step, phase, clients, startedAt, roundNumbers: [], why }), ...windowedLevel(ctx, level) }
      },
      waitForShares: (shares, clients) => waitForShares(ctx, shares, clients)
    })
  }
  const clients = level
  const roundCount = ctx.options.rounds.length
  const roundNumbers = Array.from({ length: roundCount }, (_, k) => (step - 1) * roundCount + k + 1)
  let limits
  try {
    limits = checkStepLimits({ options: ctx.options, clients, current, limits: ctx.limits() })
  } catch (error) {
    if (!(error instanceof IoswarmError) || error.code !== CODES.LIMIT) throw error
    return limitedStep({ step, phase, clients, startedAt, roundNumbers, why: error.message })
  }
  const shares = ctx.children.map((_, k) => shareOf(clients, ctx.children.length, k))
  // The first step is the simulators' own start (forked with their shares).
  if (step > 1) await Promise.all(ctx.children.map((c, k) => c.resize(shares[k], ctx.rampMs)))
  const connectedBy = await waitForShares(ctx, shares, clients)
  const roundsAt = Date.now()
  const sent = await broadcastRounds(ctx, roundNumbers[0])
  const endedAt = Date.now()
  const summary = await summarizeStep(ctx, { sent, roundNumbers, connectedBy, shares, startedAt, roundsAt, endedAt })
  const connected = [...connectedBy.values()].reduce((a, b) => a + b, 0)
  return judgedStep(ctx.options.slo, {
    distribution: { name: `${clients} clients`, rounds: summary.rounds, clients: { target: clients, connected, failed: clients - connected } },
    connecting: summary.connecting
  }, {
    step,
    phase,
    clients,
    connected,
    startedAt,
    roundsAt,
    endedAt,
    connectMs: roundsAt - startedAt,
    roundNumbers,
    messages: summary.messages,
    expected: summary.expected,
    missing: summary.missing,
    unreported: summary.unreported,
    relative: summary.relative,
    absolute: summary.absolute,
    floor: summary.floor,
    simulators: summary.simulators,
    server: summary.server,
    limits
  })
}

/**
 * What a step without rounds adds, when it could not be measured: its level.
 * @param {StepContext} ctx
 * @param {number} level
 */
function windowedLevel (ctx, level) {
  return { windowed: { windows: 0, emitRate: ctx.options.vary === 'emit-rate' ? level : null, emitsPerSecond: 0, ack: null, timedOut: 0 } }
}

/**
 * A step this machine cannot hold: nothing was resized or measured.
 * @param {{ step: number, phase: 'grow' | 'narrow' | 'again', clients: number, startedAt: number, roundNumbers: number[], why: string }} spec
 * @returns {CapacityStep}
 */
function limitedStep ({ step, phase, clients, startedAt, roundNumbers, why }) {
  const none = { p50: null, p99: null, max: null }
  return {
    step,
    phase,
    clients,
    connected: 0,
    startedAt,
    roundsAt: startedAt,
    endedAt: Date.now(),
    connectMs: 0,
    roundNumbers,
    messages: 0,
    expected: 0,
    missing: 0,
    unreported: 0,
    relative: none,
    absolute: null,
    floor: null,
    simulators: [],
    server: null,
    slo: [],
    limits: { fdsPerSimulator: 0, fdLimit: 0, warnings: [] },
    verdict: 'inconclusive',
    why: `this machine cannot hold the step: ${why}`,
    limitedBy: 'limit'
  }
}

/**
 * Waits until every simulator reports its share connected, or the ramp and --connect-timeout
 * have passed; returns what each had connected then.
 * @param {StepContext} ctx
 * @param {number[]} shares
 * @param {number} clients
 * @returns {Promise<Map<string, number>>} by simulator id
 */
async function waitForShares (ctx, shares, clients) {
  const deadline = Date.now() + ctx.rampMs + ctx.options.connectTimeoutMs
  /** @type {Map<string, number>} */
  const connected = new Map()
  while (!ctx.signal?.aborted) {
    const dead = ctx.children.find((c) => !c.running())
    if (dead) {
      const why = dead.failure() ?? `exit ${dead.process.exitCode}`
      throw new IoswarmError(CODES.SERVER, `simulator ${dead.id} (pid ${dead.pid}) exited during the search: ${why}`)
    }
    const sims = new Map((await ctx.collector.listSimulators(ctx.runId)).map((s) => [s.id, s.clients.connected]))
    for (const c of ctx.children) connected.set(c.id, sims.get(c.id) ?? 0)
    const total = [...connected.values()].reduce((a, b) => a + b, 0)
    ctx.status(`${clients} clients: connected ${total}/${clients}`)
    if (ctx.children.every((c, k) => connected.get(c.id) === shares[k]) || Date.now() > deadline) break
    await sleep(250)
  }
  return connected
}

/**
 * The step's rounds, each followed by a wait for every simulator's reports of it.
 * @param {StepContext} ctx
 * @param {number} firstRound
 */
async function broadcastRounds (ctx, firstRound) {
  const { options } = ctx
  const result = await runBroadcast({ ...broadcastOf(options, ctx), firstRound }, {
    signal: ctx.signal,
    onMessage: (m) => ctx.status(`message ${m.id} ${m.error ? `FAILED: ${m.error}` : `sent to ${m.recipients ?? '?'} clients`}`),
    onRoundEnd: async (round, sent) => {
      await waitForRound(ctx.collector, ctx.runId, { round, sent, timeoutMs: options.messageTimeoutMs + 5000, signal: ctx.signal })
    }
  })
  return result.messages
}
