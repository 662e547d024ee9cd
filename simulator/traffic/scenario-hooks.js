/**
 * `--scenario file.js`: what flags cannot say, as a module of hooks run for every client on
 * either engine through one small socket facade (emit, emitWithAck, emitAndWait, join, leave, every):
 *
 *   export async function login (http, ctx) { … return { token } }                    // before the first connect: ctx.login, {{login.FIELD}}
 *   export function identity (i, ctx) { return { auth: { token: ctx.row.token } } }   // each attempt, synchronous
 *   export async function onConnect (socket, ctx) { await socket.join(ctx.room) }     // each namespace connect
 *   export function onEvent (socket, event, args, ctx) { … }                           // every event that arrives
 *   export function onDisconnect (socket, reason, ctx) { … }
 *
 * `ctx` is { i (index in the run), local (in this simulator), sim, room, row, namespace } and the
 * app's own measurements: `ctx.timing(name, ms)` (an HDR histogram per name) and
 * `ctx.count(name, n = 1)` (a sum per name), merged over simulators into the result, the
 * report, Prometheus and thresholds (`custom.NAME.p99`, `custom.NAME.count`; lib/measure/custom-measures.js).
 * Hooks run with the same measurement and limits as flags, through the swarm's one emit
 * machinery (simulator/traffic/emitting.js): emits are counted and acks timed, a line is never expected
 * back at the client that emitted it, joins make their clients expected by their room, an error
 * in a hook is counted by its message (it never stops the swarm), and `every` timers end with
 * the client's session. A session's socket facade and `ctx` are built once, at its first hook.
 * Loaded with --scenario only (the path is checked by simulator/sim-options.js).
 */
import { pathToFileURL } from 'node:url'
import { createCustomFigures } from '../../lib/measure/custom-measures.js'
import { invalidOption } from '../../lib/errors.js'
import { createReasonCounter } from '../../lib/reasons.js'
import { createEmitCounts, recordEmitCounts } from './emitting.js'
import { scenarioIdentity } from '../sessions/identity.js'

/** The hooks a scenario module may export. */
const HOOK_NAMES = Object.freeze(['identity', 'onConnect', 'onEvent', 'onDisconnect', 'login'])
/** Fewest milliseconds between two runs of one `every` callback. */
const MIN_EVERY_MS = 10

/**
 * @typedef {object} ScenarioHooks
 * @property {import('../sessions/login.js').LoginHook} [login] logs the client in over HTTP before its first connect (and after a refusal: HTTP 401/403, or a refused CONNECT)
 * @property {(i: number, ctx: IdentityContext) => import('../sessions/identity.js').ClientIdentity | undefined} [identity]
 * @property {(socket: HookSocket, ctx: HookContext) => unknown} [onConnect]
 * @property {(socket: HookSocket, event: string, args: unknown[], ctx: HookContext) => unknown} [onEvent]
 * @property {(socket: HookSocket, reason: string, ctx: HookContext) => unknown} [onDisconnect]
 * @typedef {{ i: number, local: number, sim: string, room: string | null, row: Record<string, unknown> | null, namespace: string }} IdentityContext
 * @typedef {IdentityContext & CustomRecorders & { loop: boolean }} HookContext the context of onConnect, onEvent, onDisconnect; loop: --loop (repeat a recorded scenario)
 * @typedef {object} CustomRecorders the app's own figures (lib/measure/custom-measures.js): a bad name or value throws (a hook error)
 * @property {(name: string, ms: number) => void} timing records one timing of `name` (ms)
 * @property {(name: string, n?: number) => void} count adds n (default 1) to the count `name`
 * @typedef {object} HookSocket
 * @property {number} index the client's index in the run
 * @property {string} namespace
 * @property {boolean} connected
 * @property {(event: string, ...args: unknown[]) => boolean} emit
 * @property {(event: string, ...args: unknown[]) => Promise<unknown[]>} emitWithAck resolves with the ack's arguments; rejects on timeout (--ack-timeout) or disconnect
 * @property {(event: string, args: unknown, replyEvent: string, match?: import('./replies.js').ReplyMatch) => Promise<unknown[]>} emitAndWait emits `event` with
 *   `args` (an array of arguments, or one) and resolves with the arguments of the reply event that answers it (simulator/traffic/replies.js: `match` a dot path
 *   whose value the reply's first argument shares with the emit's, a function of the reply's arguments, or none: the next one); rejects on timeout or disconnect
 * @property {(room: string, options?: { event?: string, payload?: unknown }) => Promise<boolean>} join emits the join (default `join` with `{ room }`) and counts the client in the room from the ack
 * @property {(room: string, options?: { event?: string, payload?: unknown }) => boolean} leave
 * @property {(ms: number, callback: () => unknown) => void} every runs callback every `ms` while this namespace session lasts
 */

/**
 * Loads a scenario module and checks its exports.
 * @param {string} path absolute
 * @returns {Promise<ScenarioHooks>}
 */
