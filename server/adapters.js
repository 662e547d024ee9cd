/**
 * The socket.io adapter of the reference server, by name: how a broadcast on one server
 * process reaches the clients of the others. All are the official socket.io packages,
 * loaded only when asked for.
 *
 * - memory: socket.io's default; one process only.
 * - cluster: @socket.io/cluster-adapter, over the node:cluster IPC channel (needs --cluster).
 * - redis: @socket.io/redis-adapter, Redis pub/sub (also what @socket.io/redis-emitter talks to).
 * - redis-streams: @socket.io/redis-streams-adapter, one Redis stream.
 */
import cluster from 'node:cluster'
import { invalidOption } from '../lib/errors.js'
// A leaf module of the collector (ioredis and lib/errors only): the same fail-fast connect
// and password redaction as the collector, without pulling in its aggregation code.
import { connectRedis } from '../lib/redis.js'

import { ADAPTER_NAMES } from '../lib/cli-options/tables/serve.js'

export { ADAPTER_NAMES }

/**
 * @typedef {object} AdapterSetup
 * @property {string} name
 * @property {any} adapter the value for socket.io's `adapter` option; undefined = in memory
 * @property {() => Promise<void>} ready resolves once broadcasts from other processes are heard
 * @property {() => Promise<void>} close frees the adapter's own connections (after io.close)
 */

/**
 * Creates the adapter `name`; the Redis ones connect first (and reject with a message
 * naming the redacted URL when they cannot).
 * @param {string} name one of ADAPTER_NAMES
 * @param {{ redisUrl?: string | null }} [options]
 * @returns {Promise<AdapterSetup>}
 */
export async function createAdapterSetup (name, { redisUrl } = {}) {
  const none = async () => {}
  if (name === 'memory') return { name, adapter: undefined, ready: none, close: none }
  if (name === 'cluster') {
    if (!cluster.isWorker) throw invalidOption('--adapter', 'cluster relays through the node:cluster primary: use it with --cluster K')
    const { createAdapter } = await import('@socket.io/cluster-adapter')
    return { name, adapter: createAdapter(), ready: none, close: none }
  }
  if (name !== 'redis' && name !== 'redis-streams') {
    throw invalidOption('--adapter', `must be one of ${ADAPTER_NAMES.join(', ')}, got ${JSON.stringify(name)}`)
  }
  if (!redisUrl) throw invalidOption('--redis', `is required with --adapter ${name}: the Redis the server processes share`)
  const pub = await connectRedis(redisUrl)
  if (name === 'redis-streams') {
    const { createAdapter } = await import('@socket.io/redis-streams-adapter')
    // Its reader blocks in XREAD and only sees the close when that returns: 1 s, not the
    // default 5 s, bounds how long a closed server lingers (idle cost: one XREAD a second).
    return { name, adapter: createAdapter(pub, { blockTimeInMs: 1000 }), ready: none, close: () => quit(pub) }
  }
  const sub = pub.duplicate()
  sub.on('error', () => {}) // reconnects on its own; the library never prints
  const { createAdapter } = await import('@socket.io/redis-adapter')
  return {
    name,
    adapter: createAdapter(pub, sub),
    // Commands on one connection are answered in order: once this PING is answered, the
    // adapter's PSUBSCRIBE sent before it has taken effect.
    ready: async () => { await sub.ping() },
    close: async () => {
      // io.close() had the adapter unsubscribe without waiting; let those answers arrive
      // first (in order, before this PING's), or quitting rejects them unhandled.
      await sub.ping().catch(() => {})
      await Promise.all([quit(pub), quit(sub)])
    }
  }
}

/** @param {import('ioredis').Redis} client */
async function quit (client) {
  await client.quit().catch(() => client.disconnect())
}
