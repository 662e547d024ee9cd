/**
 * A simulator's time windows (--window): each window a row like a round (lib/schema/result-schema.js
 * WindowReport). Nothing here runs per receipt: a message is added once, when the recorder
 * closes it (its live histograms added to its window's), an emit once when sent and once when
 * its ack ends, a second's sample once a second. A window is reported once it has ended and
 * every message first seen in it has closed (at most --message-timeout later), in order; its
 * live state is freed then, and only its encoded report is kept (the newest MAX_WINDOWS).
 */
import { wallMs } from '../../lib/measure/clock.js'
import { createHistogram, encode, summarize } from '../../lib/measure/histogram.js'
import { isSaturated } from '../../lib/measure/process-sampler.js'
import { HEALTH_SUMMARY_FROM } from '../../lib/schema/result-schema.js'
import { createFigures } from './figures.js'

/**
 * @typedef {import('../../lib/schema/result-schema.js').WindowReport} WindowReport
 * @typedef {import('../../lib/measure/histogram.js').Histogram} Histogram
 * @typedef {import('../../lib/schema/result-schema.js').MessageReport} MessageReport
 * @typedef {import('./figures.js').FiguresSink} FiguresSink
 */

/** Window reports a simulator's result keeps (a day of 1-minute windows, 4 hours of 10 s). */
export const MAX_WINDOWS = 1440

/**
 * One window's live state.
 * @param {number} index
 * @param {number} windowMs
 */
function openWindow (index, windowMs) {
  return {
    index,
    windowMs,
    /** messages first seen in it and not closed yet */
    open: 0,
    connected: 0,
    connects: 0,
    drops: 0,
    closed: 0,
    errors: 0,
    messages: 0,
    received: 0,
    expected: 0,
    missing: 0,
    duplicates: 0,
    misdelivered: 0,
    echo: 0,
    relative: createHistogram(),
    absolute: createHistogram(),
    /** @type {import('../../lib/measure/process-sampler.js').ProcessSample[]} */
    samples: [],
    /** emits, acks, replies and a scenario's own figures in it */
    figures: createFigures()
  }
}

/** @typedef {ReturnType<typeof openWindow>} LiveWindow */

/**
 * The window's report (encoded histograms), freed of its live state.
 * @param {LiveWindow} w
 * @returns {WindowReport}
 */
function reportOf (w) {
  const encoded = (/** @type {Histogram} */ h) => ({ ...summarize(h), histogram: encode(h) })
  const figures = w.figures.report()
  /** @type {Record<string, number>} */
  const health = {}
  for (const [field, from] of Object.entries(HEALTH_SUMMARY_FROM)) {
    health[field] = from === 'saturated' ? w.samples.filter(isSaturated).length : w.samples.reduce((m, s) => Math.max(m, s[from]), 0)
  }
  return {
    index: w.index,
    startAt: w.index * w.windowMs,
    endAt: (w.index + 1) * w.windowMs,
    simulators: 1,
    clients: { connected: w.connected, connects: w.connects, drops: w.drops, errors: w.errors, closed: w.closed },
    messages: w.messages,
    received: w.received,
    expected: w.expected,
    missing: w.missing,
    duplicates: w.duplicates,
    misdelivered: w.misdelivered,
    echo: w.echo,
    relative: encoded(w.relative),
    absolute: encoded(w.absolute),
    emits: figures.emits,
    health: /** @type {import('../../lib/schema/result-schema.js').HealthSummary} */ (/** @type {unknown} */ (health)),
    ...(figures.custom ? { custom: figures.custom } : {}),
    ...(figures.replies ? { replies: figures.replies } : {})
  }
}

/**
 * @param {object} options
 * @param {number} options.windowMs
 * @param {() => number} [options.clockOffsetMs] added to the local wall clock: windows are on the reference clock
 * @param {(report: WindowReport) => void} [options.onWindow] each window as it is reported, in order
 * @param {(window: { startAt: number, endAt: number }) => WindowReport['phase']} [options.phaseOf] --phases: the step a window measured, its label
 */
