/**
 * The plain WebSocket reference server (`ioswarm serve --protocol websocket`): a `ws` server
 * that sends every broadcast to each connected client as one JSON text frame (the message a
 * Socket.IO client would get as its event's argument: `{ id, round, seq, sentAt, payload }`),
 * with the same token-guarded POST /broadcast, rate limit and GET /stats as the socket.io
 * reference server. It accepts WebSocket connections on any path (with --auth-token, only
 * those that bring it as ?token= or "Authorization: Bearer": others are closed with 1008 right
 * after the handshake), pings every client each pingInterval and drops those that did not
 * answer the previous ping (the ws library's heartbeat). A client's `{"subscribe": "ROOM"}`
 * puts it in a room for broadcasts to that room (`broadcast --rooms R`, `--to ROOM`); it
 * ignores anything else clients send.
 * (A client's error, a bad frame, closes it: each has an error listener, else ws would throw.)
 */
import http from 'node:http'
import { randomBytes } from 'node:crypto'
import { WebSocket, WebSocketServer } from 'ws'
import { parseInteger } from '../../lib/values/parsers.js'
import { createProcessSampler } from '../../lib/measure/process-sampler.js'
import { DEFAULT_EVENT } from '../../lib/protocol.js'
import { perTransport } from '../../lib/transports.js'
import { createBroadcastHandler } from '../broadcast/broadcast.js'
import { DEFAULT_BROADCAST_RATE, createBroadcastLimiter, parseBroadcastRate } from '../broadcast/broadcast-limit.js'
import { listen, route, sendJson } from '../broadcast/http-endpoints.js'
import { handshakeCarries } from '../broadcast/token.js'

/** How long close() waits for clients to answer the close frames before it drops them. */
const CLOSE_WAIT_MS = 2000

/**
 * @typedef {import('../index.js').ServerOptions} ServerOptions
 * @typedef {import('../index.js').ServerHooks} ServerHooks
 */

/**
 * Starts the plain WebSocket reference server; resolves once it listens.
 * @param {ServerOptions} [options] pingIntervalMs, perMessageDeflate, maxHttpBufferSize (largest client message), token, broadcastRate, event, port, host
 * @param {ServerHooks} [hooks] onSample and recipients as for startServer
 */
export async function startWebSocketServer (options = {}, hooks = {}) {
  const port = parseInteger(options.port ?? 3000, '--port', { min: 0, max: 65535 })
  const token = options.token || randomBytes(18).toString('base64url')
  const limiter = createBroadcastLimiter(parseBroadcastRate(options.broadcastRate ?? DEFAULT_BROADCAST_RATE))
  const httpServer = http.createServer()
  const wss = new WebSocketServer({ server: httpServer, perMessageDeflate: options.perMessageDeflate ?? false, maxPayload: options.maxHttpBufferSize ?? 1e6 })
  const refused = { count: 0 }
  /** @type {Rooms} */
  const rooms = new Map()
  wss.on('connection', (ws, req) => onConnection(ws, req, options.authToken ?? null, refused, rooms))
  const heartbeat = setInterval(() => pingAll(wss), options.pingIntervalMs ?? 25000)
  const relay = createRelay(wss, rooms)
  const broadcast = createBroadcastHandler({ io: /** @type {any} */ (relay), defaultEvent: options.event ?? DEFAULT_EVENT, recipients: hooks.recipients })
  const byTransport = () => perTransport((name) => (name === 'websocket' ? wss.clients.size : 0))
  const counts = () => ({ connected: wss.clients.size, byTransport: byTransport(), refused: refused.count })
  const sampler = createProcessSampler()
  const stats = () => ({ ...sampler.sample(), ...counts() })
  const hookSampler = hooks.onSample ? createProcessSampler() : undefined
  const sampleTimer = hookSampler && setInterval(() => hooks.onSample?.({ ...hookSampler.sample(), ...counts() }), hooks.sampleIntervalMs ?? 1000)
  httpServer.on('request', (req, res) => {
    route(req, res, { token, broadcast, limiter, stats: hooks.stats ?? stats, maxBodyBytes: options.maxBodyBytes ?? 1 << 20 }).catch((error) => {
      sendJson(res, 500, { error: /** @type {Error} */ (error).message })
    })
  })
  let address
  try {
    address = await listen(httpServer, port, options.host)
  } catch (error) {
    clearInterval(heartbeat)
    clearInterval(sampleTimer)
    wss.close()
    throw error
  }
  const host = options.host && options.host !== '0.0.0.0' && options.host !== '::' ? options.host : 'localhost'
  return {
    wss,
    httpServer,
    port: address.port,
    url: `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`,
    token,
    tokenGenerated: !options.token,
    stats,
    broadcast,
    async close () {
      clearInterval(heartbeat)
      clearInterval(sampleTimer)
      sampler.stop()
      hookSampler?.stop()
      await closeAll(wss, httpServer)
    }
  }
}

