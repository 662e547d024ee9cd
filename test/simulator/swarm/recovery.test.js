/**
 * Reconnect storms against a real socket.io 4 server: sessions restored by connection state
 * recovery are counted, the messages sent while their transports were gone are replayed to
 * them, and without recovery the same gap is counted as lost deliveries.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { runSwarm } from '../../../simulator/swarm/swarm.js'
import { waitFor } from '../../helpers/wait.js'
import { startIoServer } from '../../helpers/io-server.js'

const CLIENTS = 8
const DROPPED = 6

/**
 * A socket.io server on port 0 whose handshakes can be refused for a while (the gate), so the
 * gap lasts until the test has broadcast into it.
 * @param {import('node:test').TestContext} t
 * @param {boolean} recovery
 */
async function startServer (t, recovery) {
  const gate = { open: true, refused: 0 }
  const { io, url } = await startIoServer(t, {
    pingInterval: 1000,
    pingTimeout: 1000,
    allowRequest: (req, callback) => {
      if (!gate.open) gate.refused++
      callback(null, gate.open)
    },
    ...(recovery ? { connectionStateRecovery: { maxDisconnectionDuration: 30000, skipMiddlewares: true } } : {})
  })
  return { io, gate, url }
}

// The four cases run side by side: each waits out a few reconnect backoffs.
test('reconnect storms with and without connection state recovery, both engines', { concurrency: true }, async (parent) => {
  const cases = []
  for (const recovery of [true, false]) {
    for (const engine of ['lean', 'sio']) {
      cases.push(parent.test(`a storm of transport closes, ${recovery ? 'with' : 'without'} connection state recovery (${engine}): ` +
        `${recovery ? 'sessions recovered, the gap replayed' : 'the gap lost'}`, async (t) => {
        const server = await startServer(t, recovery)
        const controller = new AbortController()
        t.after(() => controller.abort())
        /** @type {import('../../../lib/schema/result-schema.js').MessageReport[]} */
        const closed = []
        /** The swarm's own count of connected clients, once a second, and when it was taken. */
        const seen = { connected: 0, at: 0 }
        const running = runSwarm({ url: server.url, clients: CLIENTS, engine, transport: 'websocket', ramp: 0, duration: 60, event: ['news'] }, {
          signal: controller.signal,
          onMessage: (r) => closed.push(r),
          onProgress: (p) => { Object.assign(seen, { connected: p.connected, at: Date.now() }) }
        })
        const nsp = server.io.of('/')
        await waitFor(() => nsp.sockets.size === CLIENTS, { timeoutMs: 10000, message: () => `${CLIENTS} clients (have ${nsp.sockets.size})` })
        // Every client has a message (and, with recovery, its offset) before the drop.
        server.io.emit('news', { id: 'before', sentAt: Date.now() })
        await waitFor(() => closed.some((r) => r.id === 'before' && r.received === CLIENTS), {
          timeoutMs: 10000,
          message: 'every client got the first message'
        })
        server.gate.open = false
        for (const socket of [...nsp.sockets.values()].slice(0, DROPPED)) socket.conn.close()
        // Every dropped client knows it is away once it has tried to come back (and was refused).
        await waitFor(() => server.gate.refused >= DROPPED, { message: () => `${DROPPED} refused reconnects (have ${server.gate.refused})` })
        server.io.emit('news', { id: 'gap-1', sentAt: Date.now() })
        server.io.emit('news', { id: 'gap-2', sentAt: Date.now() })
        server.gate.open = true
        await waitFor(() => nsp.sockets.size === CLIENTS, { timeoutMs: 15000, message: () => `every client back (have ${nsp.sockets.size})` })
        // The server has a socket before its client reads the CONNECT ack (and, recovered, the
        // replayed packets after it): wait until the swarm itself counts everyone back.
        const backAt = Date.now()
        await waitFor(() => seen.at > backAt && seen.connected === CLIENTS, {
          timeoutMs: 10000,
          message: () => `the swarm counts every client back (has ${seen.connected})`
        })
        // Both gap messages closed (a replay later than the recorder's quiet second is a late copy
        // of a closed message; the storm counts it as replayed either way).
        await waitFor(() => closed.filter((r) => r.id.startsWith('gap-')).length === 2, { timeoutMs: 10000, message: 'both gap messages closed' })
        controller.abort()
        const result = await running
        const storms = result.clients.storms?.list ?? []
        assert.equal(storms.length, 1, JSON.stringify(storms))
        const [storm] = storms
        assert.deepEqual([storm.dropped, storm.back], [DROPPED, DROPPED])
        assert.ok(Object.values(storm.errors).reduce((a, b) => a + b, 0) >= DROPPED, `failed handshakes counted: ${JSON.stringify(storm.errors)}`)
        if (recovery) {
          assert.deepEqual([storm.recovered, storm.replayed, storm.lost], [DROPPED, 2 * DROPPED, 0], JSON.stringify(storm))
          const gap = closed.filter((r) => r.id.startsWith('gap-'))
          assert.deepEqual(gap.map((r) => r.missing), [0, 0], 'the clients that stayed got both')
        } else {
          assert.deepEqual([storm.recovered, storm.replayed, storm.lost], [0, 0, 2 * DROPPED], JSON.stringify(storm))
        }
      }))
    }
  }
  await Promise.all(cases)
})
