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
 * @returns {{ stop(): void, hold(on: boolean): void, done: Promise<void> }}
 */
export function startRamp ({ count, rampMs, onStart }) {
  let startedMono = monotonicMs()
  /** When the ramp was held (--ramp-guard), null while it runs. */
  let heldAt = /** @type {number | null} */ (null)
  const stepMs = count > 0 ? rampMs / count : 0
  let next = 0
  let stopped = false
  /** @type {NodeJS.Timeout | NodeJS.Immediate | undefined} */
  let timer
  /** @type {() => void} */
  let resolveDone = () => {}
  const done = new Promise((resolve) => { resolveDone = () => resolve(undefined) })

  function wake () {
    if (stopped || heldAt !== null) return
    const elapsedMs = monotonicMs() - startedMono
    let started = 0
    while (next < count && next * stepMs <= elapsedMs && started < MAX_STARTS_PER_TURN) {
      onStart(next++)
      started++
      // A start may stop the ramp (a shrink from its callback): the rest of the batch is not started then.
      if (stopped || heldAt !== null) return
    }
    if (next >= count) {
      resolveDone()
      return
    }
    const waitMs = next * stepMs - elapsedMs
    timer = waitMs > 0 ? setTimeout(wake, waitMs) : setImmediate(wake)
  }

  function clearTimer () {
    clearTimeout(/** @type {NodeJS.Timeout} */ (timer))
    clearImmediate(/** @type {NodeJS.Immediate} */ (timer))
  }

  timer = setImmediate(wake)
  return {
    stop () {
      stopped = true
      clearTimer()
      resolveDone()
    },
    /**
     * Holds the ramp (true) or lets it go on (false). The schedule moves by the time held: the
     * next client starts in its own slot after the hold, the ones after it as spread as before,
     * so a hold makes the ramp longer and never ends in a burst of the starts it delayed.
     * @param {boolean} on
     */
    hold (on) {
      if (stopped || on === (heldAt !== null)) return
      if (on) {
        heldAt = monotonicMs()
        clearTimer()
        return
      }
      startedMono += monotonicMs() - /** @type {number} */ (heldAt)
      heldAt = null
      timer = setImmediate(wake)
    },
    done
  }
}
