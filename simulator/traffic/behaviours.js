/**
 * What clients do besides listening, on either engine: join their rooms after each namespace
 * connect (--join, waiting for the ack), and emit at a rate (--emit, --emit-rate, --emitters)
 * with the round trip emit → ack timed (--emit-ack). The flags' built-in scenario: it sends
 * through the swarm's one emit machinery (simulator/traffic/emitting.js) as a scenario's hooks do, so
 * sessions, pending acks, the stop, the counts and the sender's own lines are kept once. Fed
 * by the tracker's namespace connect/drop events; a dropped namespace stops its client's emits
 * and takes it out of its rooms until it joins again.
 */
import { wallMs } from '../../lib/measure/clock.js'
import { isAckTimeout } from '../../lib/errors.js'
import { fieldSetter } from '../../lib/input/fields.js'
import { createHistogram, encode, recordMs, summarize } from '../../lib/measure/histogram.js'
import { createReasonCounter } from '../../lib/reasons.js'
import { compileEventCall } from '../../lib/input/template.js'
import { createEmitCounts, recordEmitCounts } from './emitting.js'
import { pickEmitters } from '../processes/partition.js'
import { DeadlineHeap } from '../wire/deadline-heap.js'
import { ownId } from './own-ids.js'

/** Placeholders an emit's template has besides a client's own. */
const EMIT_PLACEHOLDERS = Object.freeze(['id', 'sentAt', 'seq'])

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

/**
 * The --join and --emit templates, checked (a usage error names the flag) and compiled. Either
 * form: `EVENT <json>` or a JSON array `["event name", arg, …]`.
 * @param {{ join?: string | null, emit?: string | null }} options
 * @param {import('../sessions/identity.js').Identities} identities
 */
export function compileBehaviours (options, identities) {
  return {
    join: options.join ? compileEventCall(options.join, identities.rules('--join')) : null,
    emit: options.emit ? compileEventCall(options.emit, identities.rules('--emit', EMIT_PLACEHOLDERS)) : null
  }
}

/**
 * @param {object} context
 * @param {import('../sim-options.js').SimOptions} context.options
 * @param {import('../sessions/identity.js').Identities} context.identities
 * @param {ReturnType<typeof import('../recording/namespace-recorders.js').createDeliveries>} context.deliveries
 * @param {import('./emitting.js').Emitting} context.emitting the swarm's emit machinery
 * @param {import('./replies.js').Replies} context.replies replies that come as events (--reply-event)
 * @param {() => number} [context.clockOffsetMs] added to the local wall clock to stamp `sentAt` on the run's reference
 *   clock, the clock every receiver reads a send time on (the broadcasts' sender's): a line from a simulator on
 *   another host is then timed, and owed, as a broadcast is
 */
