/**
 * The run's live stream: each second's merged figures (results/dashboard/second-fold.js) and
 * the run's other events (its log lines, windows, actions, the end) as plain JSON events, kept
 * bounded for a page that opens late, handed to each subscriber (the dashboard's pages) and
 * appended to an NDJSON log beside result.json. One stream, whoever reads it.
 */
import { createWriteStream } from 'node:fs'
import { followCollector } from '../metrics/feed.js'
import { thinSeconds } from '../report/charts/charts-live.js'
import { createSecondFold } from './second-fold.js'

/** Seconds kept for a late page: past this, the older half is thinned (every other second dropped). */
export const MAX_SECONDS = 1200
/** Other events kept for a late page (log lines, windows, actions): the newest. */
export const MAX_OTHER_EVENTS = 500

/**
 * @typedef {{ type: string, t?: number, at?: number } & Record<string, any>} StreamEvent
 * @typedef {ReturnType<typeof createLiveStream>} LiveStream
 */

/**
 * A fold as what a follower feeds (it has no use for the simulator list, the finals or the rounds).
 * @param {ReturnType<typeof createSecondFold>} fold
 * @returns {import('../metrics/feed.js').MetricsSink}
 */
function sinkOf (fold) {
  return { ...fold, observeSimulators () {}, observeFinals () {}, observeRounds () {} }
}

/**
 * @param {object} [options]
 * @param {string | null} [options.logFile] the NDJSON event log (appended as events come)
 * @param {Record<string, unknown>} [options.info] what the `hello` event says of the run (command, run id, …)
 * @param {number} [options.maxSeconds]
 */
export function createLiveStream ({ logFile = null, info = {}, maxSeconds = MAX_SECONDS } = {}) {
  /** @type {StreamEvent[]} */
  let seconds = []
  /** @type {StreamEvent[]} */
  const others = []
  /** @type {Set<(event: StreamEvent, line: string) => void>} */
  const subscribers = new Set()
  const hello = { type: 'hello', at: Date.now(), ...info }
  const log = logFile ? createWriteStream(logFile, { flags: 'a' }) : null
  /** @type {Error | null} */
  let logError = null
  log?.on('error', (error) => { logError = error })
  log?.write(`${JSON.stringify(hello)}\n`)
  let ended = false

  /** @param {StreamEvent} event */
  const push = (event) => {
    if (event.type === 'second') {
      seconds.push(event)
      if (seconds.length > maxSeconds) seconds = thinSeconds(seconds, maxSeconds)
    } else {
      others.push(event)
      if (others.length > MAX_OTHER_EVENTS) others.splice(0, others.length - MAX_OTHER_EVENTS)
    }
    // Serialised once, for the log and every page.
    const line = JSON.stringify(event)
    if (log && !logError) log.write(`${line}\n`)
    for (const cb of subscribers) cb(event, line)
  }

  return {
    push,
    /** The run so far, in order: hello, then the other events and the seconds by time. */
    history () {
      return [hello, ...[...others, ...seconds].sort((a, b) => (a.t ?? a.at ?? 0) - (b.t ?? b.at ?? 0))]
    },
    /** The newest second (or null). */
    last: () => seconds.at(-1) ?? null,
    /** Other events of a type so far (e.g. 'action', 'end'). @param {string} type */
    eventsOf: (type) => others.filter((e) => e.type === type),
    /**
     * Each event from now on, with its JSON text.
     * @param {(event: StreamEvent, line: string) => void} cb
     * @returns {() => void} unsubscribes
     */
    subscribe (cb) {
      subscribers.add(cb)
      return () => { subscribers.delete(cb) }
    },
    get ended () { return ended },
    /**
     * Follows a run in its collector (memory or Redis, so local and fleet simulators alike):
     * a `second` event once a second, until stopped (one last second then).
     * @param {import('../collector/types.js').Collector} collector
     * @param {string} runId
     * @param {{ distribution?: string, everyMs?: number }} [opts]
     */
    follow (collector, runId, { distribution, everyMs = 1000 } = {}) {
      const fold = createSecondFold()
      const follow = followCollector({
        collector,
        runId,
        metrics: sinkOf(fold),
        rounds: false,
        everyMs,
        onRefresh: () => push({ ...fold.take(), ...(distribution ? { distribution } : {}) })
      })
      return { stop: () => follow.stop() }
    },
    /**
     * Fed by the caller (a simulator's own hooks, or its workers' follower): a `second` event
     * once a second, until stopped (one last second then).
     * @param {{ everyMs?: number }} [opts]
     */
    feed ({ everyMs = 1000 } = {}) {
      const fold = createSecondFold()
      const timer = setInterval(() => push(fold.take()), everyMs)
      timer.unref()
      return {
        sink: sinkOf(fold),
        stop () {
          clearInterval(timer)
          push(fold.take())
        }
      }
    },
    /**
     * The run is over: an `end` event (where its files are), and the log closed.
     * @param {Record<string, unknown>} [files]
     */
    async end (files = {}) {
      if (ended) return
      push({ type: 'end', at: Date.now(), ...files })
      ended = true
      if (log) await new Promise((resolve) => log.end(resolve))
    },
    /** The log's write error, if any (the run goes on without its log). */
    logError: () => logError
  }
}
