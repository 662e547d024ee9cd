/**
 * Sends what a simulator measures to a collector writer (Redis, or the runner over IPC):
 * registration, a heartbeat with a TTL, every closed message, one sample a second, and the
 * final report. Writes go through one ordered queue that retries with backoff while the
 * collector is unreachable, so a Redis blip loses nothing: message reports and the final
 * report are never dropped; one-second samples are dropped oldest-first past a bound.
 * Past a bound on queued writes (count or estimated bytes) the rest goes to a disk spool,
 * in order, so a long outage costs disk rather than growing memory without limit.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import { createSpool } from './spool.js'

/**
 * @typedef {import('../../results/collector/types.js').CollectorWriter} CollectorWriter
 * @typedef {import('../../results/collector/types.js').SimulatorInfo} SimulatorInfo
 * @typedef {{ method: keyof CollectorWriter, args: unknown[], droppable: boolean, bytes: number }} QueuedWrite
 */

const RETRY_MIN_MS = 100
const RETRY_MAX_MS = 5000
/** Writes read back from the spool at a time: what replaying holds in memory. */
const SPOOL_BATCH = 1000

/**
 * @param {object} options
 * @param {CollectorWriter} options.writer
 * @param {string} options.runId
 * @param {SimulatorInfo} options.info
 * @param {number} [options.heartbeatMs] how often the heartbeat is renewed
 * @param {number} [options.maxQueuedSamples] samples kept while the collector is away
 * @param {number} [options.maxQueuedWrites] other writes kept in memory before spooling to disk
 * @param {number} [options.maxQueuedBytes] their estimated size kept in memory before spooling
 * @param {string} [options.spoolDir] where the spool file goes (default: os.tmpdir())
 */
export function createSimReporter (options) {
  const { writer, runId, info, heartbeatMs = 1000, maxQueuedSamples = 3600, maxQueuedWrites = 10000, maxQueuedBytes = 50 * 1024 * 1024, spoolDir } = options
  /** @type {QueuedWrite[]} */
  const queue = []
  const spool = createSpool({ dir: spoolDir })
  const stats = {
    sent: 0,
    retries: 0,
    droppedSamples: 0,
    spooled: 0,
    lastError: /** @type {string | null} */ (null),
    /** message reports the collector refused past the run's bound, and that bound (null: none refused) */
    refused: 0,
    refusedLimit: /** @type {number | null} */ (null)
  }
  let queuedSamples = 0
  let queuedBytes = 0
  let pumping = false
  let closed = false
  /**
   * finish's wait is over: what is left stays undelivered, and the retries stop. Without it a
   * collector that is gone (the IPC channel closed with its runner, Redis down) kept an ended
   * simulator retrying, and alive, for ever.
   */
  let given = false
  /** @type {() => void} */
  let wakeIdle = () => {}
  /** @type {NodeJS.Timeout | undefined} */
  let heartbeatTimer

  /**
   * @param {keyof CollectorWriter} method
   * @param {unknown[]} args
   * @param {boolean} [droppable]
   */
  function enqueue (method, args, droppable = false) {
    if (droppable) {
      if (queuedSamples >= maxQueuedSamples) {
        const oldest = queue.findIndex((w) => w.droppable)
        queue.splice(oldest, 1)
        queuedSamples--
        stats.droppedSamples++
      }
      queue.push({ method, args, droppable, bytes: 0 })
      queuedSamples++
    } else if (spool.size > 0 || queue.length - queuedSamples >= maxQueuedWrites || queuedBytes >= maxQueuedBytes) {
      // Once spooling, everything not droppable goes to the spool until it drains: order kept.
      spool.append({ method, args })
      stats.spooled++
    } else {
      const bytes = JSON.stringify(args).length
      queue.push({ method, args, droppable, bytes })
      queuedBytes += bytes
    }
    if (!pumping) pump()
  }

  /** Refills the memory queue from the spool once the writes ahead of it are delivered. */
  function refill () {
    for (const value of spool.take(SPOOL_BATCH)) {
      const { method, args } = /** @type {{ method: keyof CollectorWriter, args: unknown[] }} */ (value)
      queue.push({ method, args, droppable: false, bytes: 0 })
    }
  }

  /** @param {QueuedWrite} write the head of the queue, delivered or refused for good */
  function settle (write) {
    queue.shift()
    if (write.droppable) queuedSamples--
    queuedBytes -= write.bytes
  }

  async function pump () {
    pumping = true
    let backoffMs = RETRY_MIN_MS
    while (queue.length > 0 || spool.size > 0) {
      if (given) break
      if (queue.length === 0) refill()
      const write = queue[0]
      try {
        await /** @type {(...a: unknown[]) => Promise<void>} */ (writer[write.method])(...write.args)
        settle(write)
        stats.sent++
        backoffMs = RETRY_MIN_MS
      } catch (error) {
        // Refused past the run's bound: the collector counted it (getRefused); retrying would stall every later write.
        const refusal = /** @type {{ refused?: unknown, limit?: unknown }} */ (error)
        if (refusal.refused === true) {
          settle(write)
          stats.refused++
          stats.refusedLimit = typeof refusal.limit === 'number' ? refusal.limit : stats.refusedLimit
          continue
        }
        stats.retries++
        stats.lastError = /** @type {Error} */ (error).message
        await sleep(backoffMs)
        backoffMs = Math.min(RETRY_MAX_MS, backoffMs * 2)
      }
    }
    pumping = false
    wakeIdle()
  }

  function beat () {
    // Not queued: a heartbeat that cannot be delivered now is worthless later.
    writer.heartbeat(runId, info.id, heartbeatMs * 5).catch(() => {})
  }

  return {
    stats,

    /** Registers the simulator and starts its heartbeat. */
    start () {
      enqueue('registerSimulator', [runId, info])
      enqueue('heartbeat', [runId, info.id, heartbeatMs * 5])
      heartbeatTimer = setInterval(beat, heartbeatMs)
      heartbeatTimer.unref()
    },

    /** @param {import('../../lib/schema/result-schema.js').MessageReport} report */
    message (report) {
      if (!closed) enqueue('reportMessage', [runId, info.id, report])
    },

    /** @param {import('../../lib/schema/result-schema.js').WindowReport} window each window once it is over (--window): never dropped */
    window (window) {
      if (!closed) enqueue('reportWindow', [runId, info.id, window])
    },

    /** @param {import('../../results/collector/types.js').SampleReport} sample */
    sample (sample) {
      if (!closed) enqueue('reportSample', [runId, info.id, sample], true)
    },

    /** @param {import('../../lib/schema/result-schema.js').ClockInfo} clock */
    clock (clock) {
      if (!closed) enqueue('reportClock', [runId, info.id, clock])
    },

    /**
     * Queues the final report and waits until everything queued is delivered or `timeoutMs`
     * passes. Resolves with how many writes were left undelivered.
     * @param {import('../../results/collector/types.js').FinalReport} final
     * @param {number} timeoutMs
     */
    async finish (final, timeoutMs) {
      enqueue('reportFinal', [runId, info.id, final])
      closed = true
      clearInterval(heartbeatTimer)
      if (queue.length > 0 || spool.size > 0) {
        const idle = new Promise((resolve) => { wakeIdle = () => resolve(undefined) })
        await Promise.race([idle, sleep(timeoutMs, undefined, { ref: false })])
      }
      given = true
      const undelivered = queue.length + spool.size
      spool.close()
      return { undelivered, ...stats }
    }
  }
}
