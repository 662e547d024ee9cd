/**
 * The probe for a user's own socket.io server (`import { attachProbe } from 'ioswarm/probe'`):
 * one call samples the process every second (CPU, RSS, heap, event-loop delay and
 * utilisation) and the io server's connected clients by transport, and writes each sample
 * to Redis in the collector's layout (results/README.md: `ioswarm:{RUN}:server-samples`),
 * where `ioswarm run` and `ioswarm report` find it next to the simulators' results.
 *
 * Kept light on purpose: it imports the collector's key names and Redis connect only (not
 * its aggregation, nor socket.io-client, nor the reports), loads ioredis only when given a
 * URL, and does nothing at all until attachProbe is called.
 */
import os from 'node:os'
import { invalidOption } from '../../lib/errors.js'
import { createProcessSampler } from '../../lib/measure/process-sampler.js'
import { LIMITS, runKeys } from '../../lib/schema/collector-keys.js'
import { countEngineClients } from '../connections.js'

/** The collector's rule for ids that go into keys (results/README.md). */
const ID_PATTERN = /^[A-Za-z0-9._-]{1,128}$/
/** Writes in flight beyond which a sample is dropped rather than queued (Redis slow or away). */
const MAX_PENDING = 5

/**
 * @typedef {{ xadd: (...args: string[]) => Promise<unknown>, quit?: () => Promise<unknown> }} RedisLike an ioredis client
 * @typedef {object} ProbeOptions
 * @property {string | RedisLike} redis a redis:// URL (the probe connects and disconnects), or your ioredis client (left open)
 * @property {string} run the run id the samples belong to (the runner's --run)
 * @property {string} [id] this server's id in the run; default probe-<hostname>-<pid>
 * @property {number} [intervalMs] between samples, default 1000
 * @property {(error: Error) => void} [onError] a failed connect or write; default: one process warning, then silence
 */

/**
 * Starts sampling `io` and its process; returns at once (the Redis connection is made in
 * the background; `ready` settles when it is).
 * @param {import('socket.io').Server} io
 * @param {ProbeOptions} options
 * @returns {{ id: string, ready: Promise<void>, stop: () => Promise<void> }}
 */
export function attachProbe (io, options) {
  const { run, intervalMs = 1000 } = options
  const id = options.id ?? `probe-${os.hostname().replace(/[^A-Za-z0-9._-]/g, '-').slice(0, 80)}-${process.pid}`
  if (typeof run !== 'string' || !ID_PATTERN.test(run)) {
    throw invalidOption('attachProbe run', `must be 1 to 128 characters of A-Z a-z 0-9 . _ -, got ${JSON.stringify(run)}`)
  }
  if (!ID_PATTERN.test(id)) throw invalidOption('attachProbe id', `must be 1 to 128 characters of A-Z a-z 0-9 . _ -, got ${JSON.stringify(id)}`)
  if (!Number.isFinite(intervalMs) || intervalMs < 100) throw invalidOption('attachProbe intervalMs', `must be at least 100, got ${JSON.stringify(intervalMs)}`)
  if (!options.redis) throw invalidOption('attachProbe redis', 'is required: a redis:// URL or an ioredis client')
  const onError = options.onError ?? warnOnce()
  const key = runKeys(run).serverSamples
  const owned = typeof options.redis === 'string'
  /** @type {RedisLike | undefined} */
  let client = owned ? undefined : /** @type {RedisLike} */ (options.redis)
  const ready = owned ? connect(/** @type {string} */ (options.redis)).then((c) => { client = c }) : Promise.resolve()
  ready.catch(onError)

  const sampler = createProcessSampler()
  /** @type {Set<Promise<void>>} */
  const pending = new Set()
  const timer = setInterval(() => {
    const sample = { ...sampler.sample(), ...countEngineClients(io) }
    if (!client || pending.size >= MAX_PENDING) return
    const write = client.xadd(key, 'MAXLEN', '~', String(LIMITS.samples), '*', 'server', id, 'sample', JSON.stringify(sample))
      .then(() => {}, (/** @type {Error} */ error) => onError(error))
    pending.add(write)
    write.finally(() => pending.delete(write))
  }, intervalMs)
  // The probe must never be what keeps a server process alive.
  timer.unref()

  let stopped = false
  return {
    id,
    ready,
    async stop () {
      if (stopped) return
      stopped = true
      clearInterval(timer)
      sampler.stop()
      await Promise.all(pending)
      if (owned) {
        await ready.catch(() => {})
        await client?.quit?.().catch(() => {})
      }
    }
  }
}

/** @param {string} url */
async function connect (url) {
  // Loaded here so that a probe given a client, or never attached, costs no ioredis import.
  const { connectRedis } = await import('../../lib/redis.js')
  return connectRedis(url)
}

/** The default onError: one process warning (the library never prints), then silence. */
function warnOnce () {
  let warned = false
  return (/** @type {Error} */ error) => {
    if (warned) return
    warned = true
    process.emitWarning(`ioswarm probe: cannot report samples (later failures are not reported): ${error.message}`, 'IoswarmProbeWarning')
  }
}
