/**
 * `--workers K`: one simulator spread over K child processes (simulator children, each with
 * its share of the clients, options and results over IPC: spawn.js), so one command passes the per-process file-descriptor cap and uses
 * every core. Child processes, not worker threads: the fd limit is per process. The results
 * are merged into one SimResult; relative delays stay relative to each worker's own first
 * receipt (their histograms are merged, their origins are not shared).
 */
import { CODES, IoswarmError } from '../../lib/errors.js'
import { mergeRefused, mergeSimResults } from '../../results/index.js'
import { checkPreflight, needOf, readLimits } from '../inspection/preflight.js'
import { partitionSwarm } from './partition.js'
import { steeredHooks } from '../../lib/steering.js'
import { steerWorkers } from './steering.js'
import { forkSimulator } from './spawn.js'
import { inspectServer } from '../inspection/inspect.js'
import { followWorkers } from '../reporting/live-metrics.js'
import { labelPhases, mergePhases, rampCutWarning } from '../phase-options.js'

export { RELATIVE_NOTE } from '../../results/index.js'

/**
 * @typedef {object} WorkerHooks
 * @property {import('../reporting/collector-link.js').CollectorLinkOptions | null} [link] each worker reports to this collector on its own
 * @property {AbortSignal} [signal]
 * @property {import('../inspection/preflight.js').Limits} [limits]
 * @property {(k: number, text: string) => void} [onWorkerStderr]
 * @property {(k: number, report: import('../../lib/schema/result-schema.js').MessageReport) => void} [onWorkerMessage]
 * @property {(info: { preflight: import('../inspection/preflight.js').Preflight, server: ServerInfo }) => void} [onStart] once inspected, before any worker
 * @property {import('../../results/metrics/feed.js').MetricsSink | null} [metrics] fed with every worker's reports and
 *   samples while they run (the parent's `--metrics-port`, its `--dashboard`)
 * @property {(row: import('../../lib/schema/result-schema.js').WindowResult) => void} [onWindow] with `metrics` and without `link`: the workers'
 *   windows merged as they close (the result's windows are merged again from the workers' results)
 * @property {import('../../lib/steering.js').Steering} [steering] `simulate`'s actions (lib/steering.js): its stop stops the workers as the
 *   signal does, clients and emit-rate reach each worker (its share), its timeline is the result's `actions`
 * @typedef {import('../../lib/schema/result-schema.js').SimResult['server']} ServerInfo
 */

/**
 * Runs K simulator children and merges their results. The server is inspected once, here, and
 * handed to every worker (a diagnosis is said once, the server sees one look, not K). A worker
 * that dies is named in `workers.list` (exit code or signal, its last stderr line), and the
 * messages it had closed before it died are merged with the others'; only when every worker
 * dies does this throw.
 * @param {import('../sim-options.js').SimOptions & { id: string }} options normalised options of the whole simulator
 * @param {number} count worker processes
 * @param {WorkerHooks} [hooks]
 * @returns {Promise<import('../../lib/schema/result-schema.js').SimResult>}
 */
export async function runWorkers (options, count, hooks = {}) {
  hooks = steeredHooks(hooks)
  if (count > options.clients) {
    throw new IoswarmError(CODES.INVALID_OPTION, `--workers ${count} is more than --clients ${options.clients}`, { flag: '--workers' })
  }
  const preflight = checkPreflight(needOf(options, count), hooks.limits ?? readLimits())
  const server = await inspectServer(options, { signal: hooks.signal })
  const rampCut = rampCutWarning({ clients: options.clients, rampMs: server.rampMs, rampSource: server.rampSource, durationMs: options.durationMs })
  if (rampCut) preflight.warnings.push(rampCut)
  hooks.onStart?.({ preflight, server })
  const ids = Array.from({ length: count }, (_, k) => `${options.id}-w${k + 1}`)
  const view = hooks.metrics
    ? await followWorkers({ metrics: hooks.metrics, link: hooks.link ?? null, id: options.id, workerIds: ids, onWindow: hooks.onWindow })
    : null
  // Each worker's clients keep their index in the whole run ({{i}}, feeder rows) and the
  // whole's emitters; workers share the host's source addresses: a slice of the port range each.
  const parts = partitionSwarm(options, count)
  const children = ids.map((id, k) => {
    const { index, rooms, ...own } = parts[k]
    const child = forkSimulator({ ...options, ...own, id }, {
      link: view?.link ?? hooks.link ?? null,
      server,
      forwardMessages: true,
      onMessage: (report) => hooks.onWorkerMessage?.(k + 1, report),
      onStderr: (text) => hooks.onWorkerStderr?.(k + 1, text)
    })
    view?.attach(child.process)
    return child
  })
  // Each child is stopped by its own pid; it flushes and sends its result.
  const stop = () => { for (const c of children) c.stop() }
  hooks.signal?.addEventListener('abort', stop, { once: true })
  const unsteer = steerWorkers(hooks.steering, options, children)
  try {
    const outcomes = await Promise.all(children.map((c) => c.outcome))
    const living = outcomes.flatMap((o) => (o.result ? [o.result] : []))
    if (living.length === 0) {
      const exits = outcomes.map((o, k) => `pid ${children[k].pid} ${describeExit(o, children[k].stderr())}`).join('; ')
      throw new IoswarmError(outcomes[0].error?.exitCode === 2 ? CODES.INVALID_OPTION : CODES.SERVER, `every worker failed: ${exits}`)
    }
    const lost = children.flatMap((c, k) => (outcomes[k].result ? [] : c.messages))
    const merged = mergeSimResults(living, options.id, lost)
    merged.preflight = preflight
    Object.assign(merged, mergePhases(living))
    // The merged windows labelled with the merged steps (the merge keeps no label).
    merged.windows = labelPhases(merged.windows, merged.phases)
    merged.options = { ...merged.options, workers: count }
    unsteer()
    const actions = hooks.steering?.timeline() ?? []
    if (actions.length > 0) merged.actions = actions
    const refused = mergeRefused(living.map((r) => r.reportsRefused))
    if (refused) merged.reportsRefused = refused
    if (merged.workers) {
      merged.workers.list = children.map((c, k) => {
        const o = outcomes[k]
        const own = merged.workers?.list.find((w) => w.id === c.id)
        return own
          ? { ...own, exitCode: o.exitCode }
          : {
              id: c.id,
              pid: c.pid,
              clients: { target: 0, connected: 0, failed: 0 },
              rssMaxBytes: 0,
              exitCode: o.exitCode,
              died: describeExit(o, c.stderr()),
              messagesBeforeDeath: c.messages.length
            }
      })
    }
    return merged
  } finally {
    unsteer()
    hooks.signal?.removeEventListener('abort', stop)
    stop()
    await view?.stop().catch(() => {})
  }
}

/**
 * @param {import('./spawn.js').SimulatorOutcome} outcome
 * @param {string} stderr
 */
function describeExit (outcome, stderr) {
  const how = outcome.signal ? `killed by ${outcome.signal}` : `exit ${outcome.exitCode}`
  // Exit 0 is a worker that finished and sent its result: that it never arrived is the parent's
  // loss, not the worker's failure, and must read as such.
  const why = outcome.error?.message ?? (stderr.trim().split('\n').at(-1) ||
    (outcome.exitCode === 0 ? 'it finished, but its result never reached this process' : ''))
  return why ? `${how}: ${why}` : how
}
