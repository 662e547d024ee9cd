/**
 * Test fixture: a real reference server on port 0 and a swarm against it, with helpers to
 * wait for connections and messages by events.
 */
import { startServer } from '../../server/index.js'
import { runSwarm } from '../../simulator/swarm/swarm.js'
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
 * @param {Pick<import('../../simulator/swarm/swarm.js').SwarmHooks, 'clock'>} [hooks] more of the swarm's hooks (a clock offset, as a collector measures it)
 */
export function startTestSwarm (t, options, hooks = {}) {
  const controller = new AbortController()
  /** @type {import('../../lib/schema/result-schema.js').MessageReport[]} */
  const closed = []
  /** @type {import('../../simulator/engines/types.js').EnginePool | undefined} */
  let pool
  /** @type {import('../../simulator/swarm/swarm.js').Progress | null} */
  let progress = null
  const result = runSwarm({ ramp: 0, duration: 60, ...options }, {
    ...hooks,
    signal: controller.signal,
    onMessage: (report) => closed.push(report),
    onPool: (p) => { pool = p },
    onProgress: (p) => { progress = p }
  })
  t.after(() => controller.abort())
  return {
    closed,
    /** The latest progress (once a second), or null before the first. */
    get progress () {
      return progress
    },
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

/**
 * Waits until `count` clients are on the main namespace and each of them has answered two
 * pings since this was called. The server counts a socket as soon as it sends the CONNECT
 * ack; a client that has not read it yet does not count itself connected, so a broadcast
 * sent now may reach it in the same read as its ack, and it is received but not expected.
 * The second ping goes out after the first pong, so after the CONNECT ack: its pong proves
 * the client has read the ack. Needs a server with a short pingIntervalMs.
 * @param {{ io: import('socket.io').Server }} server
 * @param {number} count
 */
export async function waitForClientsReady (server, count) {
  const nsp = server.io.of('/')
  /** @type {Set<string>} */
  const ready = new Set()
  /** @type {(() => void)[]} */
  const detach = []
  const watch = (/** @type {import('socket.io').Socket} */ socket) => {
    let pongs = 0
    const onPacket = (/** @type {{ type: string }} */ packet) => {
      if (packet.type === 'pong' && ++pongs === 2) ready.add(socket.id)
    }
    socket.conn.on('packet', onPacket)
    detach.push(() => socket.conn.off('packet', onPacket))
  }
  for (const socket of nsp.sockets.values()) watch(socket)
  nsp.on('connection', watch)
  try {
    await waitFor(() => [...ready].filter((id) => nsp.sockets.has(id)).length === count && nsp.sockets.size === count, {
      timeoutMs: 20000,
      message: () => `${count} clients on the server that answered two pings (have ${nsp.sockets.size} clients, ${ready.size} answered)`
    })
  } finally {
    nsp.off('connection', watch)
    for (const off of detach) off()
  }
}
