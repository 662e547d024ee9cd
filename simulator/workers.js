/**
 * `--workers K`: one simulator spread over K child processes (simulator children, each with
 * its share of the clients, options and results over IPC: spawn.js), so one command passes the per-process file-descriptor cap and uses
 * every core. Child processes, not worker threads: the fd limit is per process. The results
 * are merged into one SimResult; relative delays stay relative to each worker's own first
 * receipt (their histograms are merged, their origins are not shared).
 */
import { CODES, IoswarmError } from '../lib/errors.js'
import { encode, mergeEncoded, percentileCurve, summarize } from '../lib/histogram.js'
import { mergeReasonCounts } from '../lib/reasons.js'
import { checkPreflight, pollingShareOf, readLimits, upgradeShareOf } from './preflight.js'
import { forkSimulator } from './spawn.js'

export { MAX_WORKERS } from '../lib/cli-options/simulate.js'

/**
 * Runs K simulator children and merges their results. A worker that dies is named in
 * `workers.list` (exit code or signal, its last stderr line), and the messages it had closed
 * before it died are merged with the others'; only when every worker dies does this throw.
 * @param {import('./options.js').SimOptions & { id: string }} options normalised options of the whole simulator
 * @param {number} count worker processes
 * @param {{ link?: import('./collector-link.js').CollectorLinkOptions | null, signal?: AbortSignal, limits?: import('./preflight.js').Limits, onWorkerStderr?: (k: number, text: string) => void, onPreflight?: (preflight: import('./preflight.js').Preflight) => void }} [hooks] link: each worker reports to this collector on its own
 * @returns {Promise<import('../lib/schema.js').SimResult>}
 */
export async function runWorkers (options, count, hooks = {}) {
  if (count > options.clients) throw new IoswarmError(CODES.INVALID_OPTION, `--workers ${count} is more than --clients ${options.clients}`, { flag: '--workers' })
  const preflight = checkPreflight({
    clients: options.clients, processes: count, destinations: options.urls.length, engine: options.engine, pollingShare: pollingShareOf(options.transport), upgradeShare: upgradeShareOf(options.transport)
  }, hooks.limits ?? readLimits())
  hooks.onPreflight?.(preflight)
  const children = Array.from({ length: count }, (_, k) => {
    const share = Math.floor(options.clients / count) + (k < options.clients % count ? 1 : 0)
    return forkSimulator({ ...options, clients: share, id: `${options.id}-w${k + 1}` }, {
      link: hooks.link ?? null,
      forwardMessages: true,
      onStderr: (text) => hooks.onWorkerStderr?.(k + 1, text)
    })
  })
  // Each child is stopped by its own pid; it flushes and sends its result.
  const stop = () => { for (const c of children) c.stop() }
  hooks.signal?.addEventListener('abort', stop, { once: true })
  try {
    const outcomes = await Promise.all(children.map((c) => c.outcome))
    const living = outcomes.flatMap((o) => (o.result ? [o.result] : []))
    if (living.length === 0) {
      throw new IoswarmError(outcomes[0].error?.exitCode === 2 ? CODES.INVALID_OPTION : CODES.SERVER, `every worker failed: ${outcomes.map((o, k) => `pid ${children[k].pid} ${describeExit(o, children[k].stderr())}`).join('; ')}`)
    }
    const lost = children.flatMap((c, k) => (outcomes[k].result ? [] : c.messages))
    const merged = mergeWorkerResults(living, options.id, lost)
    merged.preflight = preflight
    merged.options = { ...merged.options, workers: count }
    if (merged.workers) {
      merged.workers.list = children.map((c, k) => {
        const o = outcomes[k]
        const own = merged.workers?.list.find((w) => w.id === c.id)
        return own
          ? { ...own, exitCode: o.exitCode }
          : { id: c.id, pid: c.pid, clients: { target: 0, connected: 0, failed: 0 }, rssMaxBytes: 0, exitCode: o.exitCode, died: describeExit(o, c.stderr()), messagesBeforeDeath: c.messages.length }
      })
    }
    return merged
  } finally {
    hooks.signal?.removeEventListener('abort', stop)
    stop()
  }
}

/**
 * @param {import('./spawn.js').SimulatorOutcome} outcome
 * @param {string} stderr
 */
function describeExit (outcome, stderr) {
  const how = outcome.signal ? `killed by ${outcome.signal}` : `exit ${outcome.exitCode}`
  const why = outcome.error?.message ?? stderr.trim().split('\n').at(-1) ?? ''
  return why ? `${how}: ${why}` : how
}

