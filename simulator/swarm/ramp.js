/**
 * Spreads connection starts evenly over a window with one timer for the whole swarm (not
 * one per client): client i starts at i × rampMs / count. Connecting everyone at once
 * synchronises heartbeats and makes artificial load waves; the default window is the
 * server's pingInterval.
 */
import { monotonicMs } from '../../lib/measure/clock.js'

/** Most starts done in one turn of the event loop, so I/O keeps flowing during a burst. */
const MAX_STARTS_PER_TURN = 250

/**
 * @param {object} options
 * @param {number} options.count
 * @param {number} options.rampMs 0 = all at once (in event-loop-friendly batches)
 * @param {(i: number) => void} options.onStart
 * @returns {{ stop(): void, done: Promise<void> }}
 */
export function startRamp ({ count, rampMs, onStart }) {
  const startedMono = monotonicMs()
  const stepMs = count > 0 ? rampMs / count : 0
  let next = 0
  let stopped = false
  /** @type {NodeJS.Timeout | NodeJS.Immediate | undefined} */
  let timer
  /** @type {() => void} */
  let resolveDone = () => {}
  const done = new Promise((resolve) => { resolveDone = () => resolve(undefined) })

  function wake () {
    if (stopped) return
    const elapsedMs = monotonicMs() - startedMono
    let started = 0
    while (next < count && next * stepMs <= elapsedMs && started < MAX_STARTS_PER_TURN) {
      onStart(next++)
      started++
      // A start may stop the ramp (a shrink from its callback): the rest of the batch is not started then.
      if (stopped) return
    }
    if (next >= count) {
      resolveDone()
      return
    }
    const waitMs = next * stepMs - elapsedMs
    timer = waitMs > 0 ? setTimeout(wake, waitMs) : setImmediate(wake)
  }

  timer = setImmediate(wake)
  return {
    stop () {
      stopped = true
      clearTimeout(/** @type {NodeJS.Timeout} */ (timer))
      clearImmediate(/** @type {NodeJS.Immediate} */ (timer))
      resolveDone()
    },
    done
  }
}