export async function loadScenario (path) {
  let module
  try {
    module = await import(pathToFileURL(path).href)
  } catch (error) {
    throw invalidOption('--scenario', `${path} could not be loaded: ${/** @type {Error} */ (error).message}`)
  }
  const names = Object.keys(module).filter((n) => n !== 'default')
  const unknown = names.filter((n) => !HOOK_NAMES.includes(n))
  if (unknown.length > 0) throw invalidOption('--scenario', `${path} exports ${unknown.join(', ')}; a scenario exports hooks: ${HOOK_NAMES.join(', ')}`)
  for (const name of names) if (typeof module[name] !== 'function') throw invalidOption('--scenario', `${path}: ${name} must be a function`)
  if (names.length === 0) throw invalidOption('--scenario', `${path} exports no hook (${HOOK_NAMES.join(', ')})`)
  return /** @type {ScenarioHooks} */ (module)
}

/**
 * Runs a scenario's hooks for every client.
 * @param {object} context
 * @param {ScenarioHooks} context.hooks
 * @param {import('../sim-options.js').SimOptions} context.options
 * @param {import('../sessions/identity.js').Identities} context.identities
 * @param {ReturnType<typeof import('../recording/namespace-recorders.js').createDeliveries>} context.deliveries
 * @param {import('./emitting.js').Emitting} context.emitting the swarm's emit machinery
 * @param {import('./replies.js').Replies} context.replies replies that come as events (emitAndWait)
 * @param {string} context.simId
 * @param {import('../recording/figures.js').FiguresSink | null} [context.figures] each custom figure admitted (its --window, the live metrics' second)
 */
