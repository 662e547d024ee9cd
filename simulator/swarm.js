/**
 * runSwarm: opens N clients against a server, spread over the ramp, records every broadcast
 * they receive, samples itself every second, and resolves with a JSON-serialisable
 * SimResult when the duration ends or the signal aborts. It never prints or exits.
 */
import { randomUUID } from 'node:crypto'
import { wallMs } from '../lib/clock.js'
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
import { startRamp } from './ramp.js'
import { createRecorder } from './recorder.js'
import { createChurn } from './churn.js'

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
    clients: options.clients, processes: 1, destinations: options.urls.length, engine: options.engine, pollingShare: pollingShareOf(options.transport), upgradeShare: upgradeShareOf(options.transport)
  }, hooks.limits ?? readLimits())
  const clock = hooks.clock ?? (() => ({ offsetMs: 0, uncertaintyMs: 0, reference: 'local' }))
  const id = options.id ?? `sim-${randomUUID().slice(0, 8)}`
  const startedAt = wallMs()
  const server = await readServer(options)
  const transports = assignTransports(options.transport, options.clients)
  const recorder = createRecorder({
    clients: options.clients,
    messageTimeoutMs: options.messageTimeoutMs,
    maxOpen: options.maxOpenMessages,
    keepClosed: options.keepMessages,
    clockOffsetMs: () => clock().offsetMs,
    onClose: (report) => hooks.onMessage?.(report)
  })
  const tracker = createClientTracker({ transports, onConnectedChange: recorder.setConnected, onMessage: recorder.receive })
  const pool = createDestinationPool(engines[options.engine], {
    path: options.path, namespace: options.namespace, events: options.events, keepAlive: options.keepAlive, reconnect: options.reconnect, reconnectOnServerDisconnect: /** @type {any} */ (options).reconnectOnServerDisconnect === true, parser: options.parser, maxPayloadBytes: options.maxPayloadBytes, wsClient: options.wsClient ?? undefined, eio: server.eio, query: options.query
  }, options.urls, options.clients, tracker.events)
  hooks.onPool?.(pool)
  hooks.onStart?.({ id, rampMs: server.rampMs, handshake: server, preflight })

  const sampler = createProcessSampler()
  /** @type {TimelinePoint[]} */
  const timeline = []
  /** @type {ProcessSample[]} */
  const health = []
  let phase = /** @type {'ramping' | 'running'} */ ('ramping')
  const churn = options.sessionLifetime ? createChurn(options.sessionLifetime, { reopen: (i) => { pool.disconnect(i); pool.connect(i, transports[i]) } }) : null
  const ramp = startRamp({
    count: options.clients,
    rampMs: server.rampMs,
    onStart: (i) => {
      pool.connect(i, transports[i])
      churn?.started(i)
    }
  })
  ramp.done.then(() => { phase = 'running' })

  const sampleOnce = () => {
    recorder.sweep()
    const stats = recorder.stats()
    const point = tracker.tick(stats.messages)
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
      target: options.clients,
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
  ramp.stop()
  churn?.stop()
  clearInterval(ticker)
  sampleOnce()
  sampler.stop()
  recorder.closeAll()
  const clients = tracker.counts()
  const destinations = pool.destinations()
  await pool.close()

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
    agent: pool.agent(),
    server,
    clock: clock(),
    clients,
    destinations,
    preflight,
    messages: recorder.reports(),
    messageRollups: recorder.rollups(),
    recorder: recorder.info(),
    health: { samples: health, summary: summarizeHealth(health) },
    timeline,
    ...(churn && options.sessionLifetime ? { churn: churnSummary(options.sessionLifetime, churn.closed(), wallMs() - startedAt) } : {})
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
 * @returns {Promise<SimResult['server']>}
 */
async function readServer (options) {
  const forced = /** @type {3 | 4 | null} */ (/** @type {any} */ (options).eio ?? null)
  try {
    const handshake = await probeHandshake({ url: options.url, path: options.path, query: options.query })
    const eio = forced ?? handshake.eio
    const { problem } = await diagnoseConnect({ url: options.url, path: options.path, query: options.query, namespace: options.namespace, parser: options.parser, eio })
    return {
      diagnosis: problem,
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