export function createBehaviours ({ options, identities, deliveries, emitting, replies, clockOffsetMs = () => 0 }) {
  const { join, emit } = compileBehaviours(options, identities)
  const placeholders = emit?.args?.placeholders ?? []
  const stampId = !placeholders.includes('id')
  const stampSentAt = !placeholders.includes('sentAt')
  // The hot path (every emit) compiles what it can once: the stamping setters, and whether the
  // template needs the client's own placeholders (building them costs a closure and its room).
  const usesOwn = placeholders.some((p) => !EMIT_PLACEHOLDERS.includes(p))
  // A template without placeholders renders the same arguments every time: rendered once, its
  // first argument copied per emit by the stamp (the rest, and nested parts, are only read).
  const constantArgs = emit?.args && placeholders.length === 0 ? emit.args.render(() => undefined) : null
  const constantFirst = constantArgs?.[0]
  const constantObject = constantFirst !== null && typeof constantFirst === 'object' && !Array.isArray(constantFirst)
    ? /** @type {Record<string, unknown>} */ (constantFirst)
    : null
  const stamp = compileStamp(stampId ? options.idField : null, stampSentAt ? options.sentAtField : null, constantObject)
  // The lean engine writes text: a constant template's JSON is joined from parts made once.
  const encodeStamped = options.engine === 'lean'
    ? compileEncodedStamp(stampId ? options.idField : null, stampSentAt ? options.sentAtField : null, constantArgs)
    : null
  // Every emitter's next emit in one heap with one timer (no timer or closure per emit), and
  // the namespace session it was scheduled in: an emit of a session that ended bows out.
  const next = new DeadlineHeap(fire)
  const sessionOf = new Uint32Array(options.clients)
  const seqs = new Uint32Array(options.clients)
  const emitters = pickEmitters(options.clients, options.clientOffset, options.emitters)
  const joins = { sent: 0, acked: 0, unacked: 0, failed: 0, reasons: createReasonCounter(), time: createHistogram() }
  const emits = createEmitCounts()
  /** Each emitter's mean interval: --emit-rate, or the current step's `at RATE` (--phases). */
  let intervalMs = options.emitIntervalMs

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
    const session = emitting.session(i, k)
    const args = tpl.args ? tpl.args.render(identities.lookupOf(i)) : []
    const sent = emitting.send(i, k, tpl.event, args, null, {
      line: false,
      pending: false,
      onAck: (error, answer, elapsedMs) => {
        if (emitting.session(i, k) !== session) return // the namespace dropped meanwhile
        const refusal = error ? null : refusedBy(answer)
        if ((error && !isAckTimeout(error)) || refusal !== null) {
          joins.failed++
          joins.reasons.add(refusal ?? /** @type {Error} */ (error).message)
          return
        }
        // No ack within the timeout: a server that does not ack; in its room since the emit.
        if (error) joins.unacked++
        else {
          joins.acked++
          recordMs(joins.time, elapsedMs)
        }
        enterRooms(i, k)
        if (k === 0) startEmitting(i)
      }
    })
    if (sent) joins.sent++
  }

  /** @param {number} i */
  function startEmitting (i) {
    if (emit === null || emitting.stopped() || next.has(i) || !isEmitter(i)) return
    // Fixed timing starts each client at a random point of its interval, so they do not beat together.
    sessionOf[i] = emitting.session(i, 0)
    next.setIn(i, options.emitTiming === 'fixed' ? Math.random() * intervalMs : nextGapMs())
  }

  /** A gap of the chosen timing: exponential (Poisson arrivals) or the fixed interval. */
  function nextGapMs () {
    return options.emitTiming === 'fixed' ? intervalMs : -Math.log(1 - Math.random()) * intervalMs
  }

  /** @param {number} i an emitter whose next emit is due */
  function fire (i) {
    if (!emitting.live(i, 0, sessionOf[i])) return
    send(i)
    // From now, as a timer per emit did: a late wake-up (a busy loop) lowers the rate rather
    // than catching up in a burst that starves the loop's other work (connects, reads).
    next.setIn(i, nextGapMs())
  }

  // The emit being rendered, read by one lookup made once (not a closure per emit).
  /** @type {{ id: string, sentAt: number, seq: number, own: ((name: string) => unknown) | null }} */
  const current = { id: '', sentAt: 0, seq: 0, own: null }
  /** @param {string} name */
  const lookup = (name) => (name === 'id' ? current.id : name === 'sentAt' ? current.sentAt : name === 'seq' ? current.seq : current.own?.(name))

  /** @param {number} i */
  function send (i) {
    const tpl = /** @type {NonNullable<typeof emit>} */ (emit)
    const seq = ++seqs[i]
    const id = ownId(options.clientOffset + i, seq)
    // To the microsecond: a joined line (encodeStamped) writes the time from whole numbers.
    const sentAtUs = Math.round((wallMs() + clockOffsetMs()) * 1000)
    const sentAt = sentAtUs / 1000
    /** @type {unknown[]} */
    let args = constantArgs ?? []
    if (tpl.args && constantArgs === null) {
      current.id = id
      current.sentAt = sentAt
      current.seq = seq
      current.own = usesOwn ? identities.lookupOf(i) : null
      args = tpl.args.render(lookup)
      current.own = null
    }
    const first = args[0]
    if (first !== null && typeof first === 'object' && !Array.isArray(first)) {
      const stamped = stamp(/** @type {Record<string, unknown>} */ (first), id, sentAt)
      args = args.length === 1 ? [stamped] : [stamped, ...args.slice(1)]
    }
    const ack = options.emitAck ? ACK_NOOP : undefined
    if (options.replyEvent) replies.wait(i, 0, tpl.event, args, emits, { replyEvent: options.replyEvent, match: options.replyMatch, onReply: noop, ...ack })
    else emitting.send(i, 0, tpl.event, args, emits, ack, encodeStamped === null ? null : encodeStamped(id, sentAtUs))
  }

  return {
    /** Whether clients emit (the emitted event is then measured too, in case the server relays it). */
    emitEvent: emit?.event ?? null,

    /**
     * The tracker's namespace event (after the machinery's nextSession): join (or enter) the
     * rooms, start or stop emitting.
     * @param {number} i
     * @param {number} k
     * @param {boolean} isUp
     */
    onNamespace (i, k, isUp) {
      if (!isUp) {
        if (k === 0) next.clear(i)
        return
      }
      if (join !== null) return sendJoin(i, k)
      enterRooms(i, k)
      if (k === 0) startEmitting(i)
    },

    /**
     * A new emit rate from now on (a step of --phases): each emitter's next emit is drawn
     * again at the new rate (a Poisson gap has no memory, so redrawing it is exact), not after
     * a gap of the old one.
     * @param {number} ms each emitter's mean interval
     */
    setEmitInterval (ms) {
      if (ms === intervalMs) return
      intervalMs = ms
      for (const i of next.clients()) {
        next.clear(i)
        startEmitting(i)
      }
    },

    /** No more emits (the swarm is ending; the machinery is stopped too). */
    stop () {
      next.clearAll()
    },

    /** @returns {import('../../lib/schema/result-schema.js').ScenarioReport | null} joins and emits, for the result */
    record () {
      if (join === null && emit === null) return null
      return {
        ...(join === null ? {} : { joins: recordJoins(join.event, joins) }),
        ...(emit === null ? {} : { emits: recordEmits(emit.event, emitters, emits, options.emitAck) })
      }
    }
  }
}

