/**
 * Test fixture: a socket.io 4 app server of the kind the scenario features are for, built in
 * the test from the real socket.io package on a loopback port 0: rooms joined by a `join`
 * emit with an ack, a `chat` event relayed to the sender's room with an ack, optional
 * namespaces (one may refuse everyone), and direct access to `io` so a test can emit to
 * rooms itself, correctly or on purpose wrongly.
 */
import http from 'node:http'
import { Server } from 'socket.io'
import { waitFor } from './wait.js'

/**
 * @param {import('node:test').TestContext} t
 * @param {{ namespaces?: string[], refuse?: string[], ackJoins?: boolean, relay?: boolean, relayDelayMs?: number, authToken?: string }} [options]
 *   refuse: namespaces whose middleware refuses every client ('unauthorized'); ackJoins: false = join without answering;
 *   relay: false = chat lines are counted, never relayed nor acknowledged; relayDelayMs: relay and ack each line this long after
 *   hearing it (lines in flight); authToken: refuse a handshake whose auth.token is another
 */
export async function startAppServer (t, { namespaces = ['/'], refuse = [], ackJoins = true, relay = true, relayDelayMs = 0, authToken } = {}) {
  const httpServer = http.createServer()
  const io = new Server(httpServer, { pingInterval: 1000, pingTimeout: 2000 })
  const counts = { joins: 0, chats: 0, lastJoinAt: 0, firstChatAt: 0 }
  const fences = fenceJoins(io)
  for (const name of [...namespaces, ...refuse]) {
    const nsp = io.of(name)
    if (refuse.includes(name)) nsp.use((_socket, next) => next(new Error('unauthorized')))
    if (authToken !== undefined) nsp.use((socket, next) => next(socket.handshake.auth?.token === authToken ? undefined : new Error('unauthorized')))
    nsp.on('connection', (socket) => {
      socket.on('join', (/** @type {{ room?: string }} */ data, /** @type {((answer: unknown) => void) | undefined} */ ack) => {
        counts.joins++
        counts.lastJoinAt = Date.now()
        const room = data?.room
        if (typeof room !== 'string' || room === 'full') return ack?.({ ok: false, error: 'no such room' })
        socket.join(room)
        fences.acked(socket.conn)
        if (ackJoins) ack?.({ ok: true, room })
      })
      socket.on('chat', (/** @type {{ room?: string }} */ data, /** @type {((answer: unknown) => void) | undefined} */ ack) => {
        counts.chats++
        counts.firstChatAt ||= Date.now()
        if (!relay) return // heard, never relayed or acknowledged
        const target = typeof data?.room === 'string' ? nsp.to(data.room) : nsp
        const answer = () => {
          target.emit('chat', data)
          ack?.({ ok: true })
        }
        if (relayDelayMs > 0) setTimeout(answer, relayDelayMs)
        else answer()
      })
    })
  }
  await new Promise((resolve) => httpServer.listen(0, '127.0.0.1', () => resolve(undefined)))
  t.after(() => new Promise((resolve) => { io.close(); httpServer.close(() => resolve(undefined)) }))
  const { port } = /** @type {import('node:net').AddressInfo} */ (httpServer.address())
  /** Sockets of a room in a namespace. @param {string} room @param {string} [nsp] */
  const roomSize = (room, nsp = '/') => io.of(nsp).adapter.rooms.get(room)?.size ?? 0
  // The server is in a room before its ack reaches the client, and a swarm expects a room's
  // message only of clients that know they joined: a test waits for the acks to land (every
  // client answered a fence after its last join's ack) before it sends room messages.
  /** @param {number} [joins] joins the server must have heard first (default: any) */
  const joinsSettled = (joins = 1) => waitFor(() => counts.joins >= joins && fences.settled(), {
    timeoutMs: 15000, message: () => `${joins} joins heard (have ${counts.joins}), each client past a fence after its join's ack (${fences.pending()} not yet)`
  })
  return { io, url: `http://127.0.0.1:${port}`, counts, roomSize, joinsSettled }
}

/**
 * Fences after join acks: once a connection's join is acked, the next Engine.IO ping the server
 * writes on it goes out after the ack, and one connection's packets are read in order, so the
 * client's pong to that ping says it has read the ack (and counts itself in the room). Needs
 * a short pingInterval (this server's is 1 s).
 * @param {import('socket.io').Server} io
 */
function fenceJoins (io) {
  /** Connections with an acked join not yet fenced; pinged: a ping was written after the ack. @type {Map<object, { pinged: boolean }>} */
  const waiting = new Map()
  io.engine.on('connection', (/** @type {import('engine.io').Socket} */ conn) => {
    conn.on('packetCreate', (/** @type {{ type: string }} */ packet) => {
      const state = waiting.get(conn)
      if (packet.type === 'ping' && state) state.pinged = true
    })
    conn.on('packet', (/** @type {{ type: string }} */ packet) => {
      if (packet.type === 'pong' && waiting.get(conn)?.pinged) waiting.delete(conn)
    })
    conn.on('close', () => waiting.delete(conn))
  })
  return {
    /** A join is acked on this connection now (its ack is written next): fence it again. @param {object} conn */
    acked: (conn) => { waiting.set(conn, { pinged: false }) },
    settled: () => waiting.size === 0,
    pending: () => waiting.size
  }
}
