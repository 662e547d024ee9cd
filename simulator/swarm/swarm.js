/**
 * runSwarm: opens N clients against a server, spread over the ramp, records every broadcast
 * they receive, samples itself every second, and resolves with a JSON-serialisable
 * SimResult when the duration ends or the signal aborts. It never prints or exits.
 */
import { randomUUID } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'
import { monotonicMs, wallMs } from '../../lib/measure/clock.js'
import { createProcessSampler } from '../../lib/measure/process-sampler.js'
import { checkPreflight, needOf, readLimits } from '../inspection/preflight.js'
import { followPhases, phaseAt, rampCutWarning } from '../phase-options.js'
import { createSizer } from './resize.js'
import { swarmResult } from './swarm-result.js'
import { wireSwarm } from './swarm-wiring.js'

/**
 * @typedef {import('../../lib/schema/result-schema.js').SimResult} SimResult
 * @typedef {import('../../lib/schema/result-schema.js').MessageReport} MessageReport
 * @typedef {import('../../lib/schema/result-schema.js').TimelinePoint} TimelinePoint
 * @typedef {import('../../lib/measure/process-sampler.js').ProcessSample} ProcessSample
 * @typedef {import('../../lib/schema/result-schema.js').ClockInfo} ClockInfo
 */

/**
 * @typedef {object} Progress
 * @property {'ramping' | 'running'} phase
 * @property {number} elapsedMs
 * @property {number} target
 * @property {number} connected
 * @property {Record<string, { target: number, connected: number, upgraded: number }>} byMode
 * @property {number} messages
 * @property {number} [untrackedReceipts] copies not recorded because --max-open-messages were open
 * @property {number | null} lastRelativeP99Ms
 * @property {number} errors
 * @property {ProcessSample} health
 * @property {string | null} [rampHeld] --ramp-guard: why the ramp waits now (`loop delay 240 ms`); null: it does not
 */

/**
 * @typedef {object} SwarmHooks
 * @property {AbortSignal} [signal] stops the swarm; the result is still returned
 * @property {(info: { id: string, rampMs: number, handshake: SimResult['server'], preflight: import('../inspection/preflight.js').Preflight }) => void} [onStart]
 * @property {SimResult['server']} [server] the server as a parent's one inspection saw it (`simulate --workers`): not inspected again
 * @property {(progress: Progress) => void} [onProgress] once a second
 * @property {(report: MessageReport) => void} [onMessage] when a message closes
 * @property {(sample: { timeline: TimelinePoint, health: ProcessSample, figures?: import('../../lib/schema/result-schema.js').SecondFigures }) => void} [onSample] once a
 *   second; figures: the clients' emits, acks, replies and custom figures in that second (none: nothing of them happened)
 * @property {() => ClockInfo} [clock] the current clock offset to the run's reference
 * @property {(pool: import('../engines/types.js').EnginePool) => void} [onPool] access to the clients (tests, fault injection)
 * @property {import('../inspection/preflight.js').Limits} [limits] the machine's limits for the preflight (default: read from /proc)
 * @property {(resize: import('./resize.js').SwarmResize) => void} [onResizable] once: the swarm's resize function (up to options.maxClients;
 *   and a new emit interval, when given: `ioswarm capacity`)
 * @property {(window: import('../../lib/schema/result-schema.js').WindowReport) => void} [onWindow] --window: each window once it is over, in order
 */

/** What --ramp-guard says with --engine sio: its ramp is held, its reconnects are socket.io-client's. */
export const SIO_RECONNECTS_UNCAPPED = '--ramp-guard: the ramp is held, but reconnects are not capped with --engine sio (socket.io-client paces its own); ' +
  'use --engine lean for the cap'

/** Most one-second samples kept in a result (a day); older ones are still reported live. */
const MAX_SAMPLES = 86400

/**
 * @param {Record<string, unknown>} input simulator options (see simulator/sim-options.js)
 * @param {SwarmHooks} [hooks]
 * @returns {Promise<SimResult>}
 */
export async function runSwarm (input, hooks = {}) {
  // The normaliser loads here: a child is handed normalised options (startSwarm) and never loads it.
  const { normalizeSimOptions } = await import('../sim-options.js')
  return startSwarm(normalizeSimOptions(input), hooks)
}

/**
 * runSwarm on options already normalised (by normalizeSimOptions, in this process or in the
 * parent that sent them over IPC): the preflight, the wiring, the run until its end, the result.
 * @param {import('../sim-options.js').SimOptions} options
 * @param {SwarmHooks} [hooks]
 * @returns {Promise<SimResult>}
 */
