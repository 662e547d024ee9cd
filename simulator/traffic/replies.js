/**
 * A reply that comes as an event instead of an ack (older apps, python servers that answer
 * with `emit('state', …)`): an emit sent through the swarm's one emit machinery
 * (simulator/traffic/emitting.js), then a wait for the reply event on the same client and namespace,
 * timed emit → reply in an HDR histogram and bounded by --ack-timeout. Used by the flag form
 * (`--emit … --reply-event state --reply-match id`) and by a scenario's
 * `socket.emitAndWait(event, args, replyEvent, match)`.
 *
 * How a wait ends is counted as an ack's is (emitting.js countAck: by the error's code, never its
 * text): replied and timed, timed out (code ACK_TIMEOUT), or failed (the namespace dropped or the
 * run ended first), so sent = replied + timed out + failed once every wait has ended.
 * `match` tells a reply to this emit from others: a dot path whose value must be the same in
 * the reply's first argument as in the emit's (`id`), a function of the reply's arguments, or
 * none (the next reply event on that socket).
 */
import { monotonicMs } from '../../lib/measure/clock.js'
import { CODES, IoswarmError, invalidOption } from '../../lib/errors.js'
import { fieldGetter } from '../../lib/input/fields.js'
import { encode, summarize } from '../../lib/measure/histogram.js'
import { countAck, createEmitCounts } from './emitting.js'

/** Reply event names a result lists (the counts cover every one). */
const MAX_REPLY_EVENTS = 10

/**
 * @typedef {string | ((args: unknown[]) => boolean) | null | undefined} ReplyMatch
 * @typedef {{ event: string, get: import('../../lib/input/fields.js').FieldGetter | null, want: unknown, test: ((args: unknown[]) => boolean) | null, startMs: number,
 *   timer: NodeJS.Timeout | undefined, onReply: (error: Error | null, args: unknown[]) => void }} Waiter
 */

/**
 * The checks of the flag form that involve several options (a usage error names the flag).
 * @param {{ replyEvent?: string | null, replyMatch?: string | null, emit?: string | null, scenario?: string | null }} o
 */
export function checkReplyFlags (o) {
  if (o.replyMatch && !o.replyEvent) {
    throw invalidOption('--reply-match', 'needs --reply-event EVENT: the event whose first argument carries the field that --reply-match names')
  }
  if (o.replyEvent && !o.emit && !o.scenario) {
    throw invalidOption('--reply-event', 'needs --emit (each emit then waits for this event) or --scenario (a hook\'s socket.emitAndWait listens for it)')
  }
}

/**
 * @param {object} context
 * @param {{ ackTimeoutMs: number, replyEvent?: string | null }} context.options
 * @param {import('./emitting.js').Emitting} context.emitting the swarm's emit machinery
 * @param {(event: string) => boolean} context.listens whether the clients' engine hands this event to the swarm
 * @param {import('../recording/figures.js').FiguresSink | null} [context.figures] each wait's emit and end (its --window, the live metrics' second)
 */
