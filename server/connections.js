/**
 * Connected clients by transport, two ways: counted on connect/upgrade/disconnect events
 * (the reference server, which owns its io from the start), or read from Engine.IO's client
 * table when asked (the probe, which may be attached late and must cost nothing between
 * samples).
 */

/**
 * @typedef {{ connected: number, byTransport: { websocket: number, polling: number } }} ConnectionCounts
 */

/**
 * Counts connected clients of the main namespace by the transport they use now.
 * @param {import('socket.io').Server} io
 * @returns {{ counts: () => ConnectionCounts }}
 */
export function trackConnections (io) {
  const counts = { websocket: 0, polling: 0 }
  io.on('connection', (socket) => {
    let transport = /** @type {'websocket' | 'polling'} */ (socket.conn.transport.name === 'websocket' ? 'websocket' : 'polling')
    counts[transport]++
    socket.conn.once('upgrade', () => {
      counts.polling--
      counts.websocket++
      transport = 'websocket'
    })
    socket.once('disconnect', () => { counts[transport]-- })
  })
  return {
    counts: () => ({ connected: counts.websocket + counts.polling, byTransport: { ...counts } })
  }
}

/**
 * Engine.IO connections of a socket.io server right now, by the transport each one uses.
 * One pass over the client table: about a millisecond per 10,000 clients.
 * @param {import('socket.io').Server} io
 * @returns {ConnectionCounts}
 */
export function countEngineClients (io) {
  const byTransport = { websocket: 0, polling: 0 }
  const clients = /** @type {Record<string, { transport?: { name?: string } }>} */ (/** @type {any} */ (io.engine)?.clients ?? {})
  for (const sid in clients) {
    // Anything but polling is a persistent connection (websocket, or webtransport where enabled).
    if (clients[sid].transport?.name === 'polling') byTransport.polling++
    else byTransport.websocket++
  }
  return { connected: byTransport.websocket + byTransport.polling, byTransport }
}
