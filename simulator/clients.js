/**
 * Connection state of every client of a swarm, and the counts a result needs: connected
 * now by transport, attempts, connect time, failures and disconnects by reason, reconnects,
 * and per-second deltas for the timeline. Implements the SwarmEvents an engine calls.
 */
import { createStormTracker } from './storms.js'
import { monotonicMs, wallMs } from '../lib/clock.js'
import { createHistogram, recordMs, summarize, encode, percentileCurve } from '../lib/histogram.js'
import { createReasonCounter } from '../lib/reasons.js'
import { CLIENT_MODES, WIRE_NAMES, perTransport, wireOf } from '../lib/transports.js'

/**
 * @typedef {import('./engines/types.js').Transport} Transport
 * @typedef {import('./engines/types.js').SwarmEvents} SwarmEvents
 */

/** A client's wire transport: 0 = not connected, else 1 + its index in WIRE_NAMES. */
const WIRE_NONE = 0
/** @param {string} name */
const wireNumber = (name) => WIRE_NAMES.indexOf(wireOf(name)) + 1

/**
 * @param {object} options
 * @param {Transport[]} options.transports requested mode of each client
 * @param {(i: number, isConnected: boolean) => void} options.onConnectedChange
 * @param {(i: number, event: string, args: unknown[]) => void} options.onMessage
 */
export function createClientTracker ({ transports, onConnectedChange, onMessage }) {
  const count = transports.length
  const wire = new Uint8Array(count)
  const everConnected = new Uint8Array(count)
  const everUpgraded = new Uint8Array(count)
  const attemptStartMs = new Float64Array(count)
  const connectTime = createHistogram()
  /** @type {Record<string, { target: number, connected: number, upgraded: number }>} */
  const byMode = {}
  for (const mode of transports) (byMode[mode] ??= { target: 0, connected: 0, upgraded: 0 }).target++
  // Reasons are the server's text: counted safely and bounded (lib/reasons.js).
  const disconnects = createReasonCounter()
  const errors = createReasonCounter()
  // Events that arrived but are not measured (--event), by name: bounded like reasons.
  const unmeasured = createReasonCounter()
  const totals = { connected: 0, everConnected: 0, attempts: 0, reconnects: 0 }
  /** Connected clients by wire transport: index = wire number. */
  const byWire = new Int32Array(WIRE_NAMES.length + 1)
  const window = { connects: 0, disconnects: 0, errors: 0 }
  const storms = createStormTracker(count)

  /**
   * @param {number} i
   * @param {number} delta +1 or -1
   */
  function countWire (i, delta) {
    byWire[wire[i]] += delta
  }

  /** Connected now by wire transport. */
  const connectedByTransport = () => perTransport((name) => byWire[WIRE_NAMES.indexOf(name) + 1])

  /** @type {SwarmEvents} */
  const events = {
    attempt (i) {
      totals.attempts++
      storms.attempt()
      attemptStartMs[i] = monotonicMs()
    },
    connected (i, wireName) {
      if (wire[i] !== WIRE_NONE) return
      recordMs(connectTime, monotonicMs() - attemptStartMs[i])
      wire[i] = wireNumber(wireName)
      countWire(i, 1)
      totals.connected++
      byMode[transports[i]].connected++
      storms.connected(i)
      window.connects++
      if (!everConnected[i]) {
        everConnected[i] = 1
        totals.everConnected++
      }
      onConnectedChange(i, true)
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
    message (i, event, args) {
      onMessage(i, event, args)
    },
    unmeasured (i, event) {
      unmeasured.add(event)
    },
    disconnected (i, reason) {
      disconnects.add(reason)
      window.disconnects++
      if (wire[i] === WIRE_NONE) return
      // Closing on purpose (the swarm's own end) is no storm.
      if (reason !== 'io client disconnect') storms.dropped(i, reason, totals.connected)
      countWire(i, -1)
      wire[i] = WIRE_NONE
      totals.connected--
      byMode[transports[i]].connected--
      onConnectedChange(i, false)
    },
    connectError (i, reason) {
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

    /** Connected now, in total and by wire transport. */
    live () {
      return { connected: totals.connected, ...connectedByTransport(), errors: errors.total(), byMode }
    },

    /**
     * The timeline point for the second that just ended (resets the per-second counts).
     * @param {number} messages distinct messages seen so far
     * @returns {import('../lib/schema.js').TimelinePoint}
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
      return point
    },

    /** @returns {import('../lib/schema.js').ClientCounts} */
    counts () {
      return {
        target: count,
        connected: totals.connected,
        failed: count - totals.everConnected,
        everConnected: totals.everConnected,
        byTransport: structuredClone(byMode),
        attempts: totals.attempts,
        reconnects: totals.reconnects,
        disconnects: disconnects.record(),
        errors: errors.record(),
        unmeasuredEvents: unmeasured.record(),
        storms: storms.record(),
        connectTime: { ...summarize(connectTime), histogram: encode(connectTime), curve: percentileCurve(connectTime) }
      }
    }
  }
}
