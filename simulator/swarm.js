/**
 * runSwarm: opens N clients against a server, spread over the ramp, records every broadcast
 * they receive, samples itself every second, and resolves with a JSON-serialisable
 * SimResult when the duration ends or the signal aborts. It never prints or exits.
 */
import { randomUUID } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'
import { monotonicMs, wallMs } from '../lib/clock.js'
import { hostFacts } from '../lib/host.js'
import { assignTransports, formatTransportMix } from '../lib/options.js'
import { createProcessSampler, isSaturated } from '../lib/process-sampler.js'
import { DEFAULT_PING_INTERVAL_MS } from '../lib/protocol.js'
import { SCHEMA_VERSION } from '../lib/schema.js'
import { VERSION } from '../lib/version.js'
import { createClientTracker } from './clients.js'
import { createDestinationPool } from './destinations.js'
import { engines } from './engines/index.js'
import { diagnoseConnect } from './diagnose.js'
import { probeHandshake } from './handshake.js'
import { normalizeSimOptions } from './options.js'
import { checkPreflight, pollingShareOf, readLimits, upgradeShareOf } from './preflight.js'
import { identify, messageFields } from './recorder.js'
import { createDeliveries } from './deliveries.js'
import { createBehaviours } from './behaviours.js'
import { createHookRunner, loadScenario } from './scenario.js'
import { createChurn } from './churn.js'
import { compileIdentities } from './identity.js'
import { webSocketServerInfo } from './websocket-options.js'
import { createSizer } from './resize.js'
import { createNodeTracker } from './nodes.js'
import { fieldGetter } from '../lib/fields.js'

/**
 * @typedef {import('../lib/schema.js').SimResult} SimResult
 * @typedef {import('../lib/schema.js').MessageReport} MessageReport
 * @typedef {import('../lib/schema.js').TimelinePoint} TimelinePoint
 * @typedef {import('../lib/process-sampler.js').ProcessSample} ProcessSample
 * @typedef {import('../lib/schema.js').ClockInfo} ClockInfo
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
 * @property {(info: { id: string, rampMs: number, handshake: SimResult['server'], preflight: import('./preflight.js').Preflight }) => void} [onStart]
 * @property {(progress: Progress) => void} [onProgress] once a second
 * @property {(report: MessageReport) => void} [onMessage] when a message closes
 * @property {(sample: { timeline: TimelinePoint, health: ProcessSample }) => void} [onSample] once a second
 * @property {() => ClockInfo} [clock] the current clock offset to the run's reference
 * @property {(pool: import('./engines/types.js').EnginePool) => void} [onPool] access to the clients (tests, fault injection)
 * @property {import('./preflight.js').Limits} [limits] the machine's limits for the preflight (default: read from /proc)
 * @property {(resize: import('./resize.js').Resize) => void} [onResizable] once: the swarm's resize function (up to options.maxClients; `ioswarm capacity`)
 */

/** Most one-second samples kept in a result (a day); older ones are still reported live. */
const MAX_SAMPLES = 86400

/**
 * @param {Record<string, unknown>} input simulator options (see simulator/options.js)
 * @param {SwarmHooks} [hooks]
 * @returns {Promise<SimResult>}
 */
export async function runSwarm (input, hooks = {}) {
  return startSwarm(normalizeSimOptions(input), hooks)
}

/**
 * runSwarm on options already normalised (by normalizeSimOptions, in this process or in the
 * parent that sent them over IPC).
 * @param {import('./options.js').SimOptions} options
 * @param {SwarmHooks} [hooks]
 * @returns {Promise<SimResult>}
 */