export function createReplies ({ options, emitting, listens, figures = null }) {
  /** Waits in flight, by namespace and client. @type {(Waiter[] | undefined)[][]} */
  const waiting = emitting.namespaces.map(() => [])
  /** Events some wait has waited for: only their receipts are looked at. */
  const replyEvents = new Set(options.replyEvent ? [options.replyEvent] : [])
  const counts = createEmitCounts()
  let pending = 0

  /**
   * @param {number} i @param {number} k @param {Waiter} w
   * @param {Error | null} error @param {unknown[]} args
   */
  function settle (i, k, w, error, args) {
    clearTimeout(w.timer)
    const list = /** @type {Waiter[]} */ (waiting[k][i])
    list.splice(list.indexOf(w), 1)
    pending--
    const elapsedMs = monotonicMs() - w.startMs
    countAck(counts, error, elapsedMs)
    figures?.replyEnded(error, elapsedMs)
    w.onReply(error, args)
  }

  /** @param {number} i @param {number} k @param {Error} error every wait of one client's namespace ends so */
  function failAll (i, k, error) {
    const list = waiting[k][i]
    if (list === undefined) return
    // settle takes each out of the list; a copy, so none is skipped.
    for (const w of [...list]) settle(i, k, w, error, [])
  }

  return {
    /** Whether the flag form waits (--reply-event): else only a scenario's hooks may. */
    waits: Boolean(options.replyEvent),

    /**
     * Emits `event` on client i's namespace k and waits for `replyEvent` there.
     * @param {number} i
     * @param {number} k
     * @param {string} event
     * @param {unknown[]} args
     * @param {import('./emitting.js').EmitCounts} sendCounts the sender's counts (its `sent`)
     * @param {{ replyEvent: string, match?: ReplyMatch, onReply: (error: Error | null, args: unknown[]) => void, onAck?: import('./emitting.js').AckHandler }} how
     * @returns {boolean} false when the client is not connected there (nothing sent, nothing waits)
     */
    wait (i, k, event, args, sendCounts, { replyEvent, match, onReply, onAck }) {
      if (typeof replyEvent !== 'string' || replyEvent === '') throw new TypeError('emitAndWait needs the reply event\'s name')
      if (!listens(replyEvent)) {
        throw new TypeError(`emitAndWait waits for ${JSON.stringify(replyEvent)}, an event this swarm does not listen to: add --reply-event ${replyEvent}`)
      }
      const test = typeof match === 'function' ? match : null
      const get = typeof match === 'string' ? fieldGetter(match) : null
      const want = get === null ? undefined : get(args[0])
      if (get !== null && want === undefined) throw new TypeError(`emitAndWait matches the reply by ${match}, which the emitted payload does not have`)
      if (!emitting.send(i, k, event, args, sendCounts, onAck ? { onAck } : undefined)) return false
      replyEvents.add(replyEvent)
      /** @type {Waiter} */
      const w = { event: replyEvent, get, want, test, startMs: monotonicMs(), timer: undefined, onReply }
      w.timer = setTimeout(() => settle(i, k, w, replyTimeout(), []), options.ackTimeoutMs)
      w.timer.unref()
      const list = waiting[k][i]
      if (list === undefined) waiting[k][i] = [w]
      else list.push(w)
      counts.sent++
      pending++
      figures?.replySent()
      return true
    },

    /**
     * The swarm's event handler with replies looked for first: `next` gets what `passes`.
     * @param {(i: number, k: number, event: string, args: unknown[]) => void} next
     * @param {(event: string) => boolean} passes
     * @returns {(i: number, k: number, event: string, args: unknown[]) => void}
     */
    route (next, passes) {
      return (i, k, event, args) => {
        if (pending > 0 && replyEvents.has(event)) receive(i, k, event, args)
        if (passes(event)) next(i, k, event, args)
      }
    },

    /** The tracker's namespace event: a dropped namespace ends its client's waits there. @param {number} i @param {number} k @param {boolean} isUp */
    onNamespace (i, k, isUp) {
      if (!isUp) failAll(i, k, new Error('disconnected before the reply'))
    },

    /** @returns {number} waits in flight */
    pending: () => pending,

    /** The run ended: waits still in flight fail (after the end's drain). */
    stop () {
      for (let k = 0; k < waiting.length; k++) for (let i = 0; i < waiting[k].length; i++) failAll(i, k, new Error('the run ended before the reply'))
    },

    /** @returns {import('../../lib/schema/result-schema.js').ScenarioReport['replies'] | null} null: nothing waited */
    record () {
      if (counts.sent === 0 && !options.replyEvent) return null
      return {
        events: [...replyEvents].slice(0, MAX_REPLY_EVENTS),
        sent: counts.sent,
        replied: counts.acked,
        timedOut: counts.timedOut,
        failed: counts.failed,
        reasons: counts.reasons.record(),
        time: { ...summarize(counts.ackTime), histogram: encode(counts.ackTime) }
      }
    }
  }

  /**
   * A reply event arrived: the first wait of its client and namespace that it matches ends.
   * @param {number} i @param {number} k @param {string} event @param {unknown[]} args
   */
  function receive (i, k, event, args) {
    const list = waiting[k][i]
    if (list === undefined) return
    for (const w of list) {
      if (w.event !== event || !matches(w, args)) continue
      settle(i, k, w, null, args)
      return
    }
  }
}

/**
 * @param {Waiter} w
 * @param {unknown[]} args the reply's
 */
function matches (w, args) {
  if (w.test !== null) {
    try {
      return w.test(args) === true
    } catch {
      return false
    }
  }
  return w.get === null || w.get(args[0]) === w.want
}

/** No reply within --ack-timeout: the code an ack's timeout has, so it is counted as one. */
function replyTimeout () {
  return new IoswarmError(CODES.ACK_TIMEOUT, 'no reply within --ack-timeout')
}

/** @typedef {ReturnType<typeof createReplies>} Replies */
