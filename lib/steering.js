/**
 * Steering a test while it runs: stop it gracefully, change its clients or its emit rate, or
 * end a capacity search after its current step. One object per command: the dashboard's HTTP
 * API, the terminal's signals (Ctrl-C) and a library caller all act through it, so a stop is
 * one path however it is asked for. The command that runs binds what each action does
 * (`handle`) while it can do it; the object checks the values (with the flags' own parsers),
 * runs one action at a time, and records every action, done or refused, as an event: the
 * run's timeline of actions in its result, a line on the terminal, a mark on the charts.
 */
import { CODES, IoswarmError } from './errors.js'
import { MAX_CLIENTS, parseRate } from './values/option-values.js'
import { parseInteger } from './values/parsers.js'

/**
 * @typedef {'stop' | 'clients' | 'emit-rate' | 'stop-after-step'} SteeringActionName
 * @typedef {'api' | 'dashboard' | 'signal' | string} SteeringBy who asked: the HTTP API, the page, a signal (Ctrl-C), …
 * @typedef {import('./schema/result-schema.js').SteeringAction} SteeringAction
 * @typedef {{ ok: true, event: SteeringAction } | { ok: false, status: 400 | 404 | 409, message: string, event?: SteeringAction }} SteeringAnswer
 * @typedef {(value: number | string | null, checked: { emitIntervalMs?: number }) => Promise<string | void> | string | void} SteeringHandler
 *   does the action; resolves to a note for the event (or nothing); throws a SteeringRefusal (or any error: a 409 with its message)
 */

/** The actions each command offers. */
export const STEERING_ACTIONS = Object.freeze({
  run: Object.freeze(['stop', 'clients', 'emit-rate']),
  simulate: Object.freeze(['stop', 'clients', 'emit-rate']),
  capacity: Object.freeze(['stop', 'stop-after-step'])
})

/** The room --dashboard reserves by default, as multiples of the swarm: the first this host holds. */
export const DASHBOARD_ROOM = Object.freeze([2, 1.5, 1.25])

/**
 * The room --dashboard reserves for a swarm of `clients` (run's and simulate's alike): the first
 * multiple of DASHBOARD_ROOM that `fits` accepts. A swarm sizes its arrays once, at its start,
 * so the room is chosen then, against this host's limits.
 * @param {number} clients the whole swarm
 * @param {(room: number) => void} fits throws a limit error (CODES.LIMIT) when this host would not hold `room` clients
 * @returns {number | null} null when not even the smallest room fits
 */
export function dashboardRoomOf (clients, fits) {
  for (const factor of DASHBOARD_ROOM) {
    const room = Math.floor(clients * factor)
    try {
      fits(room)
      return room
    } catch (error) {
      if (!(error instanceof IoswarmError && error.code === CODES.LIMIT)) throw error
    }
  }
  return null
}

/** A refusal with the HTTP status that says why: 400 a bad value, 409 not now or not in this run. */
export class SteeringRefusal extends Error {
  /**
   * @param {string} message
   * @param {400 | 409} [status]
   */
  constructor (message, status = 409) {
    super(message)
    this.name = 'SteeringRefusal'
    this.status = status
  }
}

/**
 * A command's steering. Written out rather than inferred, so the package's declaration files
 * can name it (an inferred AbortSignal is a type that declaration emit cannot reach).
 * @typedef {object} Steering
 * @property {() => string[]} actions the actions this command offers
 * @property {(action: string, body: unknown, by: SteeringBy) => Promise<SteeringAnswer>} act asks for an action
 * @property {(cb: (event: SteeringAction) => void) => () => void} onEvent listens to every action as it is decided
 * @property {AbortSignal} signal aborted by the stop action
 * @property {(action: SteeringActionName, handler: SteeringHandler) => () => void} handle binds what an action does
 * @property {() => SteeringAction[]} timeline every action so far, in order
 */

/**
 * @param {object} spec
 * @param {keyof typeof STEERING_ACTIONS} spec.command what runs: its actions are STEERING_ACTIONS[command]
 * @param {() => number} [spec.now] the wall clock (ms)
 * @returns {Steering}
 */