/** @typedef {import('../lib/schema.js').SimResult} SimResult */

export const RELATIVE_NOTE = 'relative delays are relative to the first receipt in each worker process; their histograms are merged'

/**
 * Merges worker results into one SimResult: counts summed, histograms merged, messages by key.
 * @param {SimResult[]} results
 * @param {string} id the merged simulator's id
 * @param {import('../lib/schema.js').MessageReport[]} [lostWorkerMessages] what workers that died had closed before
 * @returns {SimResult}
 */
export function mergeWorkerResults (results, id, lostWorkerMessages = []) {
  const [first] = results
  const clients = results.map((r) => r.clients)
  const connectTime = mergeEncoded(clients.map((c) => c.connectTime.histogram))
  /** @type {Map<string, { url: string, target: number, connected: number, everConnected: number }>} */
  const destinations = new Map()
  for (const d of results.flatMap((r) => r.destinations ?? [])) {
    const into = destinations.get(d.url) ?? { url: d.url, target: 0, connected: 0, everConnected: 0 }
    destinations.set(d.url, { url: d.url, target: into.target + d.target, connected: into.connected + d.connected, everConnected: into.everConnected + d.everConnected })
  }
  const samples = results.flatMap((r) => r.health.samples).sort((a, b) => a.t - b.t)
  const summaries = results.map((r) => r.health.summary)
  const maxOf = (/** @type {(s: import('../lib/schema.js').HealthSummary) => number} */ pick) => Math.max(...summaries.map(pick))
  return {
    ...first,
    id,
    pid: process.pid,
    startedAt: Math.min(...results.map((r) => r.startedAt)),
    endedAt: Math.max(...results.map((r) => r.endedAt)),
    options: { ...first.options, id, clients: sumOf(clients, (c) => c.target) },
    clients: {
      target: sumOf(clients, (c) => c.target),
      connected: sumOf(clients, (c) => c.connected),
      failed: sumOf(clients, (c) => c.failed),
      everConnected: sumOf(clients, (c) => c.everConnected),
      byTransport: sumRecords(clients.map((c) => c.byTransport)),
      attempts: sumOf(clients, (c) => c.attempts),
      reconnects: sumOf(clients, (c) => c.reconnects),
      disconnects: mergeReasonCounts(clients.map((c) => c.disconnects)),
      errors: mergeReasonCounts(clients.map((c) => c.errors)),
      connectTime: { ...summarize(connectTime), histogram: encode(connectTime), curve: percentileCurve(connectTime) }
    },
    destinations: [...destinations.values()],
    messages: mergeMessages([...results.flatMap((r) => r.messages), ...lostWorkerMessages]),
    messageRollups: mergeRollups(results.flatMap((r) => r.messageRollups ?? [])),
    recorder: mergeRecorderInfo(results.flatMap((r) => (r.recorder ? [r.recorder] : []))),
    health: {
      samples,
      summary: {
        loopDelayP99MaxMs: maxOf((s) => s.loopDelayP99MaxMs),
        cpuPctMax: maxOf((s) => s.cpuPctMax),
        eluMax: maxOf((s) => s.eluMax),
        rssMaxBytes: maxOf((s) => s.rssMaxBytes),
        saturatedSeconds: maxOf((s) => s.saturatedSeconds)
      }
    },
    timeline: mergeTimelines(results.map((r) => r.timeline)),
    workers: {
      note: RELATIVE_NOTE,
      list: results.map((r) => ({ id: r.id, pid: r.pid, clients: { target: r.clients.target, connected: r.clients.connected, failed: r.clients.failed }, rssMaxBytes: r.health.summary.rssMaxBytes, exitCode: null }))
    }
  }
}

/**
 * @template T
 * @param {T[]} list
 * @param {(item: T) => number} pick
 */
function sumOf (list, pick) {
  return list.reduce((sum, item) => sum + pick(item), 0)
}

/**
 * Sums records key by key, numbers at any depth (byTransport's { target, connected, upgraded }).
 * @template {Record<string, any>} T
 * @param {T[]} records
 * @returns {T}
 */
function sumRecords (records) {
  /** @type {Record<string, any>} */
  const out = {}
  for (const record of records) {
    for (const [key, value] of Object.entries(record)) {
      out[key] = typeof value === 'number' ? (out[key] ?? 0) + value : sumRecords([out[key] ?? {}, value])
    }
  }
  return /** @type {T} */ (out)
}

