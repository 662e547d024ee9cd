/**
 * One step of a capacity search without rounds (--rounds none, or --target without --token):
 * the load is the app's own traffic. Resize the swarm (--vary clients) or set its emit rate
 * (--vary emit-rate) over the resize path, wait for the clients, hold --step-duration, and
 * judge the step on the windows wholly inside the hold (merged over every simulator by the
 * run's window follower) by the one evaluator of `run --assert`: delays (deliveries, acks,
 * replies, a hook's timings) of its *worst* window, missing and the other counts summed over
 * them, connected the fewest connected at any point of the hold; the server's /stats over the hold. The worst window, not the step's
 * windows merged: a merge dilutes a queue that builds up at the end of a step, and it is what
 * `run --assert` judges and names, so an SLO means the same in both.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import { CODES, IoswarmError } from '../../lib/errors.js'
import { worstWindow } from '../../lib/text/window-text.js'
import { shareOf } from '../../simulator/index.js'
import { judgedStep } from './judge.js'
import { checkStepLimits } from './limits.js'
import { emitIntervalOf } from './capacity-options.js'
import { healthOver, serverOver } from './summary.js'

/**
 * @typedef {import('../../lib/schema/capacity-schema.js').CapacityStep} CapacityStep
 * @typedef {import('../../lib/schema/result-schema.js').WindowResult} WindowResult
 * @typedef {import('./step.js').StepContext & { windows: WindowResult[] }} WindowStepContext
 */

/**
 * @param {WindowStepContext} ctx
 * @param {{ step: number, level: number, phase: 'grow' | 'narrow' | 'again', current: number }} plan level: clients, or messages a second
 * @param {{ limitedStep: (why: string) => CapacityStep, waitForShares: (shares: number[], clients: number) => Promise<Map<string, number>> }} tools
 * @returns {Promise<CapacityStep>}
 */
export async function runWindowStep (ctx, { step, level, phase, current }, tools) {
  const { options } = ctx
  const byRate = options.vary === 'emit-rate'
  const clients = byRate ? options.clients : level
  const startedAt = Date.now()
  let limits
  try {
    limits = checkStepLimits({ options, clients, current, limits: ctx.limits() })
  } catch (error) {
    if (!(error instanceof IoswarmError) || error.code !== CODES.LIMIT) throw error
    return tools.limitedStep(error.message)
  }
  const shares = ctx.children.map((_, k) => shareOf(clients, ctx.children.length, k))
  const emitIntervalMs = byRate ? emitIntervalOf(level, options.emitters) : undefined
  // The first step is the simulators' own start (forked with their shares and the first rate).
  if (step > 1) await Promise.all(ctx.children.map((c, k) => c.resize(shares[k], ctx.rampMs, emitIntervalMs)))
  const connectedBy = await tools.waitForShares(shares, clients)
  const holdAt = Date.now()
  await sleep(/** @type {number} */ (options.stepDurationMs), undefined, { signal: ctx.signal }).catch(() => {})
  const endedAt = Date.now()
  const windows = await windowsOf(ctx, holdAt, endedAt)
  const { health, server: serverSamples } = await ctx.collector.getSamples(ctx.runId)
  const samples = health.filter((s) => ctx.children.some((c) => c.id === s.simulator))
  const simulators = healthOver(ctx, samples, holdAt, endedAt, connectedBy, shares)
  const connecting = healthOver(ctx, samples, startedAt, holdAt, connectedBy, shares)
  const atStart = [...connectedBy.values()].reduce((a, b) => a + b, 0)
  const connected = Math.min(atStart, ...windows.map((w) => w.clients.connected))
  const sum = (/** @type {(w: WindowResult) => number} */ pick) => windows.reduce((n, w) => n + pick(w), 0)
  const missing = sum((w) => w.missing)
  const expected = sum((w) => w.expected)
  const seconds = windows.length * /** @type {number} */ (options.windowMs) / 1000
  return judgedStep(options.slo, {
    distribution: {
      name: byRate ? `${level} messages/s` : `${clients} clients`,
      rounds: [],
      windows,
      deliveries: { total: { missing, expected } },
      clients: { target: clients, connected, failed: clients - connected }
    },
    connecting
  }, {
    step,
    phase,
    clients,
    connected,
    startedAt,
    roundsAt: holdAt,
    endedAt,
    connectMs: holdAt - startedAt,
    roundNumbers: [],
    messages: sum((w) => w.messages),
    expected,
    missing,
    unreported: 0,
    relative: worstDelays(windows, (w) => w.relative),
    absolute: windows.some((w) => w.absolute.count > 0) ? worstDelays(windows, (w) => w.absolute) : null,
    floor: null,
    simulators,
    server: serverOver(serverSamples, holdAt, endedAt),
    limits,
    windowed: {
      windows: windows.length,
      emitRate: byRate ? level : null,
      emitsPerSecond: seconds > 0 ? Math.round(sum((w) => w.emits.sent) / seconds * 10) / 10 : 0,
      ack: windows.some((w) => w.emits.ackTime.count > 0) ? worstDelays(windows, (w) => w.emits.ackTime) : null,
      timedOut: sum((w) => w.emits.timedOut)
    }
  })
}

/**
 * The merged windows wholly inside [fromMs, toMs], once the follower has merged the last of
 * them (each simulator closes a window a moment after its end); bounded by two windows' time.
 * @param {WindowStepContext} ctx
 * @param {number} fromMs
 * @param {number} toMs
 */
async function windowsOf (ctx, fromMs, toMs) {
  const windowMs = /** @type {number} */ (ctx.options.windowMs)
  const lastEnd = Math.floor(toMs / windowMs) * windowMs
  const deadline = Date.now() + 2 * windowMs + 5000
  while (!ctx.signal?.aborted && Date.now() < deadline) {
    if (ctx.windows.some((w) => w.endAt >= lastEnd)) break
    await sleep(200)
  }
  return ctx.windows.filter((w) => w.startAt >= fromMs && w.endAt <= toMs)
}

/**
 * p50, p99 and max of the worst window (the highest of each over the windows with data).
 * @param {WindowResult[]} windows
 * @param {(w: WindowResult) => import('../../lib/measure/histogram.js').DelaySummary} pick
 */
function worstDelays (windows, pick) {
  const of = (/** @type {'p50' | 'p99' | 'max'} */ stat) => worstWindow(windows, (w) => (pick(w).count === 0 ? null : pick(w)[stat]))?.value ?? null
  return { p50: of('p50'), p99: of('p99'), max: of('max') }
}
