/**
 * Connection state of every client of a swarm, and the counts a result needs: connected
 * now by transport, attempts, connect time, failures and disconnects by reason, reconnects,
 * and per-second deltas for the timeline. Implements the SwarmEvents an engine calls.
 *
 * With several namespaces (--namespace /a --namespace /b, multiplexed on one connection as
 * socket.io-client's Manager does) each namespace connects and drops on its own and is
 * counted on its own; the client counts as connected while every one of its namespaces is.
 */
import { createStormTracker } from '../recording/storms.js'
import { monotonicMs, wallMs } from '../../lib/measure/clock.js'
import { createHistogram, recordMs, summarize, encode, percentileCurve } from '../../lib/measure/histogram.js'
import { createReasonCounter } from '../../lib/reasons.js'
import { CLIENT_MODES, WIRE_NAMES, WIRE_NONE, perTransport, wireNumber } from '../../lib/transports.js'

/**
 * @typedef {import('../engines/types.js').Transport} Transport
 * @typedef {import('../engines/types.js').SwarmEvents} SwarmEvents
 */

/** The reason of a connect still unanswered at the end of a run (the engines' own word for a connect timeout, qualified). */
export const PENDING_AT_END = 'timeout (no answer by the end of the run)'
/** How long an attempt must have waited at the end to count: a younger one may just be in flight. */
const PENDING_AT_END_MS = 1000

/**
 * One namespace's clients as the result reports them.
 * @param {{ name: string, connected: number, connects: number, disconnects: ReturnType<typeof createReasonCounter>, refused: ReturnType<typeof createReasonCounter> }} n
 */
function namespaceRecord (n) {
  return { name: n.name, connected: n.connected, connects: n.connects, disconnects: n.disconnects.record(), refused: n.refused.record() }
}

/**
 * @param {object} options
 * @param {Transport[]} options.transports requested mode of each client (of every client the swarm may hold)
 * @param {number} [options.target] clients wanted (0 … target-1); default all of them (setTarget changes it)
 * @param {string[]} [options.namespaces] the namespaces each client joins (default: '/')
 * @param {(i: number, k: number, isConnected: boolean, reason?: string) => void} options.onConnectedChange client i's namespace k (index in namespaces) connected or dropped (and why)
 * @param {(i: number, k: number, event: string, args: unknown[]) => void} options.onMessage an event on client i's namespace k
 * @param {ReturnType<typeof createStormTracker>} [options.storms] the swarm's storm tracker (the recorder tells its gap of each receipt); default: one of its own
 * @param {number} [options.slowConnectMs] connects that take longer are counted apart, each second (--ramp-guard's `connect`); default: none
 */
