/**
 * Where the engines' events go in a swarm: a client's node to the node tracker, replies to
 * the emits that wait for them, every event to a scenario's onEvent when it asks, a refused
 * connect to a new login; the measured events to the recorder.
 */
import { fieldGetter } from '../../lib/input/fields.js'

/**
 * @typedef {import('../recording/node-tracker.js').NodeTracker} Nodes
 * @typedef {ReturnType<typeof import('../recording/namespace-recorders.js').createDeliveries>} Deliveries
 * @typedef {ReturnType<typeof import('../traffic/replies.js').createReplies>} Replies
 * @typedef {NonNullable<ReturnType<typeof import('../traffic/scenario-hooks.js').createHookRunner>>} Hooks
 * @typedef {ReturnType<typeof import('../sessions/login.js').createLogins>} Logins
 */

/**
 * The engines' connect error, counted, then a refusal's new login (a refused CONNECT's, then a new connect).
 * @param {import('../engines/types.js').SwarmEvents} events
 * @param {Logins} logins
 * @param {(i: number) => void} reconnect
 * @returns {import('../engines/types.js').SwarmEvents['connectError']}
 */
export function refusedLogsIn (events, logins, reconnect) {
  return (i, reason, nsp) => {
    events.connectError(i, reason, nsp)
    logins.refused(i, reason, nsp, () => reconnect(i))
  }
}

/**
 * Client i's connection is up: with --node-from cookie:NAME, its node is the balancer's cookie
 * in its jar (set by the handshake's answer, or kept from before when the balancer left it on
 * the node it named).
 * @param {Nodes} nodes
 * @param {number} i
 * @param {import('../engines/types.js').EnginePool} pool
 */
export function nodeConnected (nodes, i, pool) {
  nodes.connected(i)
  if (nodes.from.kind === 'cookie') nodes.learn(i, pool.cookieOf?.(i, nodes.from.name) ?? null)
}

/**
 * With --node-from event:NAME[.path], the app's event naming a client's node goes to the node
 * tracker, never to the recorder (it is no broadcast); every other event goes on.
 * @param {Nodes | null} nodes
 * @param {(i: number, k: number, event: string, args: unknown[]) => void} next
 * @returns {(i: number, k: number, event: string, args: unknown[]) => void}
 */
export function routeNodeEvent (nodes, next) {
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
 * @param {Deliveries} recorder
 * @param {Hooks} hooks
 * @returns {(i: number, k: number, event: string, args: unknown[]) => void}
 */
export function routeToHooks (measured, recorder, hooks) {
  const all = measured.includes('*')
  const wanted = new Set(measured)
  return (i, k, event, args) => {
    if (all || wanted.has(event)) recorder.receive(i, k, event, args)
    hooks.onEvent(i, k, event, args)
  }
}

/**
 * The tracker's message handler with replies looked for first (--reply-event, a hook's
 * emitAndWait); without either, `next` itself. A reply event goes on only when it is measured
 * (--event) or a scenario's onEvent sees every event.
 * @param {Replies} replies
 * @param {string[]} measured
 * @param {Hooks | null} hooks
 * @param {(i: number, k: number, event: string, args: unknown[]) => void} next
 */
export function routeReplies (replies, measured, hooks, next) {
  if (hooks === null && !replies.waits) return next
  const all = measured.includes('*') || hooks?.wantsEvents === true
  const wanted = new Set(measured)
  return replies.route(next, (event) => all || wanted.has(event))
}