/**
 * A copy of the emit's first argument with its id and send time set (a field null: the
 * template sets it). Never a property added to a spread copy (`{ ...first }`): that built a new
 * hidden class on every emit (1.2–1.6 µs a stamp measured alone, against 40 ns copying an
 * object that has the fields already and 320 ns with Object.assign), nor through a variable key
 * (`target[name] = value`: V8's runtime path). A constant first argument is copied from one
 * object with the fields in place; the default fields are written by name.
 * @param {string | null} idField
 * @param {string | null} sentAtField
 * @param {Record<string, unknown> | null} [constantFirst] the first argument of a template without placeholders
 * @returns {(first: Record<string, unknown>, id: string, sentAt: number) => Record<string, unknown>}
 */
export function compileStamp (idField, sentAtField, constantFirst = null) {
  if (idField === 'id' && sentAtField === 'sentAt') {
    if (constantFirst !== null) {
      // sentAt starts as a fraction, as wallMs() gives: the field is a double from the start.
      const shaped = { ...constantFirst, id: '', sentAt: 0.5 }
      return (_first, id, sentAt) => {
        const stamped = { ...shaped }
        stamped.id = id
        stamped.sentAt = sentAt
        return stamped
      }
    }
    return (first, id, sentAt) => {
      const stamped = Object.assign({}, first)
      stamped.id = id
      stamped.sentAt = sentAt
      return stamped
    }
  }
  const setId = idField === null ? null : fieldSetter(idField)
  const setSentAt = sentAtField === null ? null : fieldSetter(sentAtField)
  return (first, id, sentAt) => {
    const stamped = Object.assign({}, first)
    if (setId !== null) setId(stamped, id)
    if (setSentAt !== null) setSentAt(stamped, sentAt)
    return stamped
  }
}

/**
 * A constant template's arguments as JSON once stamped, joined from text made once: what
 * JSON.stringify([stamped, ...rest]) writes between its brackets, without stringifying the
 * stamped object on every emit (≈ 1 µs of an acked emit's CPU). Only for the default fields
 * (`id` and `sentAt` set by name, as compileStamp's constant path does) and ids of ownId's form
 * (a letter, digits and a dot: nothing JSON escapes). Null where it does not apply: other
 * fields, placeholders, a first argument that is not an object, arguments JSON cannot write.
 * The send time comes in whole microseconds and is written as JSON writes it in milliseconds
 * (sentAtUs / 1000), from its whole milliseconds (made text once per millisecond) and a table
 * of the 1,000 fractions: turning a fractional double into text cost ≈ 0.7 µs an emit.
 * @param {string | null} idField
 * @param {string | null} sentAtField
 * @param {unknown[] | null} constantArgs the rendered arguments of a template without placeholders
 * @returns {((id: string, sentAtUs: number) => string) | null}
 */
