/**
 * Server samples to the collector: `ioswarm serve --redis URL --run RUN` (every process of
 * a cluster under its own id) and `ioswarm probe --pid` report one sample a second with
 * collector.reportServerSample. A failed write is counted and passed to onError, never
 * retried: the next second's sample is worth more than a late one.
 */
import { createCollector } from '../results/collector/index.js'

/** Writes in flight beyond which a new sample is dropped (Redis too slow or away). */
const MAX_PENDING = 5

/**
 * @typedef {import('../lib/schema/result-schema.js').ServerSample} ServerSample
 */

/**
 * Connects to the collector (rejects with IOSWARM_ERR_COLLECTOR when Redis cannot be used).
 * @param {{ redisUrl: string, runId: string, serverId: string, onError?: (error: Error) => void }} options
 */
export async function connectServerReporter ({ redisUrl, runId, serverId, onError = () => {} }) {
  const collector = await createCollector({ redisUrl })
  /** @type {Set<Promise<void>>} */
  const pending = new Set()
  let dropped = 0
  let failed = 0
  return {
    /** @param {ServerSample} sample */
    report (sample) {
      if (pending.size >= MAX_PENDING) {
        dropped++
        return
      }
      const write = collector.reportServerSample(runId, serverId, sample).catch((error) => {
        failed++
        onError(error)
      })
      pending.add(write)
      write.finally(() => pending.delete(write))
    },
    /** Samples not written: dropped while writes were pending, and failed writes. */
    lost: () => ({ dropped, failed }),
    /** Waits for the writes in flight (bounded by the collector's own retries), then disconnects. */
    async close () {
      await Promise.all(pending)
      await collector.close()
    }
  }
}
