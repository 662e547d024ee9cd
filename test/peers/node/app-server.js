/**
 * A chat-like app on the pinned socket.io 4 (test/peers/node_modules), for ioswarm's tests of
 * identity, rooms, relays and delivery correctness. Written apart from ioswarm's own server,
 * as an app author would, speaking the same protocol:
 *
 * - AUTH_TOKEN: a middleware on every namespace refuses a handshake without the token in
 *   `auth.token`, the query parameter `token` or `Authorization: Bearer` (CONNECT_ERROR
 *   "unauthorized").
 * - NAMESPACES (comma-separated, default /); `join` / `leave` with `{ room }` or a name,
 *   acked `{ ok: true, room }`; `chat` with `{ room?, … }` relayed unchanged to the room (the
 *   sender too) or the namespace, acked `{ ok: true, recipients }`.
 * - POST /broadcast with ioswarm's body (event, room | rooms, namespace, count, intervalMs,
 *   round, seq, batch, size): messages `{ id, batch, round, seq, sentAt, room, payload }`,
 *   answered `{ messages: [{ id, event, sentAt, recipients, room }] }`.
 * - GET /count: `{ connected, byNamespace, refused, rooms }` (rooms: per namespace, each room's
 *   size, without the sockets' own id rooms).
 * - Faults, for tests that must catch them: FAULT_WRONG_ROOM_EVERY=N sends every Nth
 *   room-targeted message (broadcasts and relays counted apart) to the next room instead
 *   (rooms of the namespace in natural order, cyclic; everyone outside the room when it is the
 *   only one); FAULT_DUPLICATE_EVERY=M emits every Mth one twice. GET /ledger answers who got
 *   which copies of every room-targeted message: see ledger.js.
 * - IDENTITY_FIELD (default user): the ledger names each socket by this field of its
 *   handshake auth, else query, else header x-<field>.
 *
 * Listens on 127.0.0.1:0 and prints {"port": N}; SIGTERM/SIGINT stop it.
 */
import http from 'node:http'
import { createLedger } from './ledger.js'

const { Server } = await import('socket.io-v4')
const env = process.env
const namespaces = (env.NAMESPACES || '/').split(',').filter(Boolean)
const authToken = env.AUTH_TOKEN || null
const faults = { wrongRoomEvery: Number(env.FAULT_WRONG_ROOM_EVERY || 0), duplicateEvery: Number(env.FAULT_DUPLICATE_EVERY || 0) }
const identityField = env.IDENTITY_FIELD || 'user'
const pingInterval = Number(env.PING_INTERVAL_MS || 25000)

const server = http.createServer()
const io = new Server(server, { pingInterval, pingTimeout: Math.min(20000, pingInterval), cors: { origin: '*' } })
const ledger = createLedger({ faults, identityField })
let refused = 0

/** @param {unknown} payload */
const roomOf = (payload) => {
  const room = typeof payload === 'string' ? payload : /** @type {any} */ (payload)?.room
  return typeof room === 'string' && room.length > 0 && room.length <= 200 ? room : null
}

for (const name of namespaces) {
  const nsp = io.of(name)
  if (authToken) {
    nsp.use((socket, next) => {
      const { auth, query, headers } = socket.handshake
      const bearer = typeof headers.authorization === 'string' && headers.authorization.startsWith('Bearer ') ? headers.authorization.slice(7) : null
      if (auth?.token === authToken || query.token === authToken || bearer === authToken) return next()
      refused++
      next(new Error('unauthorized'))
    })
  }
  nsp.on('connection', (socket) => {
    for (const event of ['join', 'leave']) {
      socket.on(event, (payload, ack) => {
        const reply = typeof ack === 'function' ? ack : () => {}
        const room = roomOf(payload)
        if (room === null) return reply({ ok: false, error: 'room must be a string of 1 to 200 characters' })
        if (event === 'join') socket.join(room)
        else socket.leave(room)
        reply({ ok: true, room })
      })
    }
    socket.on('chat', (payload, ack) => {
      const reply = typeof ack === 'function' ? ack : () => {}
      if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) return reply({ ok: false, error: 'chat takes an object { room?, … }' })
      if (payload.room !== undefined && roomOf(payload) === null) return reply({ ok: false, error: 'room must be a string of 1 to 200 characters' })
      if (payload.room === undefined) {
        nsp.emit('chat', payload)
        return reply({ ok: true, recipients: nsp.sockets.size })
      }
      reply({ ok: true, recipients: ledger.send(nsp, 'relay', ledger.decide('relay'), payload.room, 'chat', payload, payload.id) })
    })
  })
}

