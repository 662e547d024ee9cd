/**
 * The live dashboard: a run's stream of per-second figures and events (stream.js), served to
 * browsers with its steering actions (server.js), written as an NDJSON log, and played back
 * from such a log after the run (`ioswarm report events.ndjson --dashboard`).
 */
import { randomBytes } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { IoswarmError, CODES } from '../../lib/errors.js'
import { createLiveStream } from './stream.js'
import { startDashboardServer } from './server.js'

export { createLiveStream, MAX_SECONDS } from './stream.js'
export { startDashboardServer, ACTION_ROUTES } from './server.js'
export { createSecondFold } from './second-fold.js'
export { HEADLINES } from './page.js'

/**
 * What a command's library code needs of the stream (it only writes to it).
 * @typedef {Pick<import('./stream.js').LiveStream, 'push' | 'follow'>} LiveStreamLike
 */

/** The events log's file name beside result.json. */
export const EVENTS_FILE = 'events.ndjson'

/** A fresh token for the actions (what the printed URL carries). */
export function newDashboardToken () {
  return randomBytes(18).toString('base64url')
}

/**
 * A command's dashboard: its stream (logging to `logFile`) and its server, the URL printed by
 * the caller. Steering actions become events of the stream as they happen.
 * @param {object} options
 * @param {number} options.port 0: a free one
 * @param {string} options.host
 * @param {string | null} options.logFile
 * @param {Record<string, unknown>} options.info the `hello` event (command, runId, name, …)
 * @param {string} [options.token]
 */
export async function startDashboard ({ port, host, logFile, info, token = newDashboardToken() }) {
  const stream = createLiveStream({ logFile, info })
  const server = await startDashboardServer({ stream, token, port, host, title: `ioswarm ${info.command ?? ''}`.trim() })
  /** @type {(() => void) | null} */
  let detach = null
  return {
    stream,
    server,
    url: server.url,
    /**
     * The command's steering (its actions; each action an event of the stream).
     * @param {import('./server.js').Steering | null | undefined} steering
     */
    attachSteering (steering) {
      detach?.()
      server.setSteering(steering ?? null)
      detach = steering ? steering.onEvent((event) => stream.push({ type: 'action', ...event })) : null
    },
    /**
     * The run is over: the end event (where its files are), the log closed, the pages' streams ended.
     * @param {Record<string, unknown>} [files]
     */
    async close (files) {
      detach?.()
      await stream.end(files)
      await server.close()
    }
  }
}

/**
 * --dashboard of `run`, `capacity` or `simulate`: the dashboard started before the test, its
 * URL said on a line that says "dashboard" (and a warning when it is bound beyond this host).
 * @param {object} options
 * @param {'run' | 'capacity' | 'simulate'} options.command
 * @param {number} options.port 0: a free one
 * @param {string} options.host
 * @param {string} options.runId
 * @param {string} options.name
 * @param {string | null} options.logFile the events log (null: none, as `simulate` writes no results folder)
 * @param {unknown[]} [options.thresholds] the thresholds as parsed: the page draws them on their charts
 * @param {(line: string) => void} say
 */
export async function openDashboard ({ command, port, host, runId, name, logFile, thresholds = [] }, say) {
  const opened = await startDashboard({ port, host, logFile, info: { command, runId, name, startedAt: Date.now(), thresholds } })
  say(`dashboard: ${opened.url}`)
  if (!isLoopback(host)) {
    const what = command === 'capacity' ? 'search' : 'run'
    say(`WARNING: dashboard: --dashboard-host ${host} serves the page beyond this host; anyone with the URL above (its token) can stop or steer the ${what}`)
  }
  return opened
}

/** @param {string} host */
function isLoopback (host) {
  return host === 'localhost' || host === '::1' || host.startsWith('127.')
}

/**
 * A written events log, parsed: its events in order (a torn last line, from a run that was
 * killed, is left out).
 * @param {string} file
 */
export async function readEventsLog (file) {
  let text
  try {
    text = await readFile(file, 'utf8')
  } catch (error) {
    throw new IoswarmError(CODES.INPUT, `cannot read the events log ${file}: ${/** @type {Error} */ (error).message}`, { cause: error })
  }
  const lines = text.split('\n').filter((l) => l.trim() !== '')
  /** @type {import('./stream.js').StreamEvent[]} */
  const events = []
  lines.forEach((line, i) => {
    try {
      const event = JSON.parse(line)
      if (event && typeof event.type === 'string') events.push(event)
    } catch (error) {
      const why = /** @type {Error} */ (error).message
      if (i < lines.length - 1) throw new IoswarmError(CODES.INPUT, `${file} line ${i + 1} is not an event of an ioswarm events log: ${why}`)
    }
  })
  if (events[0]?.type !== 'hello') throw new IoswarmError(CODES.INPUT, `${file} is not an ioswarm events log (its first line is no hello event)`)
  return events
}

/**
 * Plays a log back into a stream (no log written), ready to serve: the run as it was seen.
 * @param {import('./stream.js').StreamEvent[]} events from readEventsLog
 */
export function replayStream (events) {
  const [hello, ...rest] = events
  const { type, ...info } = hello
  const stream = createLiveStream({ info: { ...info, replay: true } })
  for (const event of rest) if (event.type !== 'end') stream.push(event)
  return { stream, end: events.findLast((e) => e.type === 'end') ?? null }
}
