/**
 * A plain WebSocket server on the ws library (pinned as ws-v8 in test/peers/package.json), for
 * ioswarm's --protocol websocket interop tests. Configured by environment:
 *   MODE       json (default): {"id","sentAt"} text frames; text: "tick N" (no id); binary: 16 bytes
 *   FRAGMENT   1: every message in two frames (a fragmented message)
 *   TOKEN      when set, a client whose ?token= differs is closed with 1008 "bad token" after the handshake
 *   SUBPROTOCOL  when set, the server picks it when offered (and no other)
 *   PING_INTERVAL_MS  when set, the server pings every client this often and drops those that did not answer
 * Listens on 127.0.0.1:0 (WebSocket on any path), prints {"port": N} once listening.
 * GET /emit?count=N sends N messages to every client; GET /count answers the clients it
 * counts, the messages they sent it, the clients it refused and the pongs it got.
 */
import http from 'node:http'
import { randomBytes } from 'node:crypto'
import { WebSocketServer } from 'ws-v8'

const mode = process.env.MODE ?? 'json'
const fragment = process.env.FRAGMENT === '1'
const token = process.env.TOKEN ?? ''
const subprotocol = process.env.SUBPROTOCOL ?? ''
const pingIntervalMs = Number(process.env.PING_INTERVAL_MS ?? 0)
let sent = 0
let received = 0
let refused = 0
let pongs = 0

const server = http.createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://x')
  if (url.pathname === '/emit') {
    const count = Number(url.searchParams.get('count') ?? 1)
    for (let k = 0; k < count; k++) emit()
    res.end(JSON.stringify({ sent: count }))
  } else if (url.pathname === '/count') {
    res.end(JSON.stringify({ connected: wss.clients.size, received, refused, pongs }))
  } else {
    res.statusCode = 404
    res.end()
  }
})
const wss = new WebSocketServer({
  server,
  ...(subprotocol ? { handleProtocols: (/** @type {Set<string>} */ offered) => (offered.has(subprotocol) ? subprotocol : false) } : {})
})
wss.on('connection', (ws, req) => {
  if (token && new URL(req.url ?? '/', 'http://x').searchParams.get('token') !== token) {
    refused++
    ws.close(1008, 'bad token')
    return
  }
  ws.on('message', () => { received++ })
  ws.on('pong', () => { ws.alive = true; pongs++ })
  ws.alive = true
})
if (pingIntervalMs > 0) {
  setInterval(() => {
    for (const ws of wss.clients) {
      if (!ws.alive) ws.terminate()
      ws.alive = false
      ws.ping()
    }
  }, pingIntervalMs)
}

function emit () {
  sent++
  const binary = mode === 'binary'
  const data = binary ? randomBytes(16) : Buffer.from(mode === 'text' ? `tick ${sent}` : JSON.stringify({ id: `ws-${sent}`, sentAt: Date.now() }))
  for (const ws of wss.clients) {
    if (ws.readyState !== 1) continue
    if (!fragment) {
      ws.send(data, { binary })
      continue
    }
    const half = Math.floor(data.length / 2)
    ws.send(data.subarray(0, half), { binary, fin: false })
    ws.send(data.subarray(half), { binary, fin: true })
  }
}

server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: /** @type {import('node:net').AddressInfo} */ (server.address()).port })}\n`)
})
for (const signal of ['SIGTERM', 'SIGINT']) process.on(signal, () => process.exit(0))