/**
 * @param {any} body
 */
async function broadcast (body) {
  const event = body.event ?? 'broadcast'
  const count = body.count ?? 1
  const round = body.round ?? 0
  const targets = body.namespace === undefined ? namespaces : [body.namespace].flat()
  if (targets.some((n) => !namespaces.includes(n))) throw new Error(`namespace must be one of ${namespaces.join(', ')}`)
  const sent = []
  for (let k = 0; k < count; k++) {
    if (k > 0 && body.intervalMs > 0) await new Promise((resolve) => setTimeout(resolve, body.intervalMs))
    const seq = (body.seq ?? 1) + k
    const id = round > 0 ? `${round}.${seq}` : `p${ledger.nextId()}`
    const room = body.room ?? (body.rooms ? `room-${(seq - 1) % body.rooms}` : null)
    const sentAt = Date.now()
    const message = { id, ...(body.batch ? { batch: body.batch } : {}), round, seq, sentAt, ...(room ? { room } : {}), payload: 'x'.repeat(body.size ?? 0) }
    const decision = room ? ledger.decide('broadcast') : null
    let recipients = 0
    for (const name of targets) {
      const nsp = io.of(name)
      if (room && decision) {
        recipients += ledger.send(nsp, 'broadcast', decision, room, event, message, id)
      } else {
        nsp.emit(event, message)
        recipients += nsp.sockets.size
      }
    }
    sent.push({ id, event, sentAt, recipients, ...(room ? { room } : {}) })
  }
  return sent
}

server.on('request', async (req, res) => {
  const url = new URL(req.url ?? '/', 'http://x')
  const json = (/** @type {number} */ status, /** @type {unknown} */ body) => {
    res.writeHead(status, { 'content-type': 'application/json' })
    res.end(JSON.stringify(body))
  }
  if (url.pathname.startsWith('/socket.io')) return
  if (req.method === 'POST' && url.pathname === '/broadcast') {
    let text = ''
    for await (const chunk of req) text += chunk
    try {
      json(200, { messages: await broadcast(text ? JSON.parse(text) : {}) })
    } catch (error) {
      json(400, { error: /** @type {Error} */ (error).message })
    }
  } else if (url.pathname === '/count') {
    const byNamespace = Object.fromEntries(namespaces.map((n) => [n, io.of(n).sockets.size]))
    // Clients with a socket on one of the namespaces (one connection may multiplex several).
    const connected = new Set(namespaces.flatMap((n) => [...io.of(n).sockets.values()].map((socket) => socket.conn.id))).size
    const rooms = Object.fromEntries(namespaces.map((n) => {
      const nsp = io.of(n)
      return [n, Object.fromEntries([...nsp.adapter.rooms].filter(([room]) => !nsp.sockets.has(room)).map(([room, sids]) => [room, sids.size]))]
    }))
    json(200, { connected, byNamespace, refused, rooms })
  } else if (url.pathname === '/ledger') {
    json(200, ledger.report())
  } else {
    json(404, { error: 'not found' })
  }
})

server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: /** @type {import('node:net').AddressInfo} */ (server.address()).port })}\n`)
})
const stop = () => { io.close(); server.close(() => process.exit(0)); setTimeout(() => process.exit(0), 2000).unref() }
process.on('SIGTERM', stop)
process.on('SIGINT', stop)