export function createSteering ({ command, now = Date.now }) {
  const offered = STEERING_ACTIONS[command]
  if (!offered) throw new RangeError(`no steering for command ${JSON.stringify(command)}`)
  const stopper = new AbortController()
  /** @type {Set<(event: SteeringAction) => void>} */
  const listeners = new Set()
  /** @type {SteeringAction[]} */
  const timeline = []
  /** @type {Map<string, SteeringHandler>} */
  const handlers = new Map()
  /** One action at a time, in the order asked: a resize is answered before the next one starts. */
  let queue = Promise.resolve()

  /**
   * Records an action and tells every listener (a listener that throws stops none of the others).
   * @param {Omit<SteeringAction, 'type'>} fields
   */
  const record = (fields) => {
    /** @type {SteeringAction} */
    const event = { type: 'action', ...fields }
    timeline.push(event)
    for (const cb of listeners) {
      try { cb(event) } catch {}
    }
    return event
  }

  /**
   * @param {string} action
   * @param {unknown} body
   * @param {SteeringBy} by
   * @returns {Promise<SteeringAnswer>}
   */
  async function perform (action, body, by) {
    const at = now()
    const refuse = (/** @type {400 | 404 | 409} */ status, /** @type {string} */ message, /** @type {number | string | null} */ value = null) =>
      ({ ok: /** @type {const} */ (false), status, message, event: record({ at, action, value, by, ok: false, message }) })
    if (!offered.includes(action)) return refuse(404, `${JSON.stringify(action)} is not an action of this command; it offers: ${offered.join(', ')}`)
    /** @type {{ value: number | string | null, emitIntervalMs?: number }} */
    let checked
    try {
      checked = checkBody(action, body)
    } catch (error) {
      return refuse(400, /** @type {Error} */ (error).message, rawValue(action, body))
    }
    if (stopper.signal.aborted) return refuse(409, 'the run is already stopping', checked.value)
    if (action === 'stop') {
      const event = record({ at, action, value: null, by, ok: true })
      stopper.abort()
      return { ok: true, event }
    }
    const handler = handlers.get(action)
    if (!handler) return refuse(409, notReady(action), checked.value)
    try {
      const note = await handler(checked.value, checked)
      return { ok: true, event: record({ at, action, value: checked.value, by, ok: true, ...(note ? { message: note } : {}) }) }
    } catch (error) {
      const status = error instanceof SteeringRefusal ? error.status : 409
      return refuse(status, /** @type {Error} */ (error).message, checked.value)
    }
  }

  return {
    /** @returns {string[]} the actions this command offers */
    actions: () => [...offered],

    /**
     * Asks for an action; every action, done or refused, becomes an event.
     * @param {string} action
     * @param {unknown} body the request's parsed JSON: {} for stop, { clients: N }, { rate: '5/s' }
     * @param {SteeringBy} by
     * @returns {Promise<SteeringAnswer>}
     */
    act (action, body, by) {
      const answer = queue.then(() => perform(action, body, by))
      queue = answer.then(() => {}, () => {})
      return answer
    },

    /**
     * @param {(event: SteeringAction) => void} cb each action as it is decided
     * @returns {() => void} stop listening
     */
    onEvent (cb) {
      listeners.add(cb)
      return () => { listeners.delete(cb) }
    },

    /** Aborted by the stop action: the command's signal (what Ctrl-C aborts too). */
    signal: stopper.signal,

    /**
     * Binds what an action does while the command can do it.
     * @param {SteeringActionName} action
     * @param {SteeringHandler} handler
     * @returns {() => void} unbind (the action is refused again, as not possible now)
     */
    handle (action, handler) {
      handlers.set(action, handler)
      return () => { if (handlers.get(action) === handler) handlers.delete(action) }
    },

    /** @returns {SteeringAction[]} every action so far, in order */
    timeline: () => timeline.slice()
  }
}

/**
 * The value of an action, checked as its flag checks it (the same parser, the same message).
 * @param {string} action
 * @param {unknown} body
 * @returns {{ value: number | string | null, emitIntervalMs?: number }}
 */
function checkBody (action, body) {
  const fields = /** @type {Record<string, unknown>} */ (body !== null && typeof body === 'object' ? body : {})
  if (action === 'clients') {
    if (fields.clients === undefined) throw new SteeringRefusal('--clients: missing: send {"clients": N}', 400)
    return { value: parseInteger(fields.clients, '--clients', { min: 1, max: MAX_CLIENTS }) }
  }
  if (action === 'emit-rate') {
    if (fields.rate === undefined) throw new SteeringRefusal('--emit-rate: missing: send {"rate": "5/s"}', 400)
    const rate = String(fields.rate).trim()
    return { value: rate, emitIntervalMs: parseRate(rate, '--emit-rate') }
  }
  return { value: null }
}

/**
 * What a refused request asked for, as far as it can be read (for its event).
 * @param {string} action
 * @param {unknown} body
 * @returns {number | string | null}
 */
function rawValue (action, body) {
  const fields = /** @type {Record<string, unknown>} */ (body !== null && typeof body === 'object' ? body : {})
  const raw = action === 'clients' ? fields.clients : action === 'emit-rate' ? fields.rate : null
  return typeof raw === 'number' || typeof raw === 'string' ? raw : raw === undefined || raw === null ? null : JSON.stringify(raw)
}

/** @param {string} action */
function notReady (action) {
  return action === 'stop-after-step' ? 'the search has not started its steps yet' : 'the swarm is not running (not started yet, or already ending)'
}

/**
 * A command's hooks with its steering's stop joined to its signal: a steered command stops on
 * the stop action as on the caller's signal (the CLI's are one already: Ctrl-C is the stop action).
 * @template {{ signal?: AbortSignal, steering?: Steering }} H
 * @param {H} hooks
 * @returns {H}
 */
export function steeredHooks (hooks) {
  const { steering, signal } = hooks
  if (!steering || signal === steering.signal) return hooks
  return { ...hooks, signal: signal ? AbortSignal.any([signal, steering.signal]) : steering.signal }
}

/**
 * One terminal line for an action: its time, what, the value, who asked, done or why not.
 * @param {SteeringAction} event
 */
export function formatActionLine (event) {
  const time = new Date(event.at).toISOString().slice(11, 19)
  const value = event.value === null ? '' : ` ${event.value}`
  const outcome = event.ok ? `done${event.message ? ` (${event.message})` : ''}` : `refused: ${event.message}`
  return `action ${time} ${event.action}${value} by ${event.by}: ${outcome}`
}
