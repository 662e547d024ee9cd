/**
 * The socket.io 4 app the recorder is tested against, with its own ledger: a page (served here,
 * with socket.io-client's browser bundle) that logs in by POST /login (a session cookie and a
 * token), connects to /chat with the token in its auth (refused without both), joins a room with
 * an ack, says a line with an ack (relayed to the room), sends a binary avatar with an ack and a
 * typing notice; /feed is the same again, for recordings of sockets on two namespaces. The ledger
 * keeps, per socket, its namespace and what it received in order: each event with the shape of
 * its payload, and the rooms it joined.
 */
import { createServer } from 'node:http'
import { randomBytes } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { Server } from 'socket.io'

/** socket.io-client's browser bundle (its package exports no path to it). */
const BUNDLE = fileURLToPath(new URL('../../node_modules/socket.io-client/dist/socket.io.min.js', import.meta.url))

/** The page: what a person's browser runs, with the waits a person's clicks would make (the python app serves it too). */
export const PAGE = `<!doctype html><meta charset="utf-8"><title>chat</title><script src="/socket.io.js"></script><script>
window.steps = []
const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms))
async function main () {
  const res = await fetch('/login', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ user: 'alice', password: 'pw-Alice-2026' }) })
  const { token } = await res.json()
  const socket = io('/chat', { auth: { token, user: 'alice' }, transports: window.TRANSPORTS })
  socket.on('chat', (line) => window.steps.push(['chat', line]))
  await new Promise((resolve) => socket.on('connect', resolve))
  await pause(150)
  window.steps.push(['join', await socket.emitWithAck('join', { room: 'room-7' })])
  await pause(200)
  window.steps.push(['said', await socket.emitWithAck('chat', { room: 'room-7', text: 'hello there' })])
  await pause(100)
  window.steps.push(['avatar', await socket.emitWithAck('avatar', { name: 'me.png', data: new Uint8Array([1, 2, 3, 4, 5]) })])
  await pause(100)
  socket.emit('typing', { room: 'room-7' })
  await pause(100)
  window.done = true
}
main().catch((error) => { window.failed = String(error) })
</script>`

/**
 * The shape of a value: its keys and their types, a Buffer as 'binary'.
 * @param {unknown} value
 * @returns {unknown}
 */
export function shapeOf (value) {
  if (Buffer.isBuffer(value) || value instanceof ArrayBuffer) return 'binary'
  if (Array.isArray(value)) return value.map(shapeOf)
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([k, v]) => [k, shapeOf(v)])
    )
  }
  return typeof value
}

/**
 * @typedef {{ nsp?: string, user: string, events: { event: string, shape: unknown, text?: string }[], joins: string[] }} LedgerEntry
 */

/**
 * The app's HTTP side, the same for each socket.io version: the page (its transports), the
 * client bundle, and POST /login (a password per user, answered with a session cookie and a
 * token kept in `sessions`); the socket.io requests are left to the server attached to it.
 * @param {{ page: string, bundle: Buffer, transports: string[], sessions: Map<string, { user: string, token: string }> }} app
 */
export function pageServer ({ page, bundle, transports, sessions }) {
  return createServer((req, res) => {
    if (req.url === '/') return res.writeHead(200, { 'Content-Type': 'text/html' }).end(page.replace('window.TRANSPORTS', JSON.stringify(transports)))
    if (req.url === '/socket.io.js') return res.writeHead(200, { 'Content-Type': 'application/javascript' }).end(bundle)
    if (req.url === '/login' && req.method === 'POST') {
      let body = ''
      req.on('data', (d) => { body += d })
      req.on('end', () => {
        const { user, password } = JSON.parse(body || '{}')
        if (typeof user !== 'string' || password !== `pw-${user[0].toUpperCase()}${user.slice(1)}-2026`) return res.writeHead(401).end('{}')
        const sid = randomBytes(12).toString('hex')
        const token = randomBytes(24).toString('base64url')
        sessions.set(sid, { user, token })
        res.writeHead(200, { 'Content-Type': 'application/json', 'Set-Cookie': `sid=${sid}; Path=/; HttpOnly` }).end(JSON.stringify({ ok: true, token }))
      })
      return
    }
    // socket.io 2 hands its own requests to every listener too: they are not ours to answer.
    if (!req.url?.startsWith('/socket.io/')) res.writeHead(404).end()
  })
}

/**
 * Starts the app on port 0.
 * @param {import('node:test').TestContext} t
 * @param {{ transports?: string[], page?: string }} [options] the page's transports; another page (the same app)
 */
export async function startRecordedApp (t, { transports = ['websocket'], page = PAGE } = {}) {
  /** @type {Map<string, { user: string, token: string }>} sessions by cookie */
  const sessions = new Map()
  /** @type {Map<string, LedgerEntry>} by socket id, in connect order */
  const ledger = new Map()
  let relayed = 0
  const http = pageServer({ page, bundle: await readFile(BUNDLE), transports, sessions })
  const io = new Server(http)
  // /feed is /chat again: a second namespace, for recordings of sockets on both.
  for (const name of ['/chat', '/feed']) serveNamespace(io.of(name))
  await new Promise((resolve) => http.listen(0, '127.0.0.1', () => resolve(undefined)))
  t.after(() => new Promise((resolve) => { io.close(); http.closeAllConnections(); http.close(() => resolve(undefined)) }))
  const address = /** @type {import('node:net').AddressInfo} */ (http.address())
  return { url: `http://127.0.0.1:${address.port}`, ledger, io, entries: async () => [...ledger.values()] }

  /** @param {import('socket.io').Namespace} chat */
  function serveNamespace (chat) {
    chat.use((socket, next) => {
      const sid = /(?:^|;\s*)sid=([^;]+)/.exec(socket.handshake.headers.cookie ?? '')?.[1]
      const session = sid === undefined ? undefined : sessions.get(sid)
      const auth = socket.handshake.auth
      if (!session || auth?.token !== session.token || auth?.user !== session.user) return next(new Error('not logged in'))
      socket.data.user = session.user
      next()
    })
    chat.on('connection', (socket) => {
      /** @type {LedgerEntry} */
      const entry = { nsp: chat.name, user: socket.data.user, events: [], joins: [] }
      ledger.set(socket.id, entry)
      socket.onAny((event, ...args) => {
        const payload = args.filter((a) => typeof a !== 'function')
        entry.events.push({ event, shape: shapeOf(payload), ...(typeof payload[0]?.text === 'string' ? { text: payload[0].text } : {}) })
      })
      socket.on('join', ({ room }, ack) => {
        socket.join(room)
        entry.joins.push(room)
        ack({ ok: true })
      })
      socket.on('chat', ({ room, text }, ack) => {
        const id = `m-${++relayed}`
        socket.to(room).emit('chat', { id, room, from: socket.data.user, text })
        ack({ ok: true, id })
      })
      socket.on('avatar', ({ data }, ack) => ack({ stored: data.length }))
    })
  }
}
