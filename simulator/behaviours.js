/**
 * What clients do besides listening, on either engine through EnginePool.emit: join their
 * rooms after each namespace connect (--join, waiting for the ack), and emit at a rate
 * (--emit, --emit-rate, --emitters) with the round trip emit → ack timed (--emit-ack). Fed by
 * the tracker's namespace connect/drop events; a dropped namespace stops its client's emits
 * and takes it out of its rooms until it joins again.
 */
import { wallMs } from '../lib/clock.js'
import { fieldSetter } from '../lib/fields.js'
import { createHistogram, encode, recordMs, summarize } from '../lib/histogram.js'
import { createReasonCounter } from '../lib/reasons.js'
import { compileEventTemplate } from '../lib/template.js'
import { monotonicMs } from '../lib/clock.js'
import { pickEmitters } from './partition.js'

/** Placeholders an emit's template has besides a client's own. */
export const EMIT_PLACEHOLDERS = Object.freeze(['id', 'sentAt', 'seq'])

/**
 * Whether a join's ack says no: its first argument is an object with `ok: false` or an `error`.
 * @param {unknown[]} args
 */
function refusedBy (args) {
  const first = /** @type {{ ok?: unknown, error?: unknown } | null} */ (args[0])
  if (first === null || typeof first !== 'object') return null
  if (first.error !== undefined && first.error !== null) return String(typeof first.error === 'object' ? JSON.stringify(first.error) : first.error)
  return first.ok === false ? 'ok: false' : null
}

/** @param {Error} error */
const isTimeout = (error) => /timed out|timeout/i.test(error.message)

/**
 * The --join and --emit templates, checked (a usage error names the flag) and compiled.
 * @param {{ join?: string | null, emit?: string | null }} options
 * @param {import('./identity.js').Identities} identities
 */
export function compileBehaviours (options, identities) {
  return {
    join: options.join ? compileEventTemplate(options.join, identities.rules('--join')) : null,
    emit: options.emit ? compileEventTemplate(options.emit, identities.rules('--emit', EMIT_PLACEHOLDERS)) : null
  }
}

/**
 * @param {object} context
 * @param {import('./options.js').SimOptions} context.options
 * @param {import('./identity.js').Identities} context.identities
 * @param {ReturnType<typeof import('./deliveries.js').createDeliveries>} context.deliveries
 * @param {() => import('./engines/types.js').EnginePool} context.pool
 */
