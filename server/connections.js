/**
 * Connected clients by transport, two ways: counted on connect/upgrade/disconnect events
 * (the reference server, which owns its io from the start), or read from Engine.IO's client
 * table when asked (the probe, which may be attached late and must cost nothing between
 * samples).
 */
import { perTransport, totalOf, wireOf } from '../lib/transports.js'

/**
 * @typedef {{ connected: number, byTransport: import('../lib/transports.js').ByTransport }} ConnectionCounts
 */

/**
 * Counts connected clients by the transport they use now: an Engine.IO connection counts
 * once it has a socket on one of `namespaces` (a client multiplexing several namespaces over
 * its connection is one client), until it closes.
 * @param {import('socket.io').Server} io
 * @param {string[]} [namespaces] the app namespaces
 * @returns {{ counts: () => ConnectionCounts, closes: () => Record<string, number> }}
 */
export function trackConnections (io, namespaces = ['/']) {
  const counts = perTransport(() => 0)
  /** @type {WeakSet<object>} */
  const counted = new WeakSet()
  /** Connections closed, by Engine.IO's reason: 'ping timeout' (the client did not answer a ping in time), 'transport close' (the client closed), … */
  /** @type {Record<string, number>} */
  const closes = {}
  const onConnection = (/** @type {import('socket.io').Socket} */ socket) => {
    const conn = socket.conn
    if (counted.has(conn)) return
    counted.add(conn)
    let transport = wireOf(conn.transport.name)
    counts[transport]++
    conn.once('upgrade', (/** @type {{ name: string }} */ upgraded) => {
      counts[transport]--
      transport = wireOf(upgraded.name)
      counts[transport]++
    })
    conn.once('close', (/** @type {string} */ reason) => {
      counts[transport]--
      // Engine.IO's own few reasons (a fixed set), never a client's text: the record stays small.
      closes[reason] = (closes[reason] ?? 0) + 1
    })
  }
  for (const name of namespaces) io.of(name).on('connection', onConnection)
  return {
    counts: () => ({ connected: totalOf(counts), byTransport: { ...counts } }),
    closes: () => ({ ...closes })
  }
}

/**
 * Engine.IO connections of a socket.io server right now, by the transport each one uses.
 * One pass over the client table: about a millisecond per 10,000 clients.
 * @param {import('socket.io').Server} io
 * @returns {ConnectionCounts}
 */
export function countEngineClients (io) {
  const byTransport = perTransport(() => 0)
  const clients = /** @type {Record<string, { transport?: { name?: string } }>} */ (/** @type {any} */ (io.engine)?.clients ?? {})
  // A transport we do not know (webtransport, where enabled) counts as a persistent connection.
  for (const sid in clients) byTransport[wireOf(clients[sid].transport?.name)]++
  return { connected: totalOf(byTransport), byTransport }
}
