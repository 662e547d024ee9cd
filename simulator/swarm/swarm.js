/**
 * runSwarm: opens N clients against a server, spread over the ramp, records every broadcast
 * they receive, samples itself every second, and resolves with a JSON-serialisable
 * SimResult when the duration ends or the signal aborts. It never prints or exits.
 */
import { randomUUID } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'
import { monotonicMs, wallMs } from '../../lib/measure/clock.js'
import { assignTransports } from '../../lib/values/parsers.js'
import { createProcessSampler } from '../../lib/measure/process-sampler.js'
import { createClientTracker } from './client-tracker.js'
import { createDestinationPool } from './destinations.js'
import { loadEngine } from '../engines/load.js'
import { engineOptions } from './engine-options.js'
import { inspectServer } from '../inspection/inspect.js'
import { checkPreflight, needOf, readLimits } from '../inspection/preflight.js'
import { messageFields } from '../recording/recorder.js'
import { createDeliveries } from '../recording/namespace-recorders.js'
import { createBehaviours } from '../traffic/behaviours.js'
import { createEmitting } from '../traffic/emitting.js'
import { createReplies } from '../traffic/replies.js'
import { createStormTracker } from '../recording/storms.js'
import { compileIdentities, handshakeIdentity } from '../sessions/identity.js'
import { createSizer } from './resize.js'
import { followPhases, phaseAt, rampCutWarning } from '../phase-options.js'
import { swarmResult } from './swarm-result.js'
import { createFigures, teeFigures } from '../recording/figures.js'
import { fieldGetter } from '../../lib/input/fields.js'
import { invalidOption } from '../../lib/errors.js'
import { compileLogin } from '../sessions/login-flags.js'

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
    windows: swarm.windows
  })
}

/**
 * The swarm's parts, wired to each other: who each client is, what it records, how it
 * behaves, the server as the inspection saw it (simulator/inspection/inspect.js), the clients' pool.
 * @param {import('../sim-options.js').SimOptions} options
 * @param {{ id: string, clock: () => ClockInfo, signal?: AbortSignal, onMessage?: (report: MessageReport) => void, onWindow?: SwarmHooks['onWindow'],
 *   phaseOf?: (window: { startAt: number, endAt: number }) => import('../../lib/schema/result-schema.js').WindowReport['phase'], server?: SimResult['server'] }} context
 *   server: the parent's inspection (workers), else this swarm inspects
 */
