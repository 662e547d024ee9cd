/**
 * The loop of a run's followers of the collector (lines.js, windows.js): every FOLLOW_POLL_MS,
 * read and handle what the simulators stored since; a step that fails (a collector blip) is
 * tried again the next time.
 */
import { setTimeout as sleep } from 'node:timers/promises'

/** How often a follower reads the collector. */
const FOLLOW_POLL_MS = 500

/**
 * Runs `step` again and again, FOLLOW_POLL_MS apart, until stopped.
 * @param {() => Promise<unknown>} step
 * @param {number} [pollMs]
 * @returns {() => Promise<void>} stops the loop; resolves once the step under way has ended (a pause ends at once)
 */
export function followEvery (step, pollMs = FOLLOW_POLL_MS) {
  const stopping = new AbortController()
  const loop = (async () => {
    while (!stopping.signal.aborted) {
      await step().catch(() => {})
      // A stop ends the pause at once: the caller reads what is left itself.
      await sleep(pollMs, undefined, { signal: stopping.signal }).catch(() => {})
    }
  })()
  return async () => {
    stopping.abort()
    await loop
  }
}
