/**
 * One node of a small chat app behind a load balancer (test/helpers/balancer.js), written as
 * an app author following socket.io's "Using multiple nodes" would: socket.io 4 with the Redis
 * adapter (@socket.io/redis-adapter over ioredis), so a line sent to one node reaches the
 * clients of every node.
 *
 * - On connect the node tells the client its name: event `node` with NODE_NAME.
 * - `login` with `{ user }` (or a name): acked `{ ok: true, node }`; later lines carry the user.
 * - `chat` with an object: relayed with `socket.broadcast.emit('chat', { ...payload, user })`
 *   (everyone but the sender, on every node), acked `{ ok: true }`.
 * - Every HTTP response, the Engine.IO handshake and the WebSocket upgrade included, carries
 *   `X-Node: NODE_NAME` and sets the cookie `node=NODE_NAME`.
 * - GET /count: `{ node, connected }`, the sockets this node holds now (namespaces `/` and `/members`).
 * - POST /login with `{ user }`: a session of this node (in memory, as express-session's default
 *   store), cookie `chat.sid`, answered `{ token, node }`. Namespace `/members` refuses a socket
 *   without a live session of this node (`unauthorized`): behind a balancer only a client kept on
 *   the node that logged it in gets through.
 * - POST /broadcast with ioswarm's body (any token): messages `{ id, batch, round, seq, sentAt,
 *   node, payload }` to every client of every node, answered `{ messages: [{ id, event, sentAt }] }`.
 *
 * Env: NODE_NAME, REDIS_URL, CHANNEL (the adapter's key: one per cluster), PING_INTERVAL_MS. Listens on 127.0.0.1:0 and prints
 * {"port": N}; SIGTERM/SIGINT stop it.
 */
import http from 'node:http'
import { Redis } from 'ioredis'
import { Server } from 'socket.io'
import { createAdapter } from '@socket.io/redis-adapter'

const name = process.env.NODE_NAME || `node-${process.pid}`
const pingInterval = Number(process.env.PING_INTERVAL_MS || 25000)
const pub = new Redis(process.env.REDIS_URL || 'redis://127.0.0.1:6379')
const sub = pub.duplicate()

const server = http.createServer()
const io = new Server(server, {
  pingInterval,
  pingTimeout: Math.min(20000, pingInterval),
  adapter: createAdapter(pub, sub, { key: process.env.CHANNEL || 'socket.io' })
})

/** @param {Record<string, string>} headers */
const nameTheNode = (headers) => {
  headers['X-Node'] = name
  headers['Set-Cookie'] = `node=${name}; Path=/`
}
io.engine.on('initial_headers', nameTheNode)

io.on('connection', (socket) => {
  socket.emit('node', name)
  socket.on('login', (payload, ack) => {
    const user = typeof payload === 'string' ? payload : payload?.user
    socket.data.user = typeof user === 'string' ? user.slice(0, 100) : null
    if (typeof ack === 'function') ack({ ok: true, node: name })
  })
  socket.on('chat', (payload, ack) => {
    const reply = typeof ack === 'function' ? ack : () => {}
    if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) return reply({ ok: false, error: 'chat takes an object' })
    socket.broadcast.emit('chat', { ...payload, user: socket.data.user ?? null })
    reply({ ok: true })
  })
})

/** This node's sessions: sid → user. */
const sessions = new Map()
io.of('/members').use((socket, next) => {
  const sid = /chat\.sid=([^;]+)/.exec(socket.handshake.headers.cookie ?? '')?.[1]
  next(sid !== undefined && sessions.has(sid) ? undefined : new Error('unauthorized'))
})
io.of('/members').on('connection', (socket) => socket.emit('node', name))

let sent = 0

/**
 * POST /broadcast with ioswarm's body (event, count, round, seq, batch, size): each message
 * `io.emit`ted, so the Redis adapter takes it to the clients of every node.
 * @param {any} body
 */
function broadcast (body) {
  const event = body.event ?? 'broadcast'
  return Array.from({ length: body.count ?? 1 }, (_, k) => {
    const seq = (body.seq ?? 1) + k
    const id = body.round > 0 ? `${body.round}.${seq}` : `${name}.${++sent}`
    const sentAt = Date.now()
    io.emit(event, { id, ...(body.batch ? { batch: body.batch } : {}), round: body.round ?? 0, seq, sentAt, node: name, payload: 'x'.repeat(body.size ?? 0) })
    return { id, event, sentAt, recipients: null }
  })
}

server.on('request', async (req, res) => {
  if ((req.url ?? '').startsWith('/socket.io')) return
  if (req.method === 'POST' && req.url === '/broadcast') {
    let text = ''
    for await (const chunk of req) text += chunk
    res.writeHead(200, { 'content-type': 'application/json', 'x-node': name })
    res.end(JSON.stringify({ messages: broadcast(text ? JSON.parse(text) : {}) }))
  } else if (req.method === 'POST' && req.url === '/login') {
    let text = ''
    for await (const chunk of req) text += chunk
    const sid = `${name}.${sessions.size + 1}`
    sessions.set(sid, String(JSON.parse(text || '{}').user ?? ''))
    res.writeHead(200, { 'content-type': 'application/json', 'x-node': name, 'set-cookie': `chat.sid=${sid}; Path=/; HttpOnly` })
    res.end(JSON.stringify({ token: `t-${sid}`, node: name }))
  } else if (req.url === '/count') {
    res.writeHead(200, { 'content-type': 'application/json', 'x-node': name })
    res.end(JSON.stringify({ node: name, connected: io.of('/').sockets.size + io.of('/members').sockets.size }))
  } else {
    res.writeHead(404).end()
  }
})

await new Promise((resolve) => sub.once('ready', resolve))
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: /** @type {import('node:net').AddressInfo} */ (server.address()).port })}\n`)
})
const stop = () => {
  io.close()
  pub.disconnect()
  sub.disconnect()
  server.close(() => process.exit(0))
  setTimeout(() => process.exit(0), 2000).unref()
}
process.on('SIGTERM', stop)
process.on('SIGINT', stop)