export function compileEncodedStamp (idField, sentAtField, constantArgs) {
  if (idField !== 'id' || sentAtField !== 'sentAt' || constantArgs === null) return null
  const first = constantArgs[0]
  if (first === null || typeof first !== 'object' || Array.isArray(first)) return null
  // Marks no template holds (each must be found exactly once), where the id and time go.
  const ID = '\u0001ioswarm:id\u0001'
  const SENT_AT = '\u0001ioswarm:sentAt\u0001'
  let text
  try {
    text = JSON.stringify([{ ...first, id: ID, sentAt: SENT_AT }, ...constantArgs.slice(1)])
  } catch {
    return null // a BigInt or a cycle: the engine's own encoding says so on the first emit
  }
  const parts = text.slice(1, -1).split(/("\\u0001ioswarm:(?:id|sentAt)\\u0001")/)
  // [before, mark, between, mark, after]: each mark once, in either order.
  if (parts.length !== 5 || parts[1] === parts[3]) return null
  const [a, firstMark, b, , c] = parts
  const idFirst = firstMark === JSON.stringify(ID)
  const fractions = msFractions()
  let lastMs = -1
  let lastMsText = ''
  /** @param {number} us */
  const time = (us) => {
    if (!(us >= 0 && us < FRACTION_TABLE_LIMIT_US)) {
      // JSON writes a finite number as String() does, and NaN or an infinity as null.
      const ms = us / 1000
      return Number.isFinite(ms) ? '' + ms : 'null'
    }
    const ms = Math.floor(us / 1000)
    if (ms !== lastMs) {
      lastMs = ms
      lastMsText = '' + ms
    }
    return lastMsText + fractions[us - ms * 1000]
  }
  return idFirst
    ? (id, sentAtUs) => a + '"' + id + '"' + b + time(sentAtUs) + c
    : (id, sentAtUs) => a + time(sentAtUs) + b + '"' + id + '"' + c
}

/**
 * Below this many microseconds (2^42 ms, the year 2109) a double is finer than a thousandth of a
 * millisecond, so `us / 1000` is written by String() as its whole milliseconds and its three
 * decimals, trailing zeros left out: what the fraction table holds. Above, String() does it.
 */
const FRACTION_TABLE_LIMIT_US = 2 ** 42 * 1000

/** @type {string[] | null} */
let fractionTable = null
/** @returns {string[]} '', '.001', …, '.01', …, '.999': the decimals of k / 1000 as String() writes them */
function msFractions () {
  fractionTable ??= Array.from({ length: 1000 }, (_, k) => (k === 0 ? '' : '.' + String(k).padStart(3, '0').replace(/0+$/, '')))
  return fractionTable
}

/**
 * @typedef {{ sent: number, acked: number, unacked: number, failed: number }} JoinCounts
 * @param {string} event
 * @param {JoinCounts & { reasons: ReturnType<typeof createReasonCounter>, time: import('../../lib/measure/histogram.js').Histogram }} joins
 * @returns {NonNullable<import('../../lib/schema/result-schema.js').ScenarioReport['joins']>}
 */
function recordJoins (event, joins) {
  const { sent, acked, unacked, failed } = joins
  return { event, sent, acked, unacked, failed, reasons: joins.reasons.record(), time: { ...summarize(joins.time), histogram: encode(joins.time) } }
}

/** An ack's outcome is counted by the machinery; --emit does nothing more with it. */
const noop = () => {}
/** The emit's ack options, one object for every emit: its ack is counted, its arguments never read. */
const ACK_NOOP = Object.freeze({ onAck: noop, answer: false })

/**
 * @param {string} event
 * @param {Uint8Array} emitters
 * @param {import('./emitting.js').EmitCounts} emits
 * @param {boolean} acking --emit-ack
 * @returns {NonNullable<import('../../lib/schema/result-schema.js').ScenarioReport['emits']>}
 */
function recordEmits (event, emitters, emits, acking) {
  const { ackTime, ...counts } = recordEmitCounts(emits)
  return { event, emitters: emitters.reduce((n, e) => n + e, 0), ...counts, ackTime: acking ? ackTime : null }
}