export async function startSwarm (options, hooks = {}) {
  // Before any socket (the inspection's included): a run that cannot fit stops here.
  const preflight = checkPreflight(needOf(options, 1), hooks.limits ?? readLimits())
  const clock = hooks.clock ?? (() => ({ offsetMs: 0, uncertaintyMs: 0, reference: 'local' }))
  const id = options.id ?? `sim-${randomUUID().slice(0, 8)}`
  const startedAt = wallMs()
  /** @type {ReturnType<typeof followPhases> | null} set once the clients are opened */
  let phases = null
  // --phases: each window labelled with its step as it is reported (its line, the collector's copy).
  const phaseOf = (/** @type {{ startAt: number, endAt: number }} */ w) => phaseAt(w, phases?.record().phases)
  const { signal, onMessage, onWindow, server } = hooks
  const swarm = await wireSwarm(options, { id, clock, signal, onMessage, onWindow, phaseOf, server })
  const rampCut = rampCutWarning({ clients: options.clients, rampMs: swarm.server.rampMs, rampSource: swarm.server.rampSource, durationMs: options.durationMs })
  if (rampCut) preflight.warnings.push(rampCut)
  // socket.io-client schedules its Manager's reconnects itself: the cap cannot defer them.
  if (options.rampGuard && options.engine === 'sio') preflight.warnings.push(SIO_RECONNECTS_UNCAPPED)
  hooks.onPool?.(swarm.pool)
  hooks.onStart?.({ id, rampMs: swarm.server.rampMs, handshake: swarm.server, preflight })
  const { churn, sizer } = openClients(swarm, options)
  const emits = { emitIntervalMs: options.emitIntervalMs, setEmitInterval: swarm.behaviours.setEmitInterval }
  phases = options.phases ? followPhases(options.phases, sizer, emits) : null
  hooks.onResizable?.((clients, rampMs, emitIntervalMs) => {
    if (clients !== undefined) sizer.resize(clients, rampMs)
    // The emit rate too (capacity --vary emit-rate), as a step of --phases sets it.
    if (emitIntervalMs !== undefined) swarm.behaviours.setEmitInterval(emitIntervalMs)
  })
  const sampled = await runUntilEnd({ ...swarm, churn, sizer, phases }, options, { ...hooks, startedAt })
  await swarm.logins?.stop()
  const clients = swarm.tracker.counts()
  // Before the clients close: their own close is no drop of a node.
  const nodes = swarm.nodes?.record() ?? null
  const destinations = swarm.pool.destinations()
  const sourceAddresses = swarm.pool.sourceAddresses()
  const agent = swarm.pool.agent()
  swarm.emitting.closeOnPurpose(-1)
  await swarm.pool.close()
  // The last windows once the clients are closed: the acks their close ended (closed by the
  // run's end) count in the last window, or a final partial one, so the windows sum to the totals.
  swarm.windows?.flush(true)
  // Every client's login failed: no result to wait for, the error says why (exit 1).
  const loginFailure = swarm.logins?.failure()
  if (loginFailure) throw loginFailure
  let scenario = swarm.behaviours.record() ?? (swarm.hookRunner ? {} : null)
  if (scenario && swarm.hookRunner) scenario.hooks = swarm.hookRunner.record()
  const replies = swarm.replies.record()
  if (replies) scenario = { ...scenario, replies }
  return swarmResult({
    id,
    options,
    startedAt,
    agent,
    server: swarm.server,
    clock: clock(),
    clients,
    destinations,
    sourceAddresses,
    preflight,
    deliveries: swarm.deliveries,
    sampled,
    scenario,
    nodes,
    logins: swarm.logins?.record() ?? null,
    custom: swarm.hookRunner?.custom() ?? null,
    churn: churn ? { closed: churn.closed() } : null,
    phases: phases?.record() ?? null,
    windows: swarm.windows,
    rampGuard: swarm.guard?.record() ?? null
  })
}

/**
 * Opens the clients over the ramp (and, with --session-lifetime, replaces each session at the
 * end of its life).
 * @param {Awaited<ReturnType<typeof wireSwarm>>} swarm
 * @param {import('../sim-options.js').SimOptions} options
 */
function openClients ({ server, tracker, pool, transports, capacity, logins, emitting, deliveries, reconnect, startChurn }, options) {
  const churn = startChurn?.(reconnect) ?? null
  const sizer = createSizer({
    clients: options.phases ? 0 : options.clients,
    capacity,
    rampMs: server.rampMs,
    start: (i) => {
      emitting.closeOnPurpose(i, true)
      const connect = () => {
        pool.connect(i, transports[i])
        churn?.started(i)
      }
      // --login: the client logs in first (its start on the ramp), then connects.
      if (logins === null) connect()
      else logins.start(i, connect)
    },
    stop: (i) => {
      logins?.cancel(i)
      churn?.ended(i)
      // Before the close: the acks it still awaits end as `closed`, not failed; the messages just sent are not owed to it.
      emitting.closeOnPurpose(i)
      deliveries.closeOnPurpose(i)
      pool.disconnect(i)
    },
    onTarget: tracker.setTarget
  })
  logins?.follow(sizer.target)
  return { churn, sizer }
}

