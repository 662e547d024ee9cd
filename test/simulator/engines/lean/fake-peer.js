/**
 * A deliberately misbehaving Engine.IO peer for tests a real socket.io server cannot stage:
 * it answers the handshake and the namespace CONNECT, then sends a script (malformed frames)
 * or nothing at all (a server whose pings stopped). Real sockets on loopback, port 0.
 */
import { createServer } from 'node:http'
import { once } from 'node:events'
import { performance } from 'node:perf_hooks'
import { WebSocketServer } from 'ws'

/** The open packet the peer sends: short heartbeat so a silent peer is noticed fast. */
export const OPEN_PACKET = '0{"sid":"fake-sid","upgrades":[],"pingInterval":300,"pingTimeout":200,"maxPayload":1000000}'
const CONNECT_ACK = '40{"sid":"fake-socket"}'

/**
 * Starts a peer on both transports (WebSocket upgrade and polling on the same port).
 * @param {import('node:test').TestContext} t
 * @param {{ ws?: (string | Buffer)[], polling?: string[], open?: string }} [script] after the CONNECT ack:
 *   WebSocket frames, and polling response bodies (one per GET); open: the Engine.IO open packet (default OPEN_PACKET,
 *   whose heartbeat of 0.5 s the peer never keeps: a client times out unless its test is done sooner)
 */
export async function startFakePeer (t, script = {}) {
  const httpServer = createServer()
  const wss = new WebSocketServer({ noServer: true })
  /** @type {Set<import('node:http').ServerResponse>} */
  const heldPolls = new Set()
  // openedAt: performance.now() when the latest open packet was written (a client's heartbeat window starts after it).
  const stats = { handshakes: 0, connects: 0, openedAt: 0 }
  /** @type {string[]} */
  const pollQueue = []
  httpServer.on('upgrade', (req, socket, head) => {
    wss.handleUpgrade(req, socket, head, (ws) => {
      stats.handshakes++
      stats.openedAt = performance.now()
      ws.send(script.open ?? OPEN_PACKET)
      ws.on('message', (data) => {
        if (String(data).startsWith('40')) {
          stats.connects++
          ws.send(CONNECT_ACK)
          for (const frame of script.ws ?? []) ws.send(frame)
        }
      })
    })
  })
  httpServer.on('request', (req, res) => {
    const url = new URL(req.url ?? '/', 'http://x')
    if (req.method === 'POST') {
      let body = ''
      req.on('data', (chunk) => { body += chunk })
      req.on('end', () => {
        if (body.startsWith('40')) {
          stats.connects++
          pollQueue.push(CONNECT_ACK, ...(script.polling ?? []))
          flushPolls()
        }
        res.end('ok')
      })
      return
    }
    if (!url.searchParams.has('sid')) {
      stats.handshakes++
      stats.openedAt = performance.now()
      res.end(script.open ?? OPEN_PACKET)
      return
    }
    heldPolls.add(res)
    res.on('close', () => heldPolls.delete(res))
    flushPolls()
  })
  /** Answers one held poll per queued body; with nothing queued, polls stay open: a silent server. */
  function flushPolls () {
    for (const res of heldPolls) {
      const body = pollQueue.shift()
      if (body === undefined) return
      heldPolls.delete(res)
      res.end(body)
    }
  }
  return { url: await listenForTest(t, httpServer, wss), stats }
}

/**
 * Listens on a free loopback port; after the test, ends every WebSocket and connection and
 * closes the server.
 * @param {import('node:test').TestContext} t
 * @param {import('node:http').Server} httpServer
 * @param {WebSocketServer} wss
 * @returns {Promise<string>} the server's http:// URL
 */
export async function listenForTest (t, httpServer, wss) {
  httpServer.listen(0, '127.0.0.1')
  await once(httpServer, 'listening')
  t.after(() => {
    for (const ws of wss.clients) ws.terminate()
    httpServer.closeAllConnections()
    httpServer.close()
  })
  const { port } = /** @type {import('node:net').AddressInfo} */ (httpServer.address())
  return `http://127.0.0.1:${port}`
}
