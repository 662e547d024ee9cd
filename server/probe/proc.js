/**
 * `ioswarm probe --pid`'s loop: a /proc sample of the process every interval, reported to
 * the collector, until the process exits or the caller stops it.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import { monotonicMs } from '../../lib/measure/clock.js'
import { createProcSampler } from './proc-sampler.js'
import { connectServerReporter } from '../reporting.js'

/**
 * @typedef {import('./proc-sampler.js').ProcSample} ProcSample
 */

/**
 * Resolves when the process has exited (`exited: true`) or `signal` aborted.
 * @param {{ pid: number, redisUrl: string, runId: string, serverId: string, intervalMs?: number }} options
 * @param {{ signal?: AbortSignal, onSample?: (sample: ProcSample) => void, onError?: (error: Error) => void }} [hooks]
 * @returns {Promise<{ samples: number, exited: boolean, lost: { dropped: number, failed: number } }>}
 */
export async function runProcessProbe ({ pid, redisUrl, runId, serverId, intervalMs = 1000 }, hooks = {}) {
  const sampler = await createProcSampler(pid)
  const reporter = await connectServerReporter({ redisUrl, runId, serverId, onError: hooks.onError })
  let samples = 0
  let exited = false
  try {
    const startMono = monotonicMs()
    for (let k = 1; !hooks.signal?.aborted; k++) {
      // On schedule (start + k × interval), so a slow /proc read does not stretch the series.
      const waitMs = startMono + k * intervalMs - monotonicMs()
      if (waitMs > 0) await sleep(waitMs, undefined, { signal: hooks.signal }).catch(() => {})
      if (hooks.signal?.aborted) break
      const sample = await sampler.sample()
      if (!sample) {
        exited = true
        break
      }
      samples++
      // The collector stores ServerSamples; null marks what /proc cannot tell.
      reporter.report(/** @type {import('../../lib/schema/result-schema.js').ServerSample} */ (/** @type {unknown} */ (sample)))
      hooks.onSample?.(sample)
    }
  } finally {
    await reporter.close()
  }
  return { samples, exited, lost: reporter.lost() }
}
