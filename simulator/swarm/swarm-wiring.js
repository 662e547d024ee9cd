/**
 * wireSwarm: the swarm's parts, made and wired to each other before any client opens. Each part
 * has its own function below: the parts a flag brings, what the clients record, how they behave,
 * the server as the inspection saw it, the client tracker and the pool of clients.
 */
import { assignTransports } from '../../lib/values/parsers.js'
import { invalidOption } from '../../lib/errors.js'
import { createClientTracker } from './client-tracker.js'
import { createDestinationPool } from './destinations.js'
import { engineOptions } from './engine-options.js'
import { nodeConnected, refusedLogsIn, routeNodeEvent, routeReplies, routeToHooks } from './event-routes.js'
import { loadEngine } from '../engines/load.js'
import { inspectServer } from '../inspection/inspect.js'
import { messageFields } from '../recording/recorder.js'
import { createDeliveries } from '../recording/namespace-recorders.js'
import { createStormTracker } from '../recording/storms.js'
import { createFigures, teeFigures } from '../recording/figures.js'
import { createBehaviours } from '../traffic/behaviours.js'
import { createEmitting } from '../traffic/emitting.js'
import { createReplies } from '../traffic/replies.js'
import { compileIdentities, handshakeIdentity } from '../sessions/identity.js'
import { compileLogin } from '../sessions/login-flags.js'
import { createRampGuard } from './ramp-guard.js'

/**
 * @typedef {import('../../lib/schema/result-schema.js').SimResult} SimResult
 * @typedef {import('../../lib/schema/result-schema.js').MessageReport} MessageReport
 * @typedef {import('../../lib/schema/result-schema.js').ClockInfo} ClockInfo
 * @typedef {import('../sim-options.js').SimOptions} SimOptions
 * @typedef {import('../engines/types.js').EnginePool} EnginePool
 * @typedef {import('../sessions/identity.js').Identities} Identities
 * @typedef {ReturnType<typeof import('../sessions/login.js').createLogins>} Logins
 * @typedef {ReturnType<typeof createDeliveries>} Deliveries
 * @typedef {ReturnType<typeof import('../traffic/scenario-hooks.js').createHookRunner>} HookRunner
 */

/**
 * What the swarm is wired with, besides its options.
 * @typedef {object} WireContext
 * @property {string} id the simulator's id
 * @property {() => ClockInfo} clock the current offset to the run's reference clock
 * @property {AbortSignal} [signal] stops the inspection
 * @property {(report: MessageReport) => void} [onMessage] when a message closes
 * @property {(window: import('../../lib/schema/result-schema.js').WindowReport) => void} [onWindow] --window: each window once it is over
 * @property {(window: { startAt: number, endAt: number }) => import('../../lib/schema/result-schema.js').WindowReport['phase']} [phaseOf]
 *   --phases: the step a window belongs to
 * @property {SimResult['server']} [server] the parent's inspection (`simulate --workers`); else this swarm inspects
 */

/** A login's longest wait for its answer (socket.io-client's connect timeout): then it failed, as `timeout`. */
const LOGIN_TIMEOUT_MS = 20000

/**
 * The swarm's parts, wired to each other: who each client is, what it records, how it
 * behaves, the server as the inspection saw it (simulator/inspection/inspect.js), the clients' pool.
 * @param {SimOptions} options
 * @param {WireContext} context
 */
