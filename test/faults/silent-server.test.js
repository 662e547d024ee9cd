/**
 * Fault: a server that completes the Engine.IO and Socket.IO handshakes, then never sends
 * another byte (no pings). Clients must notice by themselves (the test's wait bounds how long
 * that may take), not before pingInterval + pingTimeout, and count a 'ping timeout'.
 */
import assert from 'node:assert/strict'
import http from 'node:http'
import { test } from 'node:test'
import { WebSocketServer } from 'ws'
import { runSwarm } from '../../simulator/swarm/swarm.js'
import { waitFor } from '../helpers/wait.js'

const CLIENTS = 4
const PING_INTERVAL_MS = 300
const PING_TIMEOUT_MS = 200
const OPEN = `0${JSON.stringify({ sid: 'silent', upgrades: [], pingInterval: PING_INTERVAL_MS, pingTimeout: PING_TIMEOUT_MS, maxPayload: 1e6 })}`

/**
 * The silent server; records when it wrote each client's open packet (the client's heartbeat
 * window starts after it has read it) and when the client closed its socket.
 * @param {import('node:test').TestContext} t
 */
async function startSilentServer (t) {
  /** @type {{ openedAt: number, connectedAt: number, closedAt: number | null }[]} */
  const sockets = []
  const server = http.createServer((req, res) => {
    // The simulator's handshake probe (polling open, then close): answer it, then go quiet.
    if (req.method === 'POST') return res.end('ok')
    res.end(OPEN)
  })
  const wss = new WebSocketServer({ server })
  wss.on('connection', (ws) => {
    const record = { openedAt: performance.now(), connectedAt: 0, closedAt: /** @type {number | null} */ (null) }
    ws.send(OPEN)
    ws.on('message', (data) => {
      if (String(data).startsWith('40') && record.connectedAt === 0) {
        ws.send('40{"sid":"ns-silent"}')
        record.connectedAt = performance.now()
        sockets.push(record)
      }
    })
    ws.on('close', () => { record.closedAt = performance.now() })
  })
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)))
  t.after(() => {
    for (const client of wss.clients) client.terminate()
    wss.close()
    server.closeAllConnections()
    return new Promise((resolve) => server.close(() => resolve(undefined)))
  })
  return { url: `http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (server.address()).port}`, sockets }
}

for (const engine of ['lean', 'sio']) {
  test(`${engine}: clients notice a server that stopped pinging and count a ping timeout`, async (t) => {
    const server = await startSilentServer(t)
    const controller = new AbortController()
    t.after(() => controller.abort())
    const result = runSwarm(
      { url: server.url, clients: CLIENTS, engine, transport: 'websocket', ramp: 0, reconnect: false, duration: 30 },
      { signal: controller.signal }
    )
    await waitFor(() => server.sockets.length === CLIENTS && server.sockets.every((s) => s.closedAt !== null), {
      timeoutMs: 15000,
      message: () => `${CLIENTS} clients to connect and then close on their own (${JSON.stringify(server.sockets)})`
    })
    controller.abort()
    const { clients } = await result
    assert.equal(clients.everConnected, CLIENTS)
    assert.deepEqual(clients.disconnects, { 'ping timeout': CLIENTS })
    // Not before the announced window (timers fire late, never early; 50 ms for clock reads); how soon after is not a
    // test's business (the wait above bounds it).
    for (const s of server.sockets) {
      const noticedMs = /** @type {number} */ (s.closedAt) - s.openedAt
      assert.ok(noticedMs >= PING_INTERVAL_MS + PING_TIMEOUT_MS - 50, `noticed ${noticedMs.toFixed(0)} ms after the open packet`)
    }
  })
}