async function wireSwarm (options, { id, clock, signal, onMessage, onWindow, phaseOf, server: inspected }) {
  /** @type {Logins | null} */
  let logins = null
  const identities = compileIdentities(options, { simId: id, login: (i) => logins?.fieldsOf(i) ?? null })
  // Room for the most clients it may be resized to (simulator/swarm/resize.js); only --clients open now.
  const capacity = Math.max(options.clients, options.maxClients ?? 0)
  const { scenario: scenarioFile, nodeFrom, windowMs, sessionLifetime } = options
  // The parts of a flag load with it (issue 26: a light process): --scenario, --node-from, --window, --session-lifetime.
  const [scenario, nodes, windows, startChurn] = await Promise.all([
    scenarioFile ? import('../traffic/scenario-hooks.js').then(async (m) => ({ hooks: await m.loadScenario(scenarioFile), createHookRunner: m.createHookRunner })) : null,
    nodeFrom ? import('../recording/node-tracker.js').then((m) => m.createNodeTracker({ from: nodeFrom, clients: capacity })) : null,
    windowMs === null ? null : import('../recording/window-recorder.js').then((m) => m.createWindowBook({ windowMs, clockOffsetMs: () => clock().offsetMs, onWindow, phaseOf })),
    // The churn needs the swarm's reconnect, made below: it starts with openClients.
    sessionLifetime ? import('./churn.js').then((m) => (/** @type {(i: number) => void} */ reopen) => m.createChurn(sessionLifetime, { reopen })) : null
  ])
  const sized = capacity === options.clients ? options : { ...options, clients: capacity }
  const transports = assignTransports(options.transport, capacity)
  const namespaces = options.namespaces ?? [options.namespace]
  const storms = createStormTracker(capacity)
  // The clients' emits, acks, replies and custom figures of each second: sent with its sample (the live metrics).
  const second = createFigures()
  const figures = teeFigures([windows, second])
  const deliveries = createDeliveries({
    nodes,
    namespaces,
    clients: capacity,
    clientOffset: options.clientOffset,
    messageTimeoutMs: options.messageTimeoutMs,
    maxOpen: options.maxOpenMessages,
    keepClosed: options.keepMessages,
    clockOffsetMs: () => clock().offsetMs,
    clockUncertaintyMs: () => clock().uncertaintyMs,
    fields: messageFields(options),
    onClose: (report) => onMessage?.(report),
    // A storm's gap is told of each receipt by the recorder, with the key it found.
    gap: storms,
    windows
  })
  assignRooms(identities, deliveries, capacity)
  /** @type {ReturnType<typeof createDestinationPool> | null} */
  let opened = null
  const usePool = () => /** @type {import('../engines/types.js').EnginePool} */ (opened)
  logins = await openLogins(options, { identities, hook: scenario?.hooks.login ?? null, pool: () => opened, capacity })
  // One emit machinery for the flags' built-in scenario (--join, --emit) and a --scenario's hooks.
  const emitting = createEmitting({ options: sized, deliveries, pool: usePool, figures })
  // Replies that come as events (--reply-event, a hook's emitAndWait): the events the engine hands over are known below.
  const listens = (/** @type {string} */ event) => events.includes('*') || events.includes(event)
  const replies = createReplies({ options: sized, emitting, listens, figures })
  const behaviours = createBehaviours({ options: sized, identities, deliveries, emitting, replies, clockOffsetMs: () => clock().offsetMs })
  const hookRunner = scenario
    ? scenario.createHookRunner({ hooks: scenario.hooks, options: sized, identities, deliveries, emitting, replies, simId: id, figures })
    : null
  // Rendered at each attempt only when some client's handshake carries something of its own.
  const identity = handshakeIdentity(options, identities, hookRunner?.identity)
  // Client 0 logs in first: the look at the server carries its cookies (and its {{login.FIELD}}).
  const firstJar = logins ? await logins.first() : null
  const server = inspected ?? await inspectServer(options, { identity: (identity ?? identities.of)(0), jar: firstJar, signal })
  // A relayed emit (a chat line) is measured like a broadcast.
  const measured = behaviours.emitEvent === null || options.events.includes('*') || options.events.includes(behaviours.emitEvent)
    ? options.events
    : [...options.events, behaviours.emitEvent]
  // What a measured event goes to: the recorder, or first a scenario's onEvent.
  const received = hookRunner?.wantsEvents ? routeToHooks(measured, deliveries, hookRunner) : deliveries.receive
  const tracker = createClientTracker({
    transports,
    // --phases opens none at the start: the first step does (simulator/phase-options.js).
    target: options.phases ? 0 : options.clients,
    namespaces,
    onConnectedChange: (i, k, isUp, reason) => {
      // A client's node is its connection's: the first namespace's connect and drop say when it starts and ends.
      if (nodes !== null && k === 0) isUp ? nodeConnected(nodes, i, usePool()) : nodes.disconnected(i)
      if (isUp) logins?.connected(i, namespaces[k])
      deliveries.setConnected(i, k, isUp)
      emitting.nextSession(i, k)
      replies.onNamespace(i, k, isUp)
      behaviours.onNamespace(i, k, isUp)
      hookRunner?.onNamespace(i, k, isUp, reason)
    },
    onMessage: routeNodeEvent(nodes, routeReplies(replies, measured, hookRunner, received)),
    storms
  })
  // onEvent sees every event; the recorder still measures only the measured ones. The node's
  // event and the reply event are handed over too, neither measured as a broadcast.
  const own = /** @type {string[]} */ ([nodes?.from.kind === 'event' ? nodes.from.name : null, options.replyEvent ?? null].filter((e) => e !== null && !measured.includes(e)))
  /** @type {string[]} */
  const events = hookRunner?.wantsEvents ? ['*'] : measured.includes('*') ? measured : [...measured, ...new Set(own)]
  const sources = { addresses: options.sourceAddresses ?? [], slice: options.sourcePortSlice }
  // --node-from header:NAME: the engine reads the header from each client's handshake answers.
  const nodeEvents = nodes?.from.kind === 'header' ? { ...tracker.events, node: nodes.learn } : tracker.events
  // Client i closed on purpose and opened anew: a --session-lifetime's end, or a reconnect refused with
  // 401/403 or a CONNECT refused by the app's middleware, which logs its client in again.
  const reconnect = (/** @type {number} */ i) => {
    // On purpose: the acks the old session still awaits end as `closed`, not failed.
    emitting.closeOnPurpose(i)
    usePool().disconnect(i)
    emitting.closeOnPurpose(i, true)
    usePool().connect(i, transports[i])
  }
  const swarmEvents = logins === null ? nodeEvents : { ...nodeEvents, connectError: refusedLogsIn(tracker.events, logins, reconnect) }
  const engineWith = engineOptions(options, { namespaces, events, identity, eio: server.eio, freshAuth: logins !== null })
  const pool = opened = createDestinationPool(await loadEngine(options.engine), engineWith, options.urls, capacity, swarmEvents, sources)
  return {
    server, deliveries, emitting, replies, behaviours, hookRunner, tracker, pool, transports, capacity, nodes, windows, second, logins, reconnect, startChurn
  }
}