export function createHookRunner ({ hooks, options, identities, deliveries, emitting, replies, simId, figures = null }) {
  const namespaces = deliveries.namespaces
  /** The lean engine writes every argument as JSON: binary data would arrive as `{ type, data }`, not as bytes. */
  const jsonOnly = options.engine === 'lean'
  /** Each session's facade and context, by namespace and client (built at the session's first hook). @type {(Session | undefined)[][]} */
  const bySession = namespaces.map(() => [])
  /** @type {Map<string, NodeJS.Timeout[]>} timers of `every`, by client and namespace */
  const timers = new Map()
  const errors = createReasonCounter()
  const calls = { identity: 0, onConnect: 0, onEvent: 0, onDisconnect: 0 }
  const emits = createEmitCounts()
  const custom = createCustomFigures()
  /** @type {CustomRecorders} shared by every context: no closure per session; each record admitted told to `figures` too */
  const recorders = figures === null
    ? { timing: custom.timing, count: custom.count }
    : {
        timing: (name, ms) => { if (custom.timing(name, ms)) figures.timing(name, ms) },
        count: (name, n = 1) => { if (custom.count(name, n)) figures.count(name, n) }
      }

  /** A hook's error; those of hooks the swarm's own end cut short (a pending emitWithAck) are not. @param {unknown} error */
  const fail = (error) => { if (!emitting.stopped()) errors.add(error instanceof Error ? error.message : String(error)) }
  /**
   * Runs a hook; a throw or a rejection is counted, never thrown.
   * @param {() => unknown} run
   */
  const guard = (run) => {
    try {
      const out = run()
      if (out instanceof Promise) out.catch(fail)
    } catch (error) {
      fail(error)
    }
  }

  /** @param {number} i @param {number} k @returns {HookContext} */
  const contextOf = (i, k) => ({ ...identities.contextOf(i), namespace: namespaces[k], loop: options.loop, ...recorders })

  /**
   * Client i's namespace k in one session: its facade and context, built once.
   * @param {number} i
   * @param {number} k
   * @param {number} session
   * @returns {Session}
   */
  function sessionOf (i, k, session) {
    const kept = bySession[k][i]
    if (kept !== undefined && kept.session === session) return kept
    const made = { session, socket: facadeOf(i, k, session), ctx: contextOf(i, k) }
    bySession[k][i] = made
    return made
  }

  /**
   * The facade a hook gets for client i's namespace k in one session.
   * @param {number} i
   * @param {number} k
   * @param {number} session
   * @returns {HookSocket}
   */
  function facadeOf (i, k, session) {
    const nsp = namespaces[k]
    const live = () => emitting.live(i, k, session)
    /**
     * @param {string} event
     * @param {unknown[]} args
     * @param {import('./emitting.js').AckHandler} [onAck]
     * @param {boolean} [line] false: a join or leave, not a line the server may relay
     */
    const send = (event, args, onAck, line = true) => {
      if (jsonOnly) refuseBinary(event, args)
      return live() && emitting.send(i, k, event, args, emits, { onAck, line })
    }
    const emitWithAck = (/** @type {string} */ event, /** @type {unknown[]} */ args, line = true) => new Promise((resolve, reject) => {
      const sent = send(event, args, (error, answer) => (error === null ? resolve(answer) : reject(error)), line)
      if (!sent) reject(new Error(`not connected to ${nsp}`))
    })
    return {
      index: options.clientOffset + i,
      namespace: nsp,
      get connected () { return live() },
      emit: (event, ...args) => send(event, args),
      emitWithAck: (event, ...args) => emitWithAck(event, args),
      emitAndWait: (event, args, replyEvent, match) => new Promise((resolve, reject) => {
        const onReply = (/** @type {Error | null} */ error, /** @type {unknown[]} */ answer) => (error === null ? resolve(answer) : reject(error))
        const list = Array.isArray(args) ? args : [args]
        if (jsonOnly) refuseBinary(event, list)
        const sent = live() && replies.wait(i, k, event, list, emits, { replyEvent, match, onReply })
        if (!sent) reject(new Error(`not connected to ${nsp}`))
      }),
      async join (room, { event = 'join', payload = { room } } = {}) {
        deliveries.assignRoom(i, k, room)
        await emitWithAck(event, [payload], false)
        if (!live()) return false
        deliveries.setJoined(i, k, room, true)
        return true
      },
      leave (room, { event = 'leave', payload = { room } } = {}) {
        deliveries.setJoined(i, k, room, false)
        return send(event, [payload], undefined, false)
      },
      every (ms, callback) {
        if (!live()) return
        const key = `${i}/${k}`
        const timer = setInterval(() => { if (live()) guard(callback) }, Math.max(MIN_EVERY_MS, ms))
        timer.unref()
        timers.set(key, [...(timers.get(key) ?? []), timer])
      }
    }
  }

  /** @param {number} i @param {number} k */
  function clearTimers (i, k) {
    const key = `${i}/${k}`
    for (const timer of timers.get(key) ?? []) clearInterval(timer)
    timers.delete(key)
  }

  return {
    /** @type {((i: number) => import('../sessions/identity.js').ClientIdentity) | null} */
    identity: hooks.identity
      ? scenarioIdentity(identities, hooks.identity, { namespace: namespaces[0], onCall: () => { calls.identity++ }, onError: fail })
      : null,

    /** Whether every arriving event goes to onEvent. */
    wantsEvents: hooks.onEvent !== undefined,

    /**
     * The tracker's namespace event, after the machinery's nextSession.
     * @param {number} i
     * @param {number} k
     * @param {boolean} isUp
     * @param {string} [reason]
     */
    onNamespace (i, k, isUp, reason = '') {
      if (!isUp) {
        clearTimers(i, k)
        // The session that just ended: its facade says so (connected false, emits refused).
        const { socket, ctx } = sessionOf(i, k, emitting.session(i, k) - 1)
        bySession[k][i] = undefined
        if (hooks.onDisconnect) {
          calls.onDisconnect++
          guard(() => hooks.onDisconnect?.(socket, reason, ctx))
        }
        return
      }
      if (!hooks.onConnect || emitting.stopped()) return
      calls.onConnect++
      const { socket, ctx } = sessionOf(i, k, emitting.session(i, k))
      guard(() => hooks.onConnect?.(socket, ctx))
    },

    /**
     * @param {number} i
     * @param {number} k
     * @param {string} event
     * @param {unknown[]} args
     */
    onEvent (i, k, event, args) {
      if (emitting.stopped()) return
      calls.onEvent++
      const { socket, ctx } = sessionOf(i, k, emitting.session(i, k))
      guard(() => hooks.onEvent?.(socket, event, args, ctx))
    },

    stop () {
      for (const list of timers.values()) for (const timer of list) clearInterval(timer)
      timers.clear()
    },

    /** @returns {import('../../lib/schema/result-schema.js').CustomReport | null} the hooks' own figures; null: none recorded */
    custom: () => custom.record(),

    /** @returns {NonNullable<import('../../lib/schema/result-schema.js').ScenarioReport['hooks']>} */
    record () {
      const { reasons, ...counts } = recordEmitCounts(emits)
      return { calls: { ...calls }, errors: errors.record(), emits: counts }
    }
  }
}

/** @typedef {{ session: number, socket: HookSocket, ctx: HookContext }} Session */

/** How deep refuseBinary looks into an emit's arguments (a payload deeper than this is no chat message). */
const BINARY_DEPTH = 8

/**
 * Throws (a hook error, counted under its message) when an emit's arguments carry binary data,
 * which the lean engine would send as JSON instead of a binary attachment.
 * @param {string} event
 * @param {unknown[]} args
 */
function refuseBinary (event, args) {
  if (carriesBinary(args, BINARY_DEPTH)) {
    throw new Error(`emit "${event}" carries binary data (a Buffer or typed array): the lean engine sends JSON only; use --engine sio`)
  }
}

/**
 * @param {unknown} value
 * @param {number} depth levels left to look into
 * @returns {boolean}
 */
function carriesBinary (value, depth) {
  if (value === null || typeof value !== 'object') return false
  if (ArrayBuffer.isView(value) || value instanceof ArrayBuffer) return true
  if (depth === 0) return false
  if (Array.isArray(value)) return value.some((v) => carriesBinary(v, depth - 1))
  for (const key in value) if (carriesBinary(/** @type {Record<string, unknown>} */ (value)[key], depth - 1)) return true
  return false
}