export function createBehaviours ({ options, identities, deliveries, pool }) {
  const namespaces = deliveries.namespaces
  const { join, emit } = compileBehaviours(options, identities)
  const stampId = emit?.payload ? !emit.payload.placeholders.includes('id') : false
  const stampSentAt = emit?.payload ? !emit.payload.placeholders.includes('sentAt') : false
  // The hot path (every emit) compiles what it can once: the stamping setters, and whether the
  // template needs the client's own placeholders (building them costs a closure and its room).
  const setId = fieldSetter(options.idField)
  const setSentAt = fieldSetter(options.sentAtField)
  const usesOwn = emit?.payload ? emit.payload.placeholders.some((p) => !EMIT_PLACEHOLDERS.includes(p)) : false
  /** A namespace session of client i: bumped at each connect and drop, so late callbacks bow out. */
  const sessions = namespaces.map(() => new Uint32Array(options.clients))
  /** @type {(NodeJS.Timeout | undefined)[]} */
  const timers = []
  const seqs = new Uint32Array(options.clients)
  const emitters = pickEmitters(options.clients, options.clientOffset, options.emitters)
  const joins = { sent: 0, acked: 0, unacked: 0, failed: 0, reasons: createReasonCounter(), time: createHistogram() }
  const emits = { sent: 0, acked: 0, timedOut: 0, failed: 0, reasons: createReasonCounter(), ackTime: createHistogram() }
  /** Emits sent that wait for their ack (the run's end waits for them, bounded). */
  let pendingAcks = 0
  let stopped = false

  /** @param {number} i */
  const isEmitter = (i) => emitters[i] === 1

  /**
   * Client i's namespace k is in its rooms now (or no longer).
   * @param {number} i
   * @param {number} k
   */
  function enterRooms (i, k) {
    for (const room of deliveries.roomsOf(i, k)) deliveries.setJoined(i, k, room, true)
  }

  /**
   * @param {number} i
   * @param {number} k
   */
  function sendJoin (i, k) {
    const tpl = /** @type {NonNullable<typeof join>} */ (join)
    const session = sessions[k][i]
    const startMs = monotonicMs()
    const args = tpl.payload ? [tpl.payload.render(identities.lookupOf(i))] : []
    const sent = pool().emit(i, namespaces[k], tpl.event, args, (error, answer) => {
      if (sessions[k][i] !== session) return // the namespace dropped meanwhile
      const refusal = error ? null : refusedBy(answer)
      if (error && !isTimeout(error)) {
        joins.failed++
        joins.reasons.add(error.message)
        return
      }
      if (refusal !== null) {
        joins.failed++
        joins.reasons.add(refusal)
        return
      }
      // No ack within the timeout: a server that does not ack; in its room since the emit.
      if (error) joins.unacked++
      else {
        joins.acked++
        recordMs(joins.time, monotonicMs() - startMs)
      }
      enterRooms(i, k)
      if (k === 0) startEmitting(i)
    }, options.ackTimeoutMs)
    if (sent) joins.sent++
  }

  /** @param {number} i */
  function startEmitting (i) {
    if (emit === null || stopped || timers[i] !== undefined || !isEmitter(i)) return
    // Fixed timing starts each client at a random point of its interval, so they do not beat together.
    const first = options.emitTiming === 'fixed' ? Math.random() * options.emitIntervalMs : nextGapMs()
    timers[i] = setTimeout(() => fire(i, sessions[0][i]), first)
  }

  /** A gap of the chosen timing: exponential (Poisson arrivals) or the fixed interval. */
  function nextGapMs () {
    return options.emitTiming === 'fixed' ? options.emitIntervalMs : -Math.log(1 - Math.random()) * options.emitIntervalMs
  }

  /**
   * @param {number} i
   * @param {number} session
   */
  function fire (i, session) {
    timers[i] = undefined
    if (stopped || sessions[0][i] !== session) return
    send(i)
    timers[i] = setTimeout(() => fire(i, session), nextGapMs())
  }

  /** @param {number} i */
  function send (i) {
    const tpl = /** @type {NonNullable<typeof emit>} */ (emit)
    const seq = ++seqs[i]
    const id = `e${options.clientOffset + i}.${seq}`
    const sentAt = wallMs()
    let payload
    if (tpl.payload) {
      const own = usesOwn ? identities.lookupOf(i) : null
      payload = tpl.payload.render((name) => (name === 'id' ? id : name === 'sentAt' ? sentAt : name === 'seq' ? seq : own?.(name)))
    }
    if (payload !== null && typeof payload === 'object' && !Array.isArray(payload)) {
      /** @type {Record<string, unknown>} */
      const stamped = { ...payload }
      if (stampId) setId(stamped, id)
      if (stampSentAt) setSentAt(stamped, sentAt)
      payload = stamped
    }
    // The sender's own copy of a relayed line is not expected (servers differ on echoing it).
    deliveries.ownMessage(i, 0, tpl.event, id)
    const startMs = monotonicMs()
    const callback = options.emitAck
      ? (/** @type {Error | null} */ error) => {
          pendingAcks--
          if (error === null) {
            emits.acked++
            recordMs(emits.ackTime, monotonicMs() - startMs)
          } else if (isTimeout(error)) emits.timedOut++
          else {
            emits.failed++
            emits.reasons.add(error.message)
          }
        }
      : undefined
    if (pool().emit(i, namespaces[0], tpl.event, payload === undefined ? [] : [payload], callback, options.ackTimeoutMs)) {
      emits.sent++
      if (callback !== undefined) pendingAcks++
    }
  }

  return {
    /** Whether clients emit (the emitted event is then measured too, in case the server relays it). */
    emitEvent: emit?.event ?? null,

    /**
     * The tracker's namespace event: join (or enter) the rooms, start or stop emitting.
     * @param {number} i
     * @param {number} k
     * @param {boolean} isUp
     */
    onNamespace (i, k, isUp) {
      sessions[k][i]++
      if (!isUp) {
        if (k === 0 && timers[i] !== undefined) {
          clearTimeout(timers[i])
          timers[i] = undefined
        }
        return
      }
      if (join !== null) return sendJoin(i, k)
      enterRooms(i, k)
      if (k === 0) startEmitting(i)
    },

    /** @returns {number} emits still waiting for their ack */
    pendingAcks: () => pendingAcks,

    /** No more emits (the swarm is ending). */
    stop () {
      stopped = true
      for (const timer of timers) if (timer !== undefined) clearTimeout(timer)
      timers.length = 0
    },

    /** @returns {import('../lib/schema.js').ScenarioReport | null} joins and emits, for the result */
    record () {
      if (join === null && emit === null) return null
      return {
        ...(join === null ? {} : { joins: { event: join.event, sent: joins.sent, acked: joins.acked, unacked: joins.unacked, failed: joins.failed, reasons: joins.reasons.record(), time: { ...summarize(joins.time), histogram: encode(joins.time) } } }),
        ...(emit === null
          ? {}
          : {
              emits: {
                event: emit.event,
                emitters: emitters.reduce((n, e) => n + e, 0),
                sent: emits.sent,
                acked: emits.acked,
                timedOut: emits.timedOut,
                failed: emits.failed,
                reasons: emits.reasons.record(),
                ackTime: options.emitAck ? { ...summarize(emits.ackTime), histogram: encode(emits.ackTime) } : null
              }
            })
      }
    }
  }
}