export function createClientTracker ({
  transports, target = transports.length, namespaces = ['/'], onConnectedChange, onMessage, storms = createStormTracker(transports.length),
  slowConnectMs = Infinity
}) {
  const count = transports.length
  let wanted = target
  const nspIndex = new Map(namespaces.map((nsp, k) => [nsp, k]))
  /** Namespace k of client i is connected: bit k of up[i] (one namespace: the wire state says it). */
  const up = namespaces.length > 1 ? new Uint32Array(count) : null
  const allUp = 2 ** namespaces.length - 1
  const perNamespace = namespaces.map((name) => ({ name, connected: 0, connects: 0, disconnects: createReasonCounter(), refused: createReasonCounter() }))
  /** @param {string | undefined} nsp */
  const indexOf = (nsp) => (nsp === undefined ? 0 : nspIndex.get(nsp) ?? -1)
  const wire = new Uint8Array(count)
  const everConnected = new Uint8Array(count)
  const everUpgraded = new Uint8Array(count)
  const attemptStartMs = new Float64Array(count)
  /** Client i has a connection attempt under way: no answer yet (connected, refused, failed or dropped). */
  const pending = new Uint8Array(count)
  const connectTime = createHistogram()
  /** Attempt → Engine.IO open packet: how long the server took to accept a handshake (an avalanche's figure). */
  const acceptTime = createHistogram()
  /** TCP up → TLS ready, each TLS connection (https://, wss://): the part of the connect time that TLS costs. */
  const tlsTime = createHistogram()
  /** @type {Record<string, { target: number, connected: number, upgraded: number }>} */
  const byMode = {}
  /** Each mode's target: the modes of clients 0 … wanted-1. */
  function countTargets () {
    for (const mode of transports) (byMode[mode] ??= { target: 0, connected: 0, upgraded: 0 }).target = 0
    for (let i = 0; i < wanted; i++) byMode[transports[i]].target++
  }
  countTargets()
  // Reasons are the server's text: counted safely and bounded (lib/reasons.js).
  const disconnects = createReasonCounter()
  const errors = createReasonCounter()
  // Events that arrived but are not measured (--event), by name: bounded like reasons.
  const unmeasured = createReasonCounter()
  const totals = { connected: 0, everConnected: 0, attempts: 0, reconnects: 0, pending: 0 }
  /** Connected clients by wire transport: index = wire number. */
  const byWire = new Int32Array(WIRE_NAMES.length + 1)
  const window = { connects: 0, disconnects: 0, errors: 0, closed: 0 }
  /** Connects since the last tick that took longer than slowConnectMs (not a timeline figure: the ramp guard's). */
  let slowConnects = 0

  /**
   * @param {number} i
   * @param {number} delta +1 or -1
   */
  function countWire (i, delta) {
    byWire[wire[i]] += delta
  }

  /**
   * @param {number} i
   * @param {number} k
   * @param {string} reason
   */
  function namespaceDropped (i, k, reason) {
    perNamespace[k].connected--
    perNamespace[k].disconnects.add(reason)
    onConnectedChange(i, k, false, reason)
  }

  /** Wanted clients that never connected (a resized swarm: its closed clients are not wanted). */
  function neverConnected () {
    let n = 0
    for (let i = 0; i < wanted; i++) if (!everConnected[i]) n++
    return n
  }

  /**
   * Client i's attempt has its answer (or ended): no longer pending.
   * @param {number} i
   */
  function answered (i) {
    if (pending[i]) totals.pending--
    pending[i] = 0
  }

  /** Connected now by wire transport. */
  const connectedByTransport = () => perTransport((name) => byWire[wireNumber(name)])

  /** @type {SwarmEvents} */
  const events = {
    attempt (i) {
      totals.attempts++
      storms.attempt()
      attemptStartMs[i] = monotonicMs()
      if (!pending[i]) totals.pending++
      pending[i] = 1
    },
    connected (i, wireName, nsp, recovered) {
      const k = indexOf(nsp)
      if (k === -1) return
      if (up !== null) {
        if (up[i] & (1 << k)) return
        up[i] |= 1 << k
      } else if (wire[i] !== WIRE_NONE) return
      perNamespace[k].connected++
      perNamespace[k].connects++
      onConnectedChange(i, k, true)
      if (up !== null && up[i] !== allUp) return
      answered(i)
      const connectMs = monotonicMs() - attemptStartMs[i]
      recordMs(connectTime, connectMs)
      if (connectMs > slowConnectMs) slowConnects++
      wire[i] = wireNumber(wireName)
      countWire(i, 1)
      totals.connected++
      byMode[transports[i]].connected++
      storms.connected(i, recovered === true)
      window.connects++
      if (!everConnected[i]) {
        everConnected[i] = 1
        totals.everConnected++
      }
    },
    opened (i) {
      recordMs(acceptTime, monotonicMs() - attemptStartMs[i])
    },
    secured (tlsMs) {
      recordMs(tlsTime, tlsMs)
    },
    upgraded (i) {
      // The upgrade often completes before the namespace CONNECT is acknowledged; then the
      // client is counted on websocket when it connects, and only the upgrade is noted here.
      if (!everUpgraded[i]) {
        everUpgraded[i] = 1
        byMode[transports[i]].upgraded++
      }
      // To the last transport of its mode (upgrade: polling → websocket), once connected on another.
      const to = wireNumber(/** @type {string} */ (CLIENT_MODES[transports[i]].at(-1)))
      if (wire[i] === WIRE_NONE || wire[i] === to) return
      countWire(i, -1)
      wire[i] = to
      countWire(i, 1)
    },
    message (i, event, args, nsp) {
      const k = indexOf(nsp)
      if (k === -1) return
      onMessage(i, k, event, args)
    },
    unmeasured (i, event) {
      unmeasured.add(event)
    },
    disconnected (i, reason, nsp) {
      answered(i)
      const k = indexOf(nsp)
      if (k === -1) return
      if (up !== null) {
        if (!(up[i] & (1 << k))) return
        const wasUp = up[i] === allUp
        up[i] &= ~(1 << k)
        namespaceDropped(i, k, reason)
        // The client was connected while every namespace was: it drops with the first one.
        if (!wasUp) return
      } else if (wire[i] !== WIRE_NONE) {
        namespaceDropped(i, 0, reason)
      }
      disconnects.add(reason)
      window.disconnects++
      if (reason === 'io client disconnect') window.closed++
      if (wire[i] === WIRE_NONE) return
      // Closing on purpose (the swarm's own end) is no storm.
      if (reason !== 'io client disconnect') storms.dropped(i, reason, totals.connected)
      countWire(i, -1)
      wire[i] = WIRE_NONE
      totals.connected--
      byMode[transports[i]].connected--
    },
    connectError (i, reason, nsp) {
      answered(i)
      // A namespace refused (its middleware's error): counted for that namespace too.
      if (nsp !== undefined && indexOf(nsp) !== -1) perNamespace[indexOf(nsp)].refused.add(reason)
      errors.add(reason)
      storms.failed(reason)
      window.errors++
    },
    reconnected () {
      totals.reconnects++
    }
  }

  return {
    events,

    /**
     * The swarm was resized (simulator/swarm/resize.js): clients 0 … n-1 are wanted from now on.
     * @param {number} n
     */
    setTarget (n) {
      wanted = n
      countTargets()
    },

    /**
     * At the end of a run: each wanted client whose attempt has had no answer for
     * PENDING_AT_END_MS or more is counted as a connect error, PENDING_AT_END, as the
     * engine would have counted it at its own timeout (later than a short run's end).
     */
    endPending () {
      const now = monotonicMs()
      for (let i = 0; i < wanted; i++) {
        if (pending[i] && now - attemptStartMs[i] >= PENDING_AT_END_MS) events.connectError(i, PENDING_AT_END)
      }
    },

    /** Connected now, in total and by wire transport; connect attempts not answered yet (pending). */
    live () {
      return { connected: totals.connected, ...connectedByTransport(), errors: errors.total(), byMode, pending: totals.pending }
    },

    /**
     * The timeline point for the second that just ended (resets the per-second counts).
     * @param {number} messages distinct messages seen so far
     * @returns {import('../../lib/schema/result-schema.js').TimelinePoint}
     */
    tick (messages) {
      const point = {
        t: Math.round(wallMs()),
        connected: totals.connected,
        byTransport: connectedByTransport(),
        ...window,
        messages
      }
      window.connects = 0
      window.disconnects = 0
      window.errors = 0
      window.closed = 0
      return point
    },

    /**
     * The ramp guard's once-a-second look at connect times: connects over slowConnectMs since the
     * last call, and attempts still unanswered that have waited longer than it already (a server
     * whose accept queue is full answers none of them: they would be told only when they time out).
     * @returns {{ slow: number, waiting: number }}
     */
    takeSlowConnects () {
      const slow = slowConnects
      slowConnects = 0
      let waiting = 0
      if (totals.pending > 0 && slowConnectMs !== Infinity) {
        // Once a second, a pass over the clients (100,000: a fraction of a millisecond).
        const before = monotonicMs() - slowConnectMs
        for (let i = 0; i < count; i++) if (pending[i] && attemptStartMs[i] < before) waiting++
      }
      return { slow, waiting }
    },

    /** @returns {import('../../lib/schema/result-schema.js').ClientCounts} */
    counts () {
      return {
        target: wanted,
        connected: totals.connected,
        failed: wanted === count ? count - totals.everConnected : neverConnected(),
        everConnected: totals.everConnected,
        byTransport: structuredClone(byMode),
        attempts: totals.attempts,
        reconnects: totals.reconnects,
        disconnects: disconnects.record(),
        errors: errors.record(),
        unmeasuredEvents: unmeasured.record(),
        ...(namespaces.length > 1 || namespaces[0] !== '/' ? { namespaces: perNamespace.map(namespaceRecord) } : {}),
        storms: storms.record(),
        connectTime: { ...summarize(connectTime), histogram: encode(connectTime), curve: percentileCurve(connectTime) },
        ...(acceptTime.totalCount > 0 ? { acceptTime: { ...summarize(acceptTime), histogram: encode(acceptTime) } } : {}),
        ...(tlsTime.totalCount > 0 ? { tlsTime: { ...summarize(tlsTime), histogram: encode(tlsTime) } } : {})
      }
    }
  }
}