export async function wireSwarm (options, context) {
  /** @type {Logins | null} */
  let logins = null
  const identities = compileIdentities(options, { simId: context.id, login: (i) => logins?.fieldsOf(i) ?? null })
  // Room for the most clients it may be resized to (simulator/swarm/resize.js); only --clients open now.
  const capacity = Math.max(options.clients, options.maxClients ?? 0)
  const { scenario, nodes, windows, startChurn } = await loadFlagParts(options, capacity, context)
  const { deliveries, storms, second, figures } = createRecording(options, capacity, { nodes, windows }, context)
  assignRooms(identities, deliveries, capacity)
  /** @type {EnginePool | null} */
  let opened = null
  const usePool = () => /** @type {EnginePool} */ (opened)
  logins = await openLogins(options, { identities, hook: scenario?.hooks.login ?? null, pool: () => opened, capacity })
  // Replies that come as events (--reply-event, a hook's emitAndWait): the events the engine hands over are known below.
  /** @type {string[]} */
  let events = []
  const listens = (/** @type {string} */ event) => events.includes('*') || events.includes(event)
  const traffic = createTraffic(options, capacity, { ...context, identities, deliveries, figures, pool: usePool, scenario, listens })
  const { server, identity } = await inspectOnce(options, { ...context, identities, logins, hookRunner: traffic.hookRunner })
  const measured = measuredEvents(options, traffic.behaviours.emitEvent)
  const transports = assignTransports(options.transport, capacity)
  const namespaces = options.namespaces ?? [options.namespace]
  const tracker = trackClients(options, { transports, namespaces, nodes, logins, deliveries, traffic, measured, storms, pool: usePool })
  logins?.countConnectErrors(tracker.events.connectError)
  events = engineEvents(options, measured, nodes, traffic.hookRunner)
  const reconnect = reconnector(traffic.emitting, deliveries, usePool, transports)
  // --ramp-guard: holds the ramp (swarm.js asks it once a second) and paces the engine's reconnects.
  const guard = options.rampGuard ? createRampGuard(options.rampGuard) : null
  const engineWith = {
    ...engineOptions(options, { namespaces, events, identity, eio: server.eio, freshAuth: logins !== null }),
    ...(guard ? { reconnectGate: guard.reconnectDelayMs } : {})
  }
  const pool = opened = await openPool(options, { engineWith, capacity, tracker, nodes, logins, reconnect })
  return { server, deliveries, ...traffic, tracker, pool, transports, capacity, nodes, windows, second, logins, reconnect, startChurn, guard }
}

/**
 * The parts a flag brings, each loaded only with its flag (a process without them stays light):
 * --scenario's hooks, --node-from's tracker, --window's book, --session-lifetime's churn.
 * @param {SimOptions} options
 * @param {number} capacity the most clients the swarm may hold
 * @param {WireContext} context
 */
async function loadFlagParts (options, capacity, { clock, onWindow, phaseOf }) {
  const { scenario: file, nodeFrom, windowMs, sessionLifetime } = options
  const loadScenario = async () => {
    const m = await import('../traffic/scenario-hooks.js')
    return { hooks: await m.loadScenario(/** @type {string} */ (file)), createHookRunner: m.createHookRunner }
  }
  const loadNodes = async () => {
    const m = await import('../recording/node-tracker.js')
    return m.createNodeTracker({ from: /** @type {NonNullable<typeof nodeFrom>} */ (nodeFrom), clients: capacity })
  }
  const loadWindows = async () => {
    const m = await import('../recording/window-recorder.js')
    return m.createWindowBook({ windowMs: /** @type {number} */ (windowMs), clockOffsetMs: () => clock().offsetMs, onWindow, phaseOf })
  }
  // The churn needs the swarm's reconnect, made last: it starts with the clients.
  const loadChurn = async () => {
    const m = await import('./churn.js')
    return (/** @type {(i: number) => void} */ reopen) => m.createChurn(/** @type {NonNullable<typeof sessionLifetime>} */ (sessionLifetime), { reopen })
  }
  const [scenario, nodes, windows, startChurn] = await Promise.all([
    file ? loadScenario() : null,
    nodeFrom ? loadNodes() : null,
    windowMs === null ? null : loadWindows(),
    sessionLifetime ? loadChurn() : null
  ])
  return { scenario, nodes, windows, startChurn }
}

/**
 * What the clients record: each namespace's messages (the deliveries), the storms of
 * reconnects, and the figures of each second (sent with its sample: the live metrics) and window.
 * @param {SimOptions} options
 * @param {number} capacity
 * @param {{ nodes: import('../recording/node-tracker.js').NodeTracker | null, windows: import('../recording/window-recorder.js').WindowBook | null }} parts
 * @param {WireContext} context
 */
