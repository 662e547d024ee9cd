/**
 * Test fixture: a real reference server on port 0 and a swarm against it, with helpers to
 * wait for connections and messages by events.
 */
import { startServer } from '../../server/index.js'
import { runSwarm } from '../../simulator/swarm.js'
import { waitFor } from './wait.js'

/**
 * Starts a reference server on a free loopback port; stops it after the test.
 * @param {import('node:test').TestContext} t
 * @param {import('../../server/index.js').ServerOptions} [options]
 */
export async function startTestServer (t, options = {}) {
  const server = await startServer({ port: 0, host: '127.0.0.1', token: 'test-token', ...options })
  t.after(() => server.close())
  return server
}

/**
 * Runs a swarm in the background. `stop()` ends it and resolves with the result.
 * @param {import('node:test').TestContext} t
 * @param {Record<string, unknown>} options
 */
export function startTestSwarm (t, options) {
  const controller = new AbortController()
  /** @type {import('../../lib/schema.js').MessageReport[]} */
  const closed = []
  /** @type {import('../../simulator/engines/types.js').EnginePool | undefined} */
  let pool
  const result = runSwarm({ ramp: 0, duration: 60, ...options }, {
    signal: controller.signal,
    onMessage: (report) => closed.push(report),
    onPool: (p) => { pool = p }
  })
  t.after(() => controller.abort())
  return {
    closed,
    get pool () {
      if (!pool) throw new Error('swarm has not started its clients yet')
      return pool
    },
    async stop () {
      controller.abort()
      return result
    }
  }
}

/**
 * Waits until the server has `count` clients on its main namespace.
 * @param {{ io: import('socket.io').Server }} server
 * @param {number} count
 */
export function waitForClients (server, count) {
  return waitFor(() => server.io.of('/').sockets.size === count, {
    timeoutMs: 20000,
    message: () => `${count} clients on the server (have ${server.io.of('/').sockets.size})`
  })
}
