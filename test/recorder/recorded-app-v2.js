/**
 * The recorder's chat app (recorded-app.js) on socket.io 2 (Engine.IO v3, the pinned peer of
 * test/peers/), with its page on socket.io-client 2's browser bundle: the same login, /chat
 * namespace (the token in the query, as socket.io 2 clients send it: they have no auth), room,
 * acked emits, binary avatar and typing notice, and the same ledger.
 */
import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import { ensureNodePeers } from '../helpers/peers.js'
import { pageServer, shapeOf } from './recorded-app.js'

const BUNDLE = fileURLToPath(new URL('../../node_modules/socket.io-client-v2/dist/socket.io.js', import.meta.url))

const PAGE = `<!doctype html><meta charset="utf-8"><title>chat</title><script src="/socket.io.js"></script><script>
window.steps = []
const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms))
async function main () {
  const res = await fetch('/login', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ user: 'alice', password: 'pw-Alice-2026' }) })
  const { token } = await res.json()
  const socket = io('/chat', { query: { token, user: 'alice' }, transports: window.TRANSPORTS })
  const ask = (event, data) => new Promise((resolve) => socket.emit(event, data, resolve))
  socket.on('chat', (line) => window.steps.push(['chat', line]))
  await new Promise((resolve) => socket.on('connect', resolve))
  await pause(150)
  window.steps.push(['join', await ask('join', { room: 'room-7' })])
  await pause(200)
  window.steps.push(['said', await ask('chat', { room: 'room-7', text: 'hello there' })])
  await pause(100)
  window.steps.push(['avatar', await ask('avatar', { name: 'me.png', data: new Uint8Array([1, 2, 3, 4, 5]).buffer })])
  await pause(100)
  socket.emit('typing', { room: 'room-7' })
  await pause(100)
  window.done = true
}
main().catch((error) => { window.failed = String(error) })
</script>`

/**
 * Starts the socket.io 2 app on port 0.
 * @param {import('node:test').TestContext} t
 * @param {{ transports?: string[] }} [options] the page's transports
 */
export async function startRecordedAppV2 (t, { transports = ['polling', 'websocket'] } = {}) {
  ensureNodePeers()
  // The pinned peer, resolved from test/peers/ (not a dependency of ioswarm; untyped there).
  const fromPeers = /** @type {(id: string) => any} */ (createRequire(fileURLToPath(new URL('../peers/package.json', import.meta.url))))
  const createIo = fromPeers('socket.io-v2')
  /** @type {Map<string, { user: string, token: string }>} */
  const sessions = new Map()
  /** @type {Map<string, import('./recorded-app.js').LedgerEntry>} */
  const ledger = new Map()
  let relayed = 0
  const http = pageServer({ page: PAGE, bundle: await readFile(BUNDLE), transports, sessions })
  const io = createIo(http)
  const chat = io.of('/chat')
  chat.use((/** @type {any} */ socket, /** @type {(e?: Error) => void} */ next) => {
    const sid = /(?:^|;\s*)sid=([^;]+)/.exec(socket.handshake.headers.cookie ?? '')?.[1]
    const session = sid === undefined ? undefined : sessions.get(sid)
    if (!session || socket.handshake.query.token !== session.token || socket.handshake.query.user !== session.user) return next(new Error('not logged in'))
    socket.user = session.user
    next()
  })
  chat.on('connection', (/** @type {any} */ socket) => {
    /** @type {import('./recorded-app.js').LedgerEntry} */
    const entry = { user: socket.user, events: [], joins: [] }
    ledger.set(socket.id, entry)
    socket.use((/** @type {unknown[]} */ packet, /** @type {() => void} */ next) => {
      const [event, ...args] = packet
      const payload = args.filter((a) => typeof a !== 'function')
      const first = /** @type {any} */ (payload[0])
      entry.events.push({ event: String(event), shape: shapeOf(payload), ...(typeof first?.text === 'string' ? { text: first.text } : {}) })
      next()
    })
    socket.on('join', (/** @type {any} */ { room }, /** @type {Function} */ ack) => {
      socket.join(room)
      entry.joins.push(room)
      ack({ ok: true })
    })
    socket.on('chat', (/** @type {any} */ { room, text }, /** @type {Function} */ ack) => {
      const id = `m-${++relayed}`
      socket.to(room).emit('chat', { id, room, from: socket.user, text })
      ack({ ok: true, id })
    })
    socket.on('avatar', (/** @type {any} */ { data }, /** @type {Function} */ ack) => ack({ stored: data.length }))
  })
  await new Promise((resolve) => http.listen(0, '127.0.0.1', () => resolve(undefined)))
  t.after(() => new Promise((resolve) => { io.close(); http.closeAllConnections(); http.close(() => resolve(undefined)) }))
  const address = /** @type {import('node:net').AddressInfo} */ (http.address())
  return { url: `http://127.0.0.1:${address.port}`, ledger, io, entries: async () => [...ledger.values()] }
}