function createRecording (options, capacity, { nodes, windows }, { clock, onMessage }) {
  const storms = createStormTracker(capacity)
  const second = createFigures()
  const figures = teeFigures([windows, second])
  const deliveries = createDeliveries({
    nodes,
    namespaces: options.namespaces ?? [options.namespace],
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
  return { deliveries, storms, second, figures }
}

/**
 * How the clients behave: one emit machinery for the flags' built-in scenario (--join, --emit)
 * and a --scenario's hooks, the replies they wait for, and the hooks themselves.
 * @param {SimOptions} options
 * @param {number} capacity
 * @param {WireContext & { identities: Identities, deliveries: Deliveries, figures: ReturnType<typeof teeFigures>, pool: () => EnginePool,
 *   scenario: Awaited<ReturnType<typeof loadFlagParts>>['scenario'], listens: (event: string) => boolean }} parts
 */
function createTraffic (options, capacity, { id, clock, identities, deliveries, figures, pool, scenario, listens }) {
  const sized = capacity === options.clients ? options : { ...options, clients: capacity }
  const emitting = createEmitting({ options: sized, deliveries, pool, figures })
  const replies = createReplies({ options: sized, emitting, listens, figures })
  const behaviours = createBehaviours({ options: sized, identities, deliveries, emitting, replies, clockOffsetMs: () => clock().offsetMs })
  const hookRunner = scenario
    ? scenario.createHookRunner({ hooks: scenario.hooks, options: sized, identities, deliveries, emitting, replies, simId: id, figures })
    : null
  return { emitting, replies, behaviours, hookRunner }
}

/**
 * The server as the inspection saw it (or the parent's inspection), and each client's
 * handshake identity: rendered at each attempt only when some client's handshake carries
 * something of its own.
 * @param {SimOptions} options
 * @param {WireContext & { identities: Identities, logins: Logins | null, hookRunner: HookRunner | null }} parts
 */
async function inspectOnce (options, { identities, logins, hookRunner, server: inspected, signal }) {
  const identity = handshakeIdentity(options, identities, hookRunner?.identity)
  // Client 0 logs in first: the look at the server carries its cookies (and its {{login.FIELD}}).
  const firstJar = logins ? await logins.first() : null
  const server = inspected ?? await inspectServer(options, { identity: (identity ?? identities.of)(0), jar: firstJar, signal })
  return { server, identity }
}

/**
 * The events measured as broadcasts: --event, and the emitted event (a relayed emit, a chat
 * line, is measured like a broadcast).
 * @param {SimOptions} options
 * @param {string | null} emitEvent
 * @returns {string[]}
 */
function measuredEvents (options, emitEvent) {
  if (emitEvent === null || options.events.includes('*') || options.events.includes(emitEvent)) return options.events
  return [...options.events, emitEvent]
}

/**
 * The events the engine hands over: the measured ones, every one when a scenario's onEvent
 * sees all, and the node's event and the reply event (neither measured as a broadcast).
 * @param {SimOptions} options
 * @param {string[]} measured
 * @param {import('../recording/node-tracker.js').NodeTracker | null} nodes
 * @param {HookRunner | null} hookRunner
 * @returns {string[]}
 */
function engineEvents (options, measured, nodes, hookRunner) {
  if (hookRunner?.wantsEvents) return ['*']
  if (measured.includes('*')) return measured
  const nodeEvent = nodes?.from.kind === 'event' ? nodes.from.name : null
  const own = /** @type {string[]} */ ([nodeEvent, options.replyEvent ?? null].filter((e) => e !== null && !measured.includes(e)))
  return [...measured, ...new Set(own)]
}

/**
 * The client tracker: counts each client's connections and hands each namespace's connect,
 * drop and messages to the parts that follow them.
 * @param {SimOptions} options
 * @param {{ transports: ReturnType<typeof assignTransports>, namespaces: string[], nodes: import('../recording/node-tracker.js').NodeTracker | null, logins: Logins | null,
 *   deliveries: Deliveries, traffic: ReturnType<typeof createTraffic>, measured: string[], storms: ReturnType<typeof createStormTracker>,
 *   pool: () => EnginePool }} parts
 */
function trackClients (options, { transports, namespaces, nodes, logins, deliveries, traffic, measured, storms, pool }) {
  const { emitting, replies, behaviours, hookRunner } = traffic
  // What a measured event goes to: the recorder, or first a scenario's onEvent.
  const received = hookRunner?.wantsEvents ? routeToHooks(measured, deliveries, hookRunner) : deliveries.receive
  return createClientTracker({
    transports,
    // --phases opens none at the start: the first step does (simulator/phase-options.js).
    target: options.phases ? 0 : options.clients,
    namespaces,
    // --ramp-guard's `connect` bound: connects slower than it are counted apart (0: not watched).
    slowConnectMs: options.rampGuard?.connectMs || Infinity,
    onConnectedChange: (i, k, isUp, reason) => {
      // A client's node is its connection's: the first namespace's connect and drop say when it starts and ends.
      if (nodes !== null && k === 0) isUp ? nodeConnected(nodes, i, pool()) : nodes.disconnected(i)
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
}

/**
 * Client i closed on purpose and opened anew: a --session-lifetime's end, or a reconnect
 * refused with 401/403 or a CONNECT refused by the app's middleware, which logs its client in again.
 * @param {ReturnType<typeof createEmitting>} emitting
 * @param {{ closeOnPurpose: (i: number) => void }} deliveries
 * @param {() => EnginePool} pool
 * @param {ReturnType<typeof assignTransports>} transports
 * @returns {(i: number) => void}
 */
function reconnector (emitting, deliveries, pool, transports) {
  return (i) => {
    // On purpose: the acks the old session still awaits end as `closed`, not failed; the messages just sent are not owed to it.
    emitting.closeOnPurpose(i)
    deliveries.closeOnPurpose(i)
    pool().disconnect(i)
    emitting.closeOnPurpose(i, true)
    pool().connect(i, transports[i])
  }
}

/**
 * The pool of clients over every --url, with the engine's events going to the tracker (and,
 * with --node-from header:NAME, each handshake's header to the node tracker; with logins, a
 * refused connect to a new login).
 * @param {SimOptions} options
 * @param {{ engineWith: ReturnType<typeof engineOptions>, capacity: number, tracker: ReturnType<typeof createClientTracker>,
 *   nodes: import('../recording/node-tracker.js').NodeTracker | null, logins: Logins | null, reconnect: (i: number) => void }} parts
 */
async function openPool (options, { engineWith, capacity, tracker, nodes, logins, reconnect }) {
  const sources = { addresses: options.sourceAddresses ?? [], slice: options.sourcePortSlice }
  const nodeEvents = nodes?.from.kind === 'header' ? { ...tracker.events, node: nodes.learn } : tracker.events
  const swarmEvents = logins === null ? nodeEvents : { ...nodeEvents, connectError: refusedLogsIn(tracker.events, logins, reconnect) }
  return createDestinationPool(await loadEngine(options.engine), engineWith, options.urls, capacity, swarmEvents, sources)
}

/**
 * The logins of a swarm's clients (--login, or a scenario's login hook); null without either.
 * The login code loads only then (a process without logins stays light).
 * @param {SimOptions} options
 * @param {{ identities: Identities, hook: import('../sessions/login.js').LoginHook | null, pool: () => EnginePool | null, capacity: number }} context
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
 * Every client is meant to be in its room (--rooms, --room) in every namespace it joins.
 * @param {Identities} identities
 * @param {Deliveries} deliveries
 * @param {number} clients
 */
function assignRooms (identities, deliveries, clients) {
  if (identities.roomOf(0) === null) return
  for (let i = 0; i < clients; i++) {
    const room = /** @type {string} */ (identities.roomOf(i))
    for (let k = 0; k < deliveries.namespaces.length; k++) deliveries.assignRoom(i, k, room)
  }
}
