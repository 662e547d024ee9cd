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
 * Counts connected clients of the main namespace by the transport they use now.
 * @param {import('socket.io').Server} io
 * @returns {{ counts: () => ConnectionCounts }}
 */
export function trackConnections (io) {
  const counts = perTransport(() => 0)
  io.on('connection', (socket) => {
    let transport = wireOf(socket.conn.transport.name)
    counts[transport]++
    socket.conn.once('upgrade', (/** @type {{ name: string }} */ upgraded) => {
      counts[transport]--
      transport = wireOf(upgraded.name)
      counts[transport]++
    })
    socket.once('disconnect', () => { counts[transport]-- })
  })
  return {
    counts: () => ({ connected: totalOf(counts), byTransport: { ...counts } })
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
