/**
 * A socket.io server of a pinned version (2, 3 or 4, from test/peers/node_modules), for
 * ioswarm's interop tests. Configured by environment: SIO_VERSION (2|3|4), PARSER (json|msgpack),
 * SIO_PATH, NAMESPACES (comma-separated), ALLOW_EIO3 (1), PING_INTERVAL_MS, AUTH_TOKEN. Listens on
 * 127.0.0.1:0, prints {"port": N} once listening; POST /emit?count=N&event=E broadcasts
 * {id, sentAt} on every namespace (with &rooms=R, message n goes to room-{(n-1) mod R} with
 * io.of(ns).to(room), carrying `room`); GET /count answers the clients the server counts, the
 * handshakes refused and the rooms' sizes.
 *
 * What an app does with it, in each version's own API: AUTH_TOKEN refuses a handshake without
 * the token in the query parameter `token`, an `Authorization: Bearer` header or (socket.io
 * 3 and 4) `auth.token`, with the error "unauthorized"; `join` with a room name (or
 * `{ room }`) joins it and acks `{ ok: true, room }`; `chat` with `{ room?, … }` is relayed
 * unchanged to the room, or without one to the namespace (the sender too), and acked `{ ok: true }`.
 * LATE_FIRST=F, LATE_COUNT=L: late joiners on the first namespace (late.js), GET /late.
 * TLS_CERT, TLS_KEY (PEM files): the server speaks https and wss:// (and so do /emit and /count).
 */
import { readFileSync } from 'node:fs'
import http from 'node:http'
import https from 'node:https'
import { createLate } from './late.js'

const version = process.env.SIO_VERSION ?? '4'
const namespaces = (process.env.NAMESPACES ?? '/').split(',').filter(Boolean)
const pingInterval = Number(process.env.PING_INTERVAL_MS ?? 25000)
const authToken = process.env.AUTH_TOKEN || null
const options = {
  path: process.env.SIO_PATH ?? '/socket.io',
  pingInterval,
  // At least 3 s: with a 1 s interval (a short ramp), a 1 s timeout dropped a polling client
  // whose answer a host at load 10 delayed ("ping timeout"). Not more: an Engine.IO 3 client's
  // heartbeat, and so the swarm's ramp, is interval + timeout.
  pingTimeout: Math.min(20000, Math.max(3000, pingInterval)),
  cors: { origin: '*' },
  ...(process.env.ALLOW_EIO3 === '1' ? { allowEIO3: true } : {}),
  ...(process.env.PARSER === 'msgpack' ? { parser: (await import('socket.io-msgpack-parser')).default } : {})
}

const server = process.env.TLS_CERT
  ? https.createServer({ cert: readFileSync(process.env.TLS_CERT), key: readFileSync(String(process.env.TLS_KEY)) })
  : http.createServer()
const io = version === '2'
  ? (await import('socket.io-v2')).default(server, options)
  : new (await import(`socket.io-v${version}`)).Server(server, options)
let refused = 0
const lateFirst = Number(process.env.LATE_FIRST || 0)
const late = lateFirst > 0 ? createLate(io.of(namespaces[0]), { first: lateFirst, count: Number(process.env.LATE_COUNT || 0) }) : null

/** @param {any} payload */
const roomOf = (payload) => {
  const room = typeof payload === 'string' ? payload : payload?.room
  return typeof room === 'string' && room.length > 0 ? room : null
}

for (const ns of namespaces) {
  const nsp = io.of(ns)
  if (authToken) {
    nsp.use((/** @type {any} */ socket, /** @type {(error?: Error) => void} */ next) => {
      const { query, headers, auth } = socket.handshake
      if (query.token === authToken || headers.authorization === `Bearer ${authToken}` || auth?.token === authToken) return next()
      refused++
      next(new Error('unauthorized'))
    })
  }
  const lateHere = ns === namespaces[0] ? late : null
  if (lateHere) nsp.use(lateHere.use)
  nsp.on('connection', (/** @type {any} */ socket) => {
    lateHere?.connected(socket)
    socket.on('join', (/** @type {unknown} */ payload, /** @type {unknown} */ ack) => {
      const reply = typeof ack === 'function' ? ack : () => {}
      const room = roomOf(payload)
      if (room === null) return reply({ ok: false, error: 'room must be a string' })
      // socket.io 2 joins through its adapter with a callback; 3 and 4 join at once.
      if (version === '2') socket.join(room, () => reply({ ok: true, room }))
      else {
        socket.join(room)
        reply({ ok: true, room })
      }
    })
    socket.on('chat', (/** @type {any} */ payload, /** @type {unknown} */ ack) => {
      const reply = typeof ack === 'function' ? ack : () => {}
      const room = roomOf(payload)
      if (lateHere?.held(socket, payload)) return reply({ ok: true })
      if (room === null) nsp.emit('chat', payload)
      else nsp.to(room).emit('chat', payload)
      reply({ ok: true })
    })
  })
}

/** @param {string} ns */
const countOf = (ns) => {
  const sockets = io.of(ns).sockets
  return sockets instanceof Map ? sockets.size : Object.keys(sockets).length
}

/**
 * The sizes of a namespace's rooms, without each socket's own room.
 * @param {string} ns
 */
function roomsOf (ns) {
  const nsp = io.of(ns)
  const rooms = nsp.adapter.rooms
  const own = (/** @type {string} */ name) => (nsp.sockets instanceof Map ? nsp.sockets.has(name) : name in nsp.sockets)
  const entries = rooms instanceof Map ? [...rooms].map(([name, sids]) => [name, sids.size]) : Object.entries(rooms).map(([name, room]) => [name, room.length])
  return Object.fromEntries(entries.filter(([name]) => !own(name)))
}

let sent = 0
server.on('request', (req, res) => {
  const url = new URL(req.url ?? '/', 'http://x')
  if (url.pathname === '/emit' && req.method === 'POST') {
    const count = Number(url.searchParams.get('count') ?? 1)
    const event = url.searchParams.get('event') ?? 'news'
    const rooms = Number(url.searchParams.get('rooms') ?? 0)
    for (let n = 0; n < count; n++) {
      sent++
      const room = rooms > 0 ? `room-${n % rooms}` : null
      for (const ns of namespaces) {
        const message = { id: `v${version}-${sent}`, sentAt: Date.now(), ...(room === null ? {} : { room }) }
        if (room === null) io.of(ns).emit(event, message)
        else io.of(ns).to(room).emit(event, message)
      }
    }
    res.end(JSON.stringify({ sent: count }))
  } else if (url.pathname === '/count') {
    res.end(JSON.stringify({
      connected: namespaces.reduce((total, ns) => total + countOf(ns), 0),
      byNamespace: Object.fromEntries(namespaces.map((ns) => [ns, countOf(ns)])),
      refused,
      rooms: Object.fromEntries(namespaces.map((ns) => [ns, roomsOf(ns)]))
    }))
  } else if (url.pathname === '/late' && late) {
    res.end(JSON.stringify(late.sent()))
  } else if (!url.pathname.startsWith(options.path)) {
    res.statusCode = 404
    res.end('not found')
  }
})
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: /** @type {import('node:net').AddressInfo} */ (server.address()).port })}\n`)
})
const stop = () => { io.close(); server.close(() => process.exit(0)); setTimeout(() => process.exit(0), 2000).unref() }
process.on('SIGTERM', stop)
process.on('SIGINT', stop)