/**
 * @param {import('../lib/schema.js').MessageReport[]} reports
 * @returns {import('../lib/schema.js').MessageReport[]}
 */
function mergeMessages (reports) {
  return [...groupBy(reports, (r) => r.key).values()].map((group) => ({
    ...group[0],
    ...mergeDeliveries(group),
    // Each worker drains its own clients: the simulator's floor is its slowest worker's.
    floor: group.reduce((top, m) => (m.floor && (!top || m.floor.cpuMs > top.cpuMs) ? m.floor : top), group[0].floor)
  })).sort((a, b) => a.firstAt - b.firstAt)
}

/**
 * Merges the workers' rollups of the same (event, round). A message a worker kept whole and
 * another rolled up is counted in both lists (each holds only that worker's clients).
 * @param {import('../lib/schema.js').MessageRollup[]} rollups
 * @returns {import('../lib/schema.js').MessageRollup[]}
 */
function mergeRollups (rollups) {
  return [...groupBy(rollups, (r) => `${r.event}\u0000${r.round}`).values()].map((group) => ({
    ...group[0],
    ...mergeDeliveries(group),
    messages: Math.max(...group.map((m) => m.messages)),
    lastAt: Math.max(...group.map((m) => m.lastAt))
  })).sort((a, b) => a.firstAt - b.firstAt)
}

/**
 * What message reports and rollups share, merged over the workers: counts summed, histograms merged.
 * @param {(import('../lib/schema.js').MessageReport | import('../lib/schema.js').MessageRollup)[]} group
 */
function mergeDeliveries (group) {
  const relative = mergeEncoded(group.map((m) => m.relative.histogram))
  const absolutes = group.flatMap((m) => (m.absolute ? [m.absolute] : []))
  const absolute = mergeEncoded(absolutes.map((a) => a.histogram))
  return {
    firstAt: Math.min(...group.map((m) => m.firstAt)),
    received: sumOf(group, (m) => m.received),
    expected: sumOf(group, (m) => m.expected),
    missing: sumOf(group, (m) => m.missing),
    duplicates: sumOf(group, (m) => m.duplicates),
    late: sumOf(group, (m) => m.late),
    relative: { ...summarize(relative), histogram: encode(relative) },
    absolute: absolutes.length === 0 ? null : { ...summarize(absolute), histogram: encode(absolute), negative: sumOf(absolutes, (a) => a.negative) }
  }
}

/**
 * @param {import('../lib/schema.js').RecorderInfo[]} infos
 * @returns {import('../lib/schema.js').RecorderInfo | undefined}
 */
function mergeRecorderInfo (infos) {
  if (infos.length === 0) return undefined
  return {
    maxOpen: infos[0].maxOpen,
    keepClosed: infos[0].keepClosed,
    rolledUpMessages: Math.max(...infos.map((i) => i.rolledUpMessages)),
    untrackedMessages: Math.max(...infos.map((i) => i.untrackedMessages)),
    untrackedReceipts: sumOf(infos, (i) => i.untrackedReceipts),
    lateReceipts: sumOf(infos, (i) => i.lateReceipts)
  }
}

/**
 * @template T
 * @param {T[]} items
 * @param {(item: T) => string} keyOf
 * @returns {Map<string, T[]>} groups in order of first appearance
 */
function groupBy (items, keyOf) {
  /** @type {Map<string, T[]>} */
  const groups = new Map()
  for (const item of items) {
    const key = keyOf(item)
    const group = groups.get(key)
    if (group === undefined) groups.set(key, [item])
    else group.push(item)
  }
  return groups
}

/**
 * Sums the workers' per-second points by wall-clock second.
 * @param {import('../lib/schema.js').TimelinePoint[][]} timelines
 */
function mergeTimelines (timelines) {
  /** @type {Map<number, import('../lib/schema.js').TimelinePoint>} */
  const bySecond = new Map()
  for (const point of timelines.flat()) {
    const second = Math.round(point.t / 1000)
    const into = bySecond.get(second)
    bySecond.set(second, into
      ? { ...sumRecords([into, point]), t: into.t, messages: Math.max(into.messages, point.messages) }
      : { ...point, byTransport: { ...point.byTransport } })
  }
  return [...bySecond.values()].sort((a, b) => a.t - b.t)
}
