/**
 * The entry of a simulator child process, forked by `ioswarm run` (its local simulators) and
 * by `simulate --workers` (its worker processes); see spawn.js for the parent's side. The
 * protocol, all over the Node IPC channel (never argv or stdout):
 *
 *   parent → child  { type: 'ioswarm:simulate', options, link, forwardMessages, server }   once (server: the
 *                   parent's inspection, or null: the child inspects)
 *                   { type: 'ioswarm:stop' }                       stop gracefully and flush
 *                   { type: 'ioswarm:resize', clients, rampMs, emitIntervalMs }    grow or shrink the swarm (up to options.maxClients;
 *                                                  none: the size stays), and set the emit rate when emitIntervalMs is a number
 *   child → parent  { type: 'ioswarm:collector', method, args }    collector writes (link.ipc)
 *                   { type: 'ioswarm:message', report }            each closed message (forwardMessages)
 *                   { type: 'ioswarm:result', result, delivery }   the final result
 *                   { type: 'ioswarm:error', error: { code, message, exitCode } }
 *                   { type: 'ioswarm:resized', clients, error }    each resize, in order (error: null or why not)
 *
 * SIGTERM and SIGINT stop the swarm gracefully too (pm2, a runner's stop, Ctrl-C on a
 * terminal); a second one exits at once, and so does one before the simulate message.
 */
import { EXIT, IoswarmError } from '../../lib/errors.js'
import { CHILD_MESSAGE } from './child-messages.js'
import { runLinkedSwarm } from './linked.js'
import { holdNoticeLine, holdNotices } from '../swarm/ramp-guard.js'

if (typeof process.send !== 'function') {
  process.stderr.write('simulator/processes/child.js is started by ioswarm over IPC (child_process.fork), not by hand: use `ioswarm simulate`\n')
  process.exit(EXIT.USAGE)
}

const stopper = new AbortController()
let signals = 0
/** A simulate message came: from then on a signal stops the swarm and flushes its result. */
let simulating = false
const onSignal = () => {
  // Before its swarm there is nothing to flush, and the IPC channel alone would keep it alive.
  if (++signals > 1 || !simulating) process.exit(EXIT.INTERRUPTED)
  stopper.abort()
}
process.on('SIGTERM', onSignal)
process.on('SIGINT', onSignal)
// The parent is gone (killed): stop and flush what can be flushed, rather than run on orphaned.
process.on('disconnect', () => stopper.abort())

/**
 * @param {unknown} message
 * @returns {Promise<void>}
 */
function send (message) {
  return new Promise((resolve) => {
    if (!process.connected) return resolve()
    process.send?.(message, () => resolve())
  })
}

/** @type {import('../swarm/resize.js').SwarmResize | null} */
let resize = null

/**
 * @param {{ clients: unknown, rampMs?: unknown, emitIntervalMs?: unknown }} message
 * @returns {string | null} why it was not done
 */
function resizeSwarm ({ clients, rampMs, emitIntervalMs }) {
  if (resize === null) return 'the swarm has not started yet'
  try {
    if (emitIntervalMs !== undefined && !(typeof emitIntervalMs === 'number' && emitIntervalMs >= 1)) {
      return `emitIntervalMs must be 1 ms or more, got ${JSON.stringify(emitIntervalMs)}`
    }
    resize(clients === undefined || clients === null ? undefined : Number(clients), typeof rampMs === 'number' ? rampMs : undefined,
      typeof emitIntervalMs === 'number' ? emitIntervalMs : undefined)
    return null
  } catch (error) {
    return /** @type {Error} */ (error).message
  }
}

/**
 * Writes a line to stderr now and then while the ramp is held (holdNotices).
 * @param {string} id
 * @returns {(progress: import('../swarm/swarm.js').Progress) => void}
 */
function noticeHolds (id) {
  const notice = holdNotices()
  return (progress) => {
    const line = notice(progress)
    if (line !== null) process.stderr.write(`${holdNoticeLine(id, line)}\n`)
  }
}

process.on('message', async (/** @type {any} */ message) => {
  if (message?.type === CHILD_MESSAGE.STOP) return stopper.abort()
  if (message?.type === CHILD_MESSAGE.RESIZE) return send({ type: CHILD_MESSAGE.RESIZED, clients: message.clients, error: resizeSwarm(message) })
  if (message?.type !== CHILD_MESSAGE.SIMULATE) return
  simulating = true
  try {
    const { result, delivery } = await runLinkedSwarm(message.options, message.link ?? null, {
      signal: stopper.signal,
      server: message.server ?? undefined,
      onResizable: (fn) => { resize = fn },
      // --ramp-guard: a worker has no progress line; its parent shows its stderr lines.
      onProgress: message.options.rampGuard ? noticeHolds(message.options.id) : undefined,
      onMessage: message.forwardMessages ? (report) => { send({ type: CHILD_MESSAGE.MESSAGE, report }) } : undefined
    })
    await send({ type: CHILD_MESSAGE.RESULT, result, delivery })
  } catch (error) {
    const err = /** @type {Error} */ (error)
    const code = error instanceof IoswarmError ? error.code : undefined
    const exitCode = error instanceof IoswarmError ? error.exitCode : EXIT.RUNTIME
    await send({ type: CHILD_MESSAGE.ERROR, error: { code, message: err?.message ?? String(error), exitCode } })
    process.exitCode = exitCode
  }
  if (process.connected) process.disconnect()
})
