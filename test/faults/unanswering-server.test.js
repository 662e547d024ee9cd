/**
 * Fault: a server that accepts TCP connections and never sends a byte. A run shorter than
 * the engines' own connect timeout used to end with "connect errors: none"; the inspection
 * now says the handshakes timed out, and every connect still unanswered at the end is
 * counted under its reason.
 */
import assert from 'node:assert/strict'
import net from 'node:net'
import { test } from 'node:test'
import { PENDING_AT_END } from '../../simulator/swarm/client-tracker.js'
import { formatSimSummary } from '../../simulator/reporting/summary-text.js'
import { runSwarm } from '../../simulator/swarm/swarm.js'

const CLIENTS = 3

test('a server that never answers: the handshakes timed out, and the connects pending at the end are counted (both engines)', async (t) => {
  /** @type {Set<net.Socket>} */
  const sockets = new Set()
  const silent = net.createServer((socket) => {
    sockets.add(socket)
    socket.on('error', () => {})
  })
  await new Promise((resolve) => silent.listen(0, '127.0.0.1', () => resolve(undefined)))
  t.after(() => {
    for (const s of sockets) s.destroy()
    return new Promise((resolve) => silent.close(() => resolve(undefined)))
  })
  const url = `http://127.0.0.1:${/** @type {net.AddressInfo} */ (silent.address()).port}`
  // Shorter than the engines' 20 s connect timeout: every connect is still pending at the end.
  const results = await Promise.all(['lean', 'sio'].map((engine) => runSwarm({ url, clients: CLIENTS, engine, transport: 'websocket', ramp: 0, duration: 2 })))
  for (const result of results) {
    assert.match(
      String(result.server.handshakeError),
      /\(the handshakes timed out: the server took the connections and answered nothing in 5 s, on polling and on WebSocket\)$/
    )
    assert.equal(result.clients.everConnected, 0)
    assert.deepEqual(result.clients.errors, { [PENDING_AT_END]: CLIENTS }, result.engine)
    assert.equal(result.timeline.reduce((sum, p) => sum + p.errors, 0), CLIENTS, 'the timeline counts them too')
    assert.match(formatSimSummary(result), new RegExp(`connect errors: timeout \\(no answer by the end of the run\\): ${CLIENTS}`))
  }
})
