/**
 * Collector writes over the Node IPC channel, for simulators forked locally by a runner
 * that holds the in-memory collector (no Redis). The child gets an object with the
 * collector's write methods; the parent forwards them to its collector. The channel is
 * not trusted blindly: only write methods are forwarded, with an array of arguments.
 */
import { CODES, IoswarmError } from '../../lib/errors.js'
import { plain } from '../../lib/text/format.js'
import { WRITE_METHODS } from './types.js'

/** The `type` of collector messages on the IPC channel (other messages are left alone). */
const IPC_MESSAGE_TYPE = 'ioswarm:collector'

/**
 * @typedef {import('./types.js').CollectorWriter} CollectorWriter
 * @typedef {{ type: typeof IPC_MESSAGE_TYPE, method: string, args: unknown[] }} IpcCollectorMessage
 * @typedef {{ send?: (message: unknown, callback: (err: Error | null) => void) => boolean }} IpcEndpoint
 */

/**
 * The collector's write methods, sent to the parent; each resolves once its message is sent.
 * @param {IpcEndpoint} [proc] the process with the IPC channel (this one by default)
 * @returns {CollectorWriter}
 */
export function createIpcWriter (proc = process) {
  /** @param {string} method @param {unknown[]} args */
  const send = (method, args) => new Promise((resolve, reject) => {
    if (typeof proc.send !== 'function') {
      reject(new IoswarmError(CODES.COLLECTOR, 'no IPC channel to the runner: this process was not forked with one'))
      return
    }
    proc.send({ type: IPC_MESSAGE_TYPE, method, args }, (err) => {
      if (err) reject(new IoswarmError(CODES.COLLECTOR, `could not send ${method} to the runner over IPC: ${err.message}`, { cause: err }))
      else resolve(undefined)
    })
  })
  const writer = Object.fromEntries(WRITE_METHODS.map((method) =>
    [method, (/** @type {unknown[]} */ ...args) => send(method, args)]))
  return /** @type {CollectorWriter} */ (/** @type {unknown} */ (writer))
}

/**
 * Forwards a forked child's collector writes to a collector.
 * @param {import('node:child_process').ChildProcess} child
 * @param {CollectorWriter} collector
 * @param {{ onError?: (err: Error, method: string) => void }} [options] failed or refused writes, with the method the child asked for (default: ignored)
 * @returns {{ idle: () => Promise<void>, detach: () => void }} idle: every forwarded write has settled
 */
export function attachIpcReader (child, collector, { onError = () => {} } = {}) {
  /** @type {Set<Promise<void>>} */
  const pending = new Set()
  /** @param {unknown} message */
  const onMessage = (message) => {
    const m = /** @type {Partial<IpcCollectorMessage> | null} */ (message)
    if (!m || typeof m !== 'object' || m.type !== IPC_MESSAGE_TYPE) return
    const method = /** @type {keyof CollectorWriter} */ (m.method)
    if (!WRITE_METHODS.includes(method) || !Array.isArray(m.args)) {
      const named = JSON.stringify(String(m.method)).slice(0, 80)
      onError(new IoswarmError(CODES.COLLECTOR, `refused a collector message from child ${child.pid}: ${named} is not a collector write method`),
        String(m.method).slice(0, 80))
      return
    }
    const call = /** @type {(...args: unknown[]) => Promise<void>} */ (collector[method])
    const done = Promise.resolve()
      .then(() => call.apply(collector, /** @type {unknown[]} */ (m.args)))
      .catch((err) => onError(err, method))
      .finally(() => pending.delete(done))
    pending.add(done)
  }
  child.on('message', onMessage)
  return {
    async idle () {
      // Loop: a settled write may not start another, but stay bounded anyway.
      for (let i = 0; i < 1000 && pending.size > 0; i++) await Promise.allSettled([...pending])
    },
    detach () {
      child.off('message', onMessage)
    }
  }
}

/**
 * The failed collector writes of a run's simulator children over IPC, by simulator: the first
 * of each said at once (which simulator, which write, why), every one counted for the result's
 * `ipcErrors`. Reports refused past the bound are not among them: the collector counts those
 * (`reportsRefused`).
 * @param {(line: string) => void} say
 */
export function createIpcErrorBook (say) {
  /** @type {Map<string, import('../../lib/schema/result-schema.js').IpcErrors['bySimulator'][string]>} */
  const bySimulator = new Map()
  return {
    /**
     * The reader's onError for one simulator.
     * @param {string} simId
     * @returns {(err: Error, method: string) => void}
     */
    onError: (simId) => (err, method) => {
      if (/** @type {{ refused?: unknown }} */ (err).refused === true) return
      const seen = bySimulator.get(simId)
      if (seen) {
        seen.count++
        return
      }
      bySimulator.set(simId, { count: 1, method, message: err.message })
      say(`WARNING: simulator ${simId}: its collector write ${method} over IPC failed: ${err.message} (what it carried is lost; further failures are counted)`)
    },
    /** @returns {import('../../lib/schema/result-schema.js').IpcErrors | null} null without any */
    record () {
      if (bySimulator.size === 0) return null
      const total = [...bySimulator.values()].reduce((sum, e) => sum + e.count, 0)
      return { total, bySimulator: Object.fromEntries([...bySimulator].map(([id, e]) => [id, { ...e }])) }
    }
  }
}

/**
 * The warning line for a distribution's failed IPC writes, or null without any.
 * @param {{ name: string, ipcErrors?: import('../../lib/schema/result-schema.js').IpcErrors }} d
 */
export function ipcErrorsWarning (d) {
  const e = d.ipcErrors
  if (!e || e.total === 0) return null
  const bySim = Object.entries(e.bySimulator).map(([id, s]) => `${plain(id)} ${s.count} (first: ${plain(s.method)}: ${plain(s.message)})`).join('; ')
  return `WARNING: ${plain(d.name)}: ${e.total} collector writes of the simulators over IPC failed and are missing from the result: ${bySim}`
}