/**
 * Opens the clients over the ramp (and, with --session-lifetime, replaces each session at the
 * end of its life).
 * @param {Awaited<ReturnType<typeof wireSwarm>>} swarm
 * @param {import('../sim-options.js').SimOptions} options
 */
function openClients ({ server, tracker, pool, transports, capacity, logins, emitting, reconnect, startChurn }, options) {
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
      // Before the close: the acks it still awaits end as `closed`, not failed.
      emitting.closeOnPurpose(i)
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
  const { deliveries, emitting, replies, behaviours, hookRunner, tracker, churn, sizer, nodes, phases, windows, second, logins } = swarm
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
    const figures = second.take()
    hooks.onSample?.({ timeline: point, health: sample, ...(figures ? { figures } : {}) })
    if (windows !== null) {
      windows.sample(point, sample)
      windows.flush()
    }
    const live = tracker.live()
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
      health: sample
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

/** @typedef {ReturnType<typeof import('../sessions/login.js').createLogins>} Logins */

/**
 * The logins of a swarm's clients (--login, or a scenario's login hook); null without either.
 * The login code loads only then (issue 26: a light process).
 * @param {import('../sim-options.js').SimOptions} options
 * @param {{ identities: import('../sessions/identity.js').Identities, hook: import('../sessions/login.js').LoginHook | null, pool: () => import('../engines/types.js').EnginePool | null,
 *   capacity: number }} context
 * @returns {Promise<Logins | null>}
 */
async function openLogins (options, { identities, hook, pool, capacity }) {
  const flags = compileLogin(options, identities)
  if (flags !== null && hook !== null) throw invalidOption('--login', 'and the scenario\'s login hook both log the clients in: give one')
  if (flags === null && hook === null) return null
  const [{ createLogins }, { createLoginHttp }] = await Promise.all([import('../sessions/login.js'), import('../sessions/login-http.js')])
  const http = createLoginHttp({ urls: options.urls, trust: options, addresses: options.sourceAddresses ?? [], timeoutMs: LOGIN_TIMEOUT_MS })
  return createLogins({ flags, hook, http, identities, pool, capacity, clients: options.phases ? 0 : options.clients })
}

/**
 * The engines' connect error, counted, then a refusal's new login (a refused CONNECT's, then a new connect).
 * @param {import('../engines/types.js').SwarmEvents} events
 * @param {Logins} logins
 * @param {(i: number) => void} reconnect
 * @returns {import('../engines/types.js').SwarmEvents['connectError']}
 */
function refusedLogsIn (events, logins, reconnect) {
  return (i, reason, nsp) => {
    events.connectError(i, reason, nsp)
    logins.refused(i, reason, nsp, () => reconnect(i))
  }
}

/**
 * Client i's connection is up: with --node-from cookie:NAME, its node is the balancer's cookie
 * in its jar (set by the handshake's answer, or kept from before when the balancer left it on
 * the node it named).
 * @param {import('../recording/node-tracker.js').NodeTracker} nodes
 * @param {number} i
 * @param {import('../engines/types.js').EnginePool} pool
 */
function nodeConnected (nodes, i, pool) {
  nodes.connected(i)
  if (nodes.from.kind === 'cookie') nodes.learn(i, pool.cookieOf?.(i, nodes.from.name) ?? null)
}

/**
 * With --node-from event:NAME[.path], the app's event naming a client's node goes to the node
 * tracker, never to the recorder (it is no broadcast); every other event goes on.
 * @param {import('../recording/node-tracker.js').NodeTracker | null} nodes
 * @param {(i: number, k: number, event: string, args: unknown[]) => void} next
 * @returns {(i: number, k: number, event: string, args: unknown[]) => void}
 */
function routeNodeEvent (nodes, next) {
  if (nodes === null || nodes.from.kind !== 'event') return next
  const { name, path } = nodes.from
  const read = path === null ? (/** @type {unknown} */ value) => value : fieldGetter(path)
  return (i, k, event, args) => {
    if (event === name && k === 0) nodes.learn(i, read(args[0]))
    else next(i, k, event, args)
  }
}

/**
 * The tracker's message handler when a scenario's onEvent sees every event: the measured ones
 * still go to the recorder.
 * @param {string[]} measured --event (and the emitted event)
 * @param {ReturnType<typeof createDeliveries>} recorder
 * @param {NonNullable<ReturnType<typeof import('../traffic/scenario-hooks.js').createHookRunner>>} hooks
 * @returns {(i: number, k: number, event: string, args: unknown[]) => void}
 */
function routeToHooks (measured, recorder, hooks) {
  const all = measured.includes('*')
  const wanted = new Set(measured)
  return (i, k, event, args) => {
    if (all || wanted.has(event)) recorder.receive(i, k, event, args)
    hooks.onEvent(i, k, event, args)
  }
}

/**
 * The tracker's message handler with replies looked for first (--reply-event, a hook's
 * emitAndWait); without either, `next` itself. A reply event goes on only when it is measured
 * (--event) or a scenario's onEvent sees every event.
 * @param {ReturnType<typeof createReplies>} replies
 * @param {string[]} measured
 * @param {ReturnType<typeof import('../traffic/scenario-hooks.js').createHookRunner> | null} hooks
 * @param {(i: number, k: number, event: string, args: unknown[]) => void} next
 */
function routeReplies (replies, measured, hooks, next) {
  if (hooks === null && !replies.waits) return next
  const all = measured.includes('*') || hooks?.wantsEvents === true
  const wanted = new Set(measured)
  return replies.route(next, (event) => all || wanted.has(event))
}

/**
 * Every client is meant to be in its room (--rooms, --room) in every namespace it joins.
 * @param {import('../sessions/identity.js').Identities} identities
 * @param {ReturnType<typeof createDeliveries>} deliveries
 * @param {number} clients
 */
function assignRooms (identities, deliveries, clients) {
  if (identities.roomOf(0) === null) return
  for (let i = 0; i < clients; i++) {
    const room = /** @type {string} */ (identities.roomOf(i))
    for (let k = 0; k < deliveries.namespaces.length; k++) deliveries.assignRoom(i, k, room)
  }
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

/** A login's longest wait for its answer (socket.io-client's connect timeout): then it failed, as `timeout`. */
export const LOGIN_TIMEOUT_MS = 20000

/** Longest wait at the end of a run for the emits and messages still in flight (acks, copies on their way). */
export const END_DRAIN_MS = 2000

/**
 * Resolves once `isIdle()` holds, or after END_DRAIN_MS (a message that never completes, a
 * server that never acks).
 * @param {() => boolean} isIdle
 */
async function drainEmits (isIdle) {
  const deadline = monotonicMs() + END_DRAIN_MS
  while (!isIdle() && monotonicMs() < deadline) await sleep(20)
}