export async function startSwarm (options, hooks = {}) {
  const { signal } = hooks
  // Before any socket (the handshake probe included): a run that cannot fit stops here.
  const preflight = checkPreflight({
    clients: options.clients, processes: 1, destinations: options.urls.length, sourceAddresses: options.sourceAddresses?.length || 1, engine: options.engine, pollingShare: pollingShareOf(options.transport), upgradeShare: upgradeShareOf(options.transport)
  }, hooks.limits ?? readLimits())
  const clock = hooks.clock ?? (() => ({ offsetMs: 0, uncertaintyMs: 0, reference: 'local' }))
  const id = options.id ?? `sim-${randomUUID().slice(0, 8)}`
  const startedAt = wallMs()
  const identities = compileIdentities(options, { simId: id })
  const scenarioHooks = options.scenario ? await loadScenario(options.scenario) : null
  // Room for the most clients it may be resized to (simulator/resize.js); only --clients open now.
  const capacity = Math.max(options.clients, options.maxClients ?? 0)
  const sized = capacity === options.clients ? options : { ...options, clients: capacity }
  const transports = assignTransports(options.transport, capacity)
  const namespaces = options.namespaces ?? [options.namespace]
  const nodes = options.nodeFrom ? createNodeTracker({ from: options.nodeFrom, clients: capacity }) : null
  const recorder = createDeliveries({
    nodes,
    namespaces,
    clients: capacity,
    messageTimeoutMs: options.messageTimeoutMs,
    maxOpen: options.maxOpenMessages,
    keepClosed: options.keepMessages,
    clockOffsetMs: () => clock().offsetMs,
    fields: messageFields(options),
    onClose: (report) => hooks.onMessage?.(report)
  })
  assignRooms(identities, recorder, capacity)
  /** @type {import('./engines/types.js').EnginePool | null} */
  let pool = null
  const usePool = () => /** @type {import('./engines/types.js').EnginePool} */ (pool)
  const behaviours = createBehaviours({ options: sized, identities, deliveries: recorder, pool: usePool })
  const hookRunner = scenarioHooks ? createHookRunner({ hooks: scenarioHooks, options: sized, identities, deliveries: recorder, pool: usePool, simId: id }) : null
  // Rendered at each attempt only when some client's handshake carries something of its own.
  const identity = hookRunner?.identity ?? (options.auth || options.queryTemplate || options.headers?.length || options.sendOnOpen ? identities.of : undefined)
  const server = options.protocol === 'websocket' ? webSocketServerInfo(options) : await readServer(options, identity ? identity(0) : identities.of(0))
  // A relayed emit (a chat line) is measured like a broadcast.
  const measured = behaviours.emitEvent === null || options.events.includes('*') || options.events.includes(behaviours.emitEvent) ? options.events : [...options.events, behaviours.emitEvent]
  const tracker = createClientTracker({
    transports,
    target: options.clients,
    namespaces,
    onConnectedChange: (i, k, isUp, reason) => {
      // A client's node is its connection's: the first namespace's connect and drop say when it starts and ends.
      if (nodes !== null && k === 0) isUp ? nodes.connected(i) : nodes.disconnected(i)
      recorder.setConnected(i, k, isUp)
      behaviours.onNamespace(i, k, isUp)
      hookRunner?.onNamespace(i, k, isUp, reason)
    },
    onMessage: routeNodeEvent(nodes, hookRunner?.wantsEvents ? routeToHooks(measured, recorder, hookRunner) : recorder.receive),
    messageKey: stormMessageKey(messageFields(options), () => clock().offsetMs)
  })
  // onEvent sees every event; the recorder still measures only the measured ones.
  const nodeEvent = nodes?.from.kind === 'event' ? nodes.from.name : null
  const events = hookRunner?.wantsEvents ? ['*'] : nodeEvent === null || measured.includes('*') || measured.includes(nodeEvent) ? measured : [...measured, nodeEvent]
  const clientPool = pool = createDestinationPool(engines[options.engine], {
    path: options.path, namespace: options.namespace, namespaces, events, keepAlive: options.keepAlive, reconnect: options.reconnect, reconnectOnServerDisconnect: /** @type {any} */ (options).reconnectOnServerDisconnect === true, backoff: spreadBackoff(options.reconnectSpreadMs), parser: options.parser, maxPayloadBytes: options.maxPayloadBytes, wsClient: options.wsClient ?? undefined, eio: server.eio ?? undefined, query: options.query, identity, subprotocols: options.subprotocols, match: options.match
  }, options.urls, capacity, tracker.events, { addresses: options.sourceAddresses ?? [], slice: options.sourcePortSlice })
  hooks.onPool?.(clientPool)
  hooks.onStart?.({ id, rampMs: server.rampMs, handshake: server, preflight })

  const sampler = createProcessSampler()
  /** @type {TimelinePoint[]} */
  const timeline = []
  /** @type {ProcessSample[]} */
  const health = []
  let phase = /** @type {'ramping' | 'running'} */ ('ramping')
  const churn = options.sessionLifetime ? createChurn(options.sessionLifetime, { reopen: (i) => { clientPool.disconnect(i); clientPool.connect(i, transports[i]) } }) : null
  const sizer = createSizer({
    clients: options.clients,
    capacity,
    rampMs: server.rampMs,
    start: (i) => {
      clientPool.connect(i, transports[i])
      churn?.started(i)
    },
    stop: (i) => clientPool.disconnect(i),
    onTarget: tracker.setTarget
  })
  sizer.done.then(() => { phase = 'running' })
  hooks.onResizable?.(sizer.resize)

  const sampleOnce = () => {
    recorder.sweep()
    const stats = recorder.stats()
    const point = tracker.tick(stats.messages)
    if (nodes !== null) point.byNode = nodes.byNode()
    const sample = sampler.sample()
    if (timeline.length < MAX_SAMPLES) {
      timeline.push(point)
      health.push(sample)
    }
    hooks.onSample?.({ timeline: point, health: sample })
    const live = tracker.live()
    hooks.onProgress?.({
      phase,
      elapsedMs: wallMs() - startedAt,
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

  await waitForEnd(signal, options.durationMs)
  sizer.stop()
  churn?.stop()
  behaviours.stop()
  hookRunner?.stop()
  // Clients that emit stop with lines in flight: their acks and the copies the server relays
  // would count as failed and missing. Wait for them (bounded) before closing.
  if (behaviours.emitEvent !== null || hookRunner !== null) {
    await drainEmits(() => behaviours.pendingAcks() === 0 && (hookRunner?.pendingAcks() ?? 0) === 0 && recorder.undelivered() === 0)
  }
  clearInterval(ticker)
  sampleOnce()
  sampler.stop()
  recorder.closeAll()
  const clients = tracker.counts()
  // Before the clients close: their own close is no drop of a node.
  const nodeReport = nodes?.record()
  const destinations = clientPool.destinations()
  const sourceAddresses = clientPool.sourceAddresses()
  await clientPool.close()
  const scenario = behaviours.record() ?? (hookRunner ? {} : null)
  if (scenario && hookRunner) scenario.hooks = hookRunner.record()

  return {
    schemaVersion: SCHEMA_VERSION,
    kind: 'simulator',
    id,
    tool: { name: 'ioswarm', version: VERSION },
    host: hostFacts(),
    pid: process.pid,
    startedAt: Math.round(startedAt),
    endedAt: Math.round(wallMs()),
    options: { ...options, transport: formatTransportMix(options.transport) },
    engine: options.engine,
    agent: clientPool.agent(),
    server,
    clock: clock(),
    clients,
    destinations,
    ...(sourceAddresses.length > 0 ? { sourceAddresses } : {}),
    preflight,
    messages: recorder.reports(),
    messageRollups: recorder.rollups(),
    recorder: recorder.info(),
    health: { samples: health, summary: summarizeHealth(health) },
    timeline,
    ...(scenario ? { scenario } : {}),
    ...(nodeReport ? { nodes: nodeReport } : {}),
    ...(churn && options.sessionLifetime ? { churn: churnSummary(options.sessionLifetime, churn.closed(), wallMs() - startedAt) } : {})
  }
}

/**
 * Reconnection delays for --reconnect-spread: socket.io-client's formula with reconnectionDelay
 * half the window and randomizationFactor 1 (the first attempt waits 0 … the window), the max
 * the window (at least socket.io-client's 5 s). Undefined: its defaults.
 * @param {number | null | undefined} spreadMs
 */
function spreadBackoff (spreadMs) {
  return spreadMs ? { minMs: spreadMs / 2, maxMs: Math.max(5000, spreadMs), jitter: 1 } : undefined
}

/**
 * A message's identity and send time on this process's wall clock, for the storms' gap
 * (called only while a storm is followed).
 * @param {import('./recorder.js').MessageFields} fields
 * @param {() => number} offsetMs the reference clock minus this one
 * @returns {(event: string, args: unknown[]) => { key: string, sentAt: number | null }}
 */
function stormMessageKey (fields, offsetMs) {
  return (event, args) => {
    const { id, batch, sentAt } = identify(args, fields)
    return { key: `${event}:${batch ?? ''}/${id}`, sentAt: sentAt === null ? null : sentAt - offsetMs() }
  }
}

/**
 * With --node-from event:NAME[.path], the app's event naming a client's node goes to the node
 * tracker, never to the recorder (it is no broadcast); every other event goes on.
 * @param {import('./nodes.js').NodeTracker | null} nodes
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
 * @param {NonNullable<ReturnType<typeof createHookRunner>>} hooks
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
 * Every client is meant to be in its room (--rooms, --room) in every namespace it joins.
 * @param {import('./identity.js').Identities} identities
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
 * @param {{ minMs: number, maxMs: number }} lifetime
 * @param {number} closed sessions closed at the end of their lifetime
 * @param {number} elapsedMs
 */
function churnSummary (lifetime, closed, elapsedMs) {
  return { lifetimeMs: lifetime, sessionsClosed: closed, perSecond: Math.round(closed / Math.max(1, elapsedMs / 1000) * 100) / 100 }
}

/**
 * The server's heartbeat, from its handshake, and the ramp that follows from it.
 * @param {import('./options.js').SimOptions} options
 * @param {import('./identity.js').ClientIdentity} first the first client's identity: what it sends, the probes send
 * @returns {Promise<SimResult['server']>}
 */
async function readServer (options, first) {
  const forced = /** @type {3 | 4 | null} */ (/** @type {any} */ (options).eio ?? null)
  try {
    const query = { ...options.query, ...first.query }
    const handshake = await probeHandshake({ url: options.url, path: options.path, query, headers: first.headers })
    const eio = forced ?? handshake.eio
    const { problem } = await diagnoseConnect({ url: options.url, path: options.path, query, headers: first.headers, auth: first.auth, namespace: options.namespace, parser: options.parser, eio })
    // Socket.IO v2 has no CONNECT payload: an auth given for it would silently go nowhere.
    const noAuth = eio === 3 && first.auth !== undefined ? `${NO_AUTH_IN_V2}${problem ? `; ${problem}` : ''}` : null
    return {
      diagnosis: noAuth ?? problem,
      pingIntervalMs: handshake.pingIntervalMs,
      pingTimeoutMs: handshake.pingTimeoutMs,
      rampMs: options.rampMs ?? handshake.pingIntervalMs,
      rampSource: options.rampMs === null ? 'handshake pingInterval' : '--ramp',
      handshakeError: null,
      eio,
      eioSource: forced === null ? 'handshake' : '--eio',
      protocol: protocolName(eio)
    }
  } catch (error) {
    const eio = forced ?? 4
    return {
      pingIntervalMs: null,
      pingTimeoutMs: null,
      rampMs: options.rampMs ?? DEFAULT_PING_INTERVAL_MS,
      rampSource: options.rampMs === null ? 'default pingInterval (handshake failed)' : '--ramp',
      handshakeError: /** @type {Error} */ (error).message,
      diagnosis: null,
      eio,
      eioSource: forced === null ? 'default (handshake failed)' : '--eio',
      protocol: protocolName(eio)
    }
  }
}

/** The first contact's word when an identity has `auth` and the server speaks Socket.IO v2. */
export const NO_AUTH_IN_V2 = 'the server speaks Socket.IO v2 (socket.io 2.x), which has no handshake auth: --auth (or a scenario\'s identity().auth) is not sent; carry the token with --query or --header'

/**
 * @param {3 | 4} eio
 */
function protocolName (eio) {
  return eio === 3 ? 'Engine.IO v3 / Socket.IO v2 (socket.io 2.x)' : 'Engine.IO v4 / Socket.IO v5 (socket.io 3.x, 4.x)'
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

/** Longest wait at the end of a run for the emits still in flight (acks, relayed copies). */
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

/**
 * @param {ProcessSample[]} samples
 * @returns {import('../lib/schema.js').HealthSummary}
 */
export function summarizeHealth (samples) {
  const max = (/** @type {(s: ProcessSample) => number} */ pick) => samples.reduce((m, s) => Math.max(m, pick(s)), 0)
  return {
    loopDelayP99MaxMs: max((s) => s.loopDelayP99Ms),
    cpuPctMax: max((s) => s.cpuPct),
    eluMax: max((s) => s.elu),
    rssMaxBytes: max((s) => s.rssBytes),
    saturatedSeconds: samples.filter(isSaturated).length
  }
}