/** The heartbeat flag of a client: set by its pong, cleared by each ping. */
const alive = new WeakSet()

/** @typedef {Map<string, Set<WebSocket>>} Rooms the clients that subscribed to each room */

/**
 * What createBroadcastHandler emits through, shaped as the part of a socket.io server it
 * uses: one namespace whose emit() sends to every client and whose to(room).emit() sends to
 * the room's subscribers, with their counts.
 * @param {WebSocketServer} wss
 * @param {Rooms} rooms
 */
function createRelay (wss, rooms) {
  const nsp = {
    emit: (/** @type {string} */ _event, /** @type {unknown} */ message) => sendTo(wss.clients, message),
    to: (/** @type {string} */ room) => ({ emit: (/** @type {string} */ _event, /** @type {unknown} */ message) => sendTo(rooms.get(room) ?? [], message) }),
    sockets: wss.clients,
    adapter: { rooms }
  }
  return { of: () => nsp }
}

/**
 * A client's message: `{"subscribe": "ROOM"}` puts it in that room (what --send-on-open
 * '{"subscribe":"{{room}}"}' sends); anything else is ignored.
 * @param {WebSocket} ws
 * @param {Rooms} rooms
 * @param {Buffer} data
 */
function onClientMessage (ws, rooms, data) {
  let room
  try {
    room = JSON.parse(String(data))?.subscribe
  } catch {
    return
  }
  if (typeof room !== 'string' || room.length === 0 || room.length > 200) return
  let members = rooms.get(room)
  if (members === undefined) rooms.set(room, members = new Set())
  members.add(ws)
  ws.once('close', () => {
    members.delete(ws)
    if (members.size === 0 && rooms.get(room) === members) rooms.delete(room)
  })
}

/**
 * @param {WebSocket} ws
 * @param {http.IncomingMessage} req the upgrade request
 * @param {string | null} authToken --auth-token: clients must bring it (?token= or Authorization: Bearer)
 * @param {{ count: number }} refused
 * @param {Rooms} rooms
 */
function onConnection (ws, req, authToken, refused, rooms) {
  ws.on('error', () => {})
  if (authToken !== null) {
    const query = Object.fromEntries(new URL(req.url ?? '/', 'http://x').searchParams)
    if (!handshakeCarries(authToken, { query, headers: req.headers })) {
      // After the handshake, as many servers do (the token is read in the connection handler):
      // a client counts it as a refusal with its code and reason.
      refused.count++
      ws.close(1008, 'unauthorized')
      return
    }
  }
  alive.add(ws)
  ws.on('pong', onPong)
  ws.on('message', (data) => onClientMessage(ws, rooms, /** @type {Buffer} */ (data)))
}

/** @this {WebSocket} */
function onPong () {
  alive.add(this)
}

/**
 * Drops the clients that did not answer the last ping, pings the others.
 * @param {WebSocketServer} wss
 */
function pingAll (wss) {
  for (const ws of wss.clients) {
    if (!alive.has(ws)) {
      ws.terminate()
      continue
    }
    alive.delete(ws)
    ws.ping()
  }
}

/**
 * One JSON text frame to every open client of a set (serialised once).
 * @param {Iterable<WebSocket>} clients
 * @param {unknown} message
 */
function sendTo (clients, message) {
  const data = Buffer.from(JSON.stringify(message))
  for (const ws of clients) if (ws.readyState === WebSocket.OPEN) ws.send(data, { binary: false })
}

/**
 * Closes every client with 1001 (going away: clients reconnect, to the next instance in a
 * rolling restart), waits (bounded) for them, then stops listening.
 * @param {WebSocketServer} wss
 * @param {http.Server} httpServer
 */
async function closeAll (wss, httpServer) {
  for (const ws of wss.clients) ws.close(1001, 'server shutting down')
  const deadline = Date.now() + CLOSE_WAIT_MS
  while (wss.clients.size > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20))
  for (const ws of wss.clients) ws.terminate()
  await new Promise((resolve) => wss.close(() => resolve(undefined)))
  httpServer.closeAllConnections()
  await new Promise((resolve) => httpServer.close(() => resolve(undefined)))
}
