/**
 * A swarm whose size changes while it runs (`ioswarm capacity`): clients 0 … target-1 are
 * wanted. The swarm's per-client state (tracker, recorder bit sets, storms) is allocated once
 * for `capacity` clients, the most it may be asked for; growing starts the new clients spread
 * over a ramp (the connected ones stay), shrinking closes the highest-indexed ones on purpose
 * (reason 'io client disconnect', which is no storm), so a client index always means the same
 * transport and destination.
 */
import { invalidOption } from '../../lib/errors.js'
import { startRamp } from './ramp.js'

/**
 * @typedef {(clients: number, rampMs?: number) => void} Resize grow or shrink to `clients`;
 *   new clients are spread over `rampMs` (default: the swarm's ramp)
 * @typedef {(clients: number | undefined, rampMs?: number, emitIntervalMs?: number) => void} SwarmResize a Resize that may also
 *   set each emitter's mean interval from now on (`ioswarm capacity --vary emit-rate`, a run's emit-rate action), as a step of --phases
 *   does; clients undefined: the size stays
 */

/**
 * @param {object} spec
 * @param {number} spec.clients clients wanted at the start
 * @param {number} spec.capacity most clients it may be resized to (what its arrays hold)
 * @param {number} spec.rampMs the swarm's ramp: the first clients, and later ones unless told
 * @param {(i: number) => void} spec.start open client i
 * @param {(i: number) => void} spec.stop close client i on purpose
 * @param {(target: number) => void} [spec.onTarget] the wanted count changed
 */
export function createSizer ({ clients, capacity, rampMs, start, stop, onTarget }) {
  let target = clients
  /** Clients 0 … started-1 have been opened (and not closed since). */
  let started = 0
  /** @type {ReturnType<typeof startRamp> | null} */
  let ramp = null
  /** Held by --ramp-guard: a ramp started meanwhile (a resize) waits too. */
  let held = false

  /**
   * Opens clients started … to-1 over `windowMs`.
   * @param {number} to
   * @param {number} windowMs
   */
  function grow (to, windowMs) {
    ramp?.stop()
    const from = started
    ramp = startRamp({
      count: to - from,
      rampMs: windowMs,
      onStart: (k) => {
        started = from + k + 1
        start(from + k)
      }
    })
    if (held) ramp.hold(true)
    return ramp.done
  }

  const done = grow(clients, rampMs)

  return {
    /** Resolves when the first ramp has started every client (or was stopped). */
    done,

    /** The clients wanted now. */
    target: () => target,

    /** Clients opened and not closed since (fewer than the target while a ramp is opening them). */
    started: () => started,

    /** @type {Resize} */
    resize (count, windowMs = rampMs) {
      if (!Number.isInteger(count) || count < 0 || count > capacity) {
        throw invalidOption('clients', `of a resize must be a whole number from 0 to the swarm's capacity ${capacity}, got ${JSON.stringify(count)}`)
      }
      target = count
      onTarget?.(count)
      if (count > started) {
        grow(count, windowMs)
        return
      }
      // Shrinking (or staying): no client past the target may still be started by a ramp.
      ramp?.stop()
      for (let i = started - 1; i >= count; i--) stop(i)
      started = count
    },

    /**
     * Holds the ramp (--ramp-guard) or lets it go on; clients already started are left alone.
     * @param {boolean} on
     */
    hold (on) {
      held = on
      ramp?.hold(on)
    },

    /** Starts no more clients (the swarm is ending). */
    stop () {
      ramp?.stop()
    }
  }
}