export function createWindowBook ({ windowMs, clockOffsetMs = () => 0, onWindow = () => {}, phaseOf = () => undefined }) {
  /** @type {Map<number, LiveWindow>} live windows by index */
  const live = new Map()
  /** @type {WindowReport[]} */
  const kept = []
  let dropped = 0
  /** The last window reported: later reports are of later windows only. */
  let lastReported = -Infinity
  /**
   * The latest second's figures: a window that no one-second sample fell in (samples drift
   * against window edges) carries them, rather than 0 connected and no health.
   * @type {{ connected: number, health: import('../../lib/measure/process-sampler.js').ProcessSample | null }}
   */
  const last = { connected: 0, health: null }

  const indexNow = () => Math.floor((wallMs() + clockOffsetMs()) / windowMs)

  /** @param {number} index */
  function at (index) {
    // A window already reported (a late ack, a sample on the boundary) counts in the oldest live one.
    const i = Math.max(index, lastReported + 1)
    let w = live.get(i)
    if (w === undefined) {
      live.set(i, (w = openWindow(i, windowMs)))
      w.connected = last.connected
    }
    return w
  }

  /**
   * Reports window w, after an empty row for each window between the last one reported and it
   * (a second in which nothing arrived and no sample fell, a stalled process: shown, not skipped).
   * @param {LiveWindow} w
   */
  function report (w) {
    const gap = Number.isFinite(lastReported) ? Math.min(w.index - lastReported - 1, MAX_WINDOWS) : 0
    for (let k = gap; k > 0; k--) {
      const empty = openWindow(w.index - k, windowMs)
      empty.connected = last.connected
      emit(empty)
    }
    emit(w)
  }

  /** @param {LiveWindow} w */
  function emit (w) {
    if (w.samples.length === 0 && last.health !== null) w.samples.push(last.health)
    live.delete(w.index)
    lastReported = w.index
    const r = reportOf(w)
    const phase = phaseOf(r)
    if (phase) r.phase = phase
    kept.push(r)
    if (kept.length > MAX_WINDOWS) {
      kept.shift()
      dropped++
    }
    onWindow(r)
  }

  return {
    windowMs,

    /** A message opened now: its window's index (kept on the message until it closes). */
    opened () {
      const w = at(indexNow())
      w.open++
      return w.index
    },

    /**
     * A message of window `index` closed: its counts and live histograms added to the window's.
     * @param {number} index what opened() returned
     * @param {MessageReport} report
     * @param {Histogram} relative
     * @param {Histogram | null} absolute
     */
    closed (index, report, relative, absolute) {
      const w = live.get(index) ?? at(index)
      if (w.index === index) w.open--
      w.messages++
      w.received += report.received
      w.expected += report.expected
      w.missing += report.missing
      w.duplicates += report.duplicates
      w.misdelivered += report.misdelivered ?? 0
      w.echo += report.echo ?? 0
      w.relative.add(relative)
      if (absolute !== null) w.absolute.add(absolute)
    },

    // Emits, acks, replies and custom records: in the window they happen in (an ack: where it ended).
    /** @type {FiguresSink['sent']} */
    sent: () => at(indexNow()).figures.sent(),
    /** @type {FiguresSink['ack']} */
    ack: (error, elapsedMs) => at(indexNow()).figures.ack(error, elapsedMs),
    /** @type {FiguresSink['replySent']} */
    replySent: () => at(indexNow()).figures.replySent(),
    /** @type {FiguresSink['replyEnded']} */
    replyEnded: (error, elapsedMs) => at(indexNow()).figures.replyEnded(error, elapsedMs),
    /** @type {FiguresSink['timing']} */
    timing: (name, ms) => at(indexNow()).figures.timing(name, ms),
    /** @type {FiguresSink['count']} */
    count: (name, n) => at(indexNow()).figures.count(name, n),

    /**
     * One second's sample: connects, drops and errors added, connected and health as of now.
     * @param {import('../../lib/schema/result-schema.js').TimelinePoint} point
     * @param {import('../../lib/measure/process-sampler.js').ProcessSample} health
     */
    sample (point, health) {
      const w = at(indexNow())
      w.connected = point.connected
      w.connects += point.connects
      // Closed on purpose (a ramp-down, the end) is no drop.
      w.drops += point.disconnects - (point.closed ?? 0)
      w.closed += point.closed ?? 0
      w.errors += point.errors
      w.samples.push(health)
      last.connected = point.connected
      last.health = health
    },

    /**
     * Reports the windows that are over (ended, every message of theirs closed), oldest
     * first; `all`: every window (the swarm's end, after every message closed).
     * @param {boolean} [all]
     */
    flush (all = false) {
      const now = indexNow()
      for (const index of [...live.keys()].sort((a, b) => a - b)) {
        const w = /** @type {LiveWindow} */ (live.get(index))
        if (!all && (index >= now || w.open > 0)) break
        report(w)
      }
    },

    /** @returns {WindowReport[]} the reported windows kept (the newest MAX_WINDOWS), oldest first */
    reports: () => kept.slice(),

    /** @returns {number} windows reported but no longer kept */
    dropped: () => dropped
  }
}

/** @typedef {ReturnType<typeof createWindowBook>} WindowBook */
