/**
 * Waiting in tests: poll a condition with a bounded deadline (never a guessed sleep).
 */
import { setTimeout as sleep } from 'node:timers/promises'

/**
 * Resolves when `predicate()` is truthy; rejects with `message` after `timeoutMs`.
 * @template T
 * @param {() => T | Promise<T>} predicate
 * @param {{ timeoutMs?: number, intervalMs?: number, message?: string | (() => string) }} [options]
 * @returns {Promise<T>}
 */
export async function waitFor (predicate, { timeoutMs = 10000, intervalMs = 20, message = 'condition' } = {}) {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await predicate()
    if (value) return value
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${typeof message === 'function' ? message() : message}`)
    }
    await sleep(intervalMs)
  }
}
