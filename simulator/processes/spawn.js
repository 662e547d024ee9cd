/**
 * The parent's side of a simulator child (simulator/processes/child.js): fork it, send it normalised
 * options over IPC, and get its closed messages and its result back the same way. Used by
 * `ioswarm run` for its local simulators and by `simulate --workers` for its workers.
 */
import { fileURLToPath } from 'node:url'
import { forkChild } from '../../lib/child.js'
import { CHILD_MESSAGE } from './child-messages.js'

const CHILD = fileURLToPath(new URL('./child.js', import.meta.url))

/** The message types (child-messages.js), for the parent's side. */

/**
 * @typedef {import('../../lib/child.js').Child & {
 *   id: string,
 *   outcome: Promise<SimulatorOutcome>,
 *   messages: import('../../lib/schema/result-schema.js').MessageReport[],
 *   failure: () => string | null,
 *   resize: (clients: number | undefined, rampMs?: number, emitIntervalMs?: number) => Promise<void>
 * }} SimulatorChild
 * @typedef {object} SimulatorOutcome
 * @property {import('../../lib/schema/result-schema.js').SimResult | null} result null when the child died before sending it
 * @property {{ undelivered: number, lastError: string | null } | null} delivery
 * @property {{ code?: string, message: string, exitCode: number } | null} error the error it reported
 * @property {number | null} exitCode
 * @property {string | null} signal
 */

/**
 * @param {import('../sim-options.js').SimOptions & { id: string }} options normalised options and the child's id
 * @param {object} [spec]
 * @param {import('../reporting/collector-link.js').CollectorLinkOptions | null} [spec.link] where it reports (null: nowhere)
 * @param {boolean} [spec.forwardMessages] send each closed message to the parent too (kept in `messages`)
 * @param {(report: import('../../lib/schema/result-schema.js').MessageReport) => void} [spec.onMessage] each forwarded message, as it arrives
 * @param {(text: string) => void} [spec.onStderr]
 * @param {Record<string, string>} [spec.env] added to its environment (what {{env.NAME}} templates read: secrets off its options)
 * @param {import('../../lib/schema/result-schema.js').SimResult['server'] | null} [spec.server] the server as the parent inspected it (null: the child inspects)
 * @returns {SimulatorChild}
 */
export function forkSimulator (options, { link = null, forwardMessages = false, onMessage, onStderr, env, server = null } = {}) {
  // Its id as the only argument: a label for `ps` and `top`; everything else comes over IPC.
  const child = forkChild(CHILD, [options.id], { onStderr, env })
  /** @type {import('../../lib/schema/result-schema.js').MessageReport[]} */
  const messages = []
  /** @type {SimulatorOutcome['result']} */
  let result = null
  /** @type {SimulatorOutcome['delivery']} */
  let delivery = null
  /** @type {SimulatorOutcome['error']} */
  let error = null
  /** Resizes sent and not yet answered, oldest first (the child answers each in order). */
  /** @type {{ resolve: () => void, reject: (error: Error) => void }[]} */
  const resizing = []
  child.process.on('message', (/** @type {any} */ m) => {
    if (m?.type === CHILD_MESSAGE.RESIZED) {
      const pending = resizing.shift()
      if (m.error) pending?.reject(new Error(m.error))
      else pending?.resolve()
    } else if (m?.type === CHILD_MESSAGE.MESSAGE) {
      messages.push(m.report)
      onMessage?.(m.report)
    } else if (m?.type === CHILD_MESSAGE.RESULT) ({ result, delivery } = m)
    else if (m?.type === CHILD_MESSAGE.ERROR) error = m.error
  })
  child.process.send({ type: CHILD_MESSAGE.SIMULATE, options, link, forwardMessages, server })
  const outcome = child.exited.then(({ code, signal }) => ({ result, delivery, error, exitCode: code, signal }))
  // What it said last: the error it reported, else its last stderr line.
  const failure = () => error?.message ?? (child.stderr().trim().split('\n').at(-1) || null)
  child.exited.then(() => { for (const p of resizing.splice(0)) p.reject(new Error(`simulator ${options.id} exited: ${failure() ?? 'no reason given'}`)) })
  /**
   * Grows or shrinks its swarm (up to options.maxClients); resolves once the child took it.
   * @param {number | undefined} clients undefined: the size stays (a new emit rate only)
   * @param {number} [rampMs] spread new clients over this window (default: the swarm's ramp)
   * @param {number} [emitIntervalMs] each emitter's mean interval from now on (capacity --vary emit-rate)
   */
  const resize = (clients, rampMs, emitIntervalMs) => new Promise((resolve, reject) => {
    if (!child.running() || !child.process.connected) return reject(new Error(`simulator ${options.id} is not running`))
    resizing.push({ resolve: () => resolve(undefined), reject })
    const size = clients === undefined ? {} : { clients }
    child.process.send({ type: CHILD_MESSAGE.RESIZE, ...size, rampMs, ...(emitIntervalMs === undefined ? {} : { emitIntervalMs }) })
  })
  return { ...child, id: options.id, outcome, messages, failure, resize }
}