/**
 * Samples the swarm every second until the duration ends or the signal aborts, then stops
 * what opens, emits and churns, lets the emits in flight land (bounded), and takes the last
 * sample; the connects still pending then are counted under their reason.
 * @param {Awaited<ReturnType<typeof wireSwarm>> & ReturnType<typeof openClients> & { phases: ReturnType<typeof followPhases> | null }} swarm
 * @param {import('../sim-options.js').SimOptions} options
 * @param {SwarmHooks & { startedAt: number }} hooks
 * @returns {Promise<{ samples: ProcessSample[], timeline: TimelinePoint[] }>}
 */
async function runUntilEnd (swarm, options, hooks) {
  const { deliveries, emitting, replies, behaviours, hookRunner, tracker, churn, sizer, nodes, phases, windows, second, logins, guard } = swarm
  const sampler = createProcessSampler()
  /** @type {TimelinePoint[]} */
  const timeline = []
  /** @type {ProcessSample[]} */
  const samples = []
  let phase = /** @type {'ramping' | 'running'} */ ('ramping')
  sizer.done.then(() => { phase = 'running' })
  const sampleOnce = () => {
    deliveries.sweep()
    const stats = deliveries.stats()
    const point = tracker.tick(stats.messages)
    if (nodes !== null) point.byNode = nodes.byNode()
    const sample = sampler.sample()
    if (timeline.length < MAX_SAMPLES) {
      timeline.push(point)
      samples.push(sample)
    }
    const live = tracker.live()
    // --ramp-guard: the ramp waits while this second's sample says so (before the next start it would make).
    const rampHeld = guard?.check({
      loopDelayMs: sample.loopDelayP99Ms,
      connects: point.connects,
      errors: point.errors,
      ...tracker.takeSlowConnects(),
      pending: live.pending,
      ramping: sizer.started() < sizer.target()
    }) ?? null
    if (guard) sizer.hold(rampHeld !== null)
    const figures = second.take()
    hooks.onSample?.({ timeline: point, health: sample, ...(figures ? { figures } : {}) })
    if (windows !== null) {
      windows.sample(point, sample)
      windows.flush()
    }
    hooks.onProgress?.({
      phase,
      elapsedMs: wallMs() - hooks.startedAt,
      target: sizer.target(),
      connected: live.connected,
      byMode: live.byMode,
      messages: stats.messages,
      untrackedReceipts: stats.untrackedReceipts,
      lastRelativeP99Ms: stats.lastRelativeP99Ms,
      errors: live.errors,
      health: sample,
      ...(guard ? { rampHeld } : {})
    })
  }
  const ticker = setInterval(sampleOnce, 1000)
  // The run ends at its duration, on the signal, or when every client's login failed.
  const ended = new AbortController()
  const end = () => ended.abort()
  hooks.signal?.addEventListener('abort', end, { once: true })
  if (hooks.signal?.aborted) end()
  logins?.fatal.then(end)
  await waitForEnd(ended.signal, options.durationMs)
  hooks.signal?.removeEventListener('abort', end)
  sizer.stop()
  phases?.stop()
  churn?.stop()
  emitting.stop()
  behaviours.stop()
  hookRunner?.stop()
  // Clients that emit stop with lines in flight: their acks and the copies the server relays
  // would count as failed and missing; and a message the app sent by itself (a feed) just before
  // the end, received by some clients and still on its way to the others, would count them as
  // missing. Wait for both (bounded) before closing.
  const emits = behaviours.emitEvent !== null || hookRunner !== null
  await drainEmits(() => (!emits || (emitting.pendingAcks() === 0 && replies.pending() === 0)) && deliveries.undelivered() === 0)
  replies.stop()
  clearInterval(ticker)
  // A server that never answers leaves every connect pending: counted, not "connect errors: none".
  tracker.endPending()
  sampleOnce()
  sampler.stop()
  deliveries.closeAll()
  return { samples, timeline }
}

/**
 * @param {AbortSignal | undefined} signal
 * @param {number | null} durationMs
 */
function waitForEnd (signal, durationMs) {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve(undefined)
    const timer = durationMs === null ? undefined : setTimeout(done, durationMs)
    signal?.addEventListener('abort', done, { once: true })
    function done () {
      clearTimeout(timer)
      signal?.removeEventListener('abort', done)
      resolve(undefined)
    }
  })
}

/** Longest wait at the end of a run for the emits and messages still in flight (acks, copies on their way). */
const END_DRAIN_MS = 2000

/**
 * Resolves once `isIdle()` holds, or after END_DRAIN_MS (a message that never completes, a
 * server that never acks).
 * @param {() => boolean} isIdle
 */
async function drainEmits (isIdle) {
  const deadline = monotonicMs() + END_DRAIN_MS
  while (!isIdle() && monotonicMs() < deadline) await sleep(20)
}
