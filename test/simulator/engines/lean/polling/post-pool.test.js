/**
 * Lean polling's POSTs over a bounded pool of shared keep-alive connections (post-pool.js for
 * the built-in HTTP client, undici's Pool for undici), against a real socket.io 4 server that
 * counts the connections carrying POSTs, sets each Engine.IO session a cookie of its own and
 * checks it on every POST.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { leanEngine } from '../../../../../simulator/engines/lean.js'
import { recorder, engineOptions, messagesOf } from '../helpers.js'
import { startIoServer } from '../../../../helpers/io-server.js'
import { waitFor } from '../../../../helpers/wait.js'

/**
 * A server that tells apart the connections its POSTs came on and checks each POST's cookie:
 * every session is set `who=<its sid>` at its handshake, and a POST must carry its own.
 * @param {import('node:test').TestContext} t
 * @param {Partial<import('socket.io').ServerOptions>} [options]
 */
async function cookieServer (t, options) {
  const server = await startIoServer(t, options)
  /** @type {string[]} */
  const wrongCookies = []
  const seen = { posts: 0, open: new Set(), mostOpen: 0, connections: new Set(), wrongCookies }
  /** @type {(req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => void} */
  let onPost = () => {}
  const engine = /** @type {any} */ (server.io.engine)
  engine.generateId = (/** @type {any} */ req) => {
    req.testSid = `s${Math.random().toString(36).slice(2)}`
    return req.testSid
  }
  engine.on('initial_headers', (/** @type {Record<string, unknown>} */ headers, /** @type {any} */ req) => {
    headers['set-cookie'] = [`who=${req.testSid}; Path=/`]
  })
  server.httpServer.prependListener('request', (req, res) => {
    if (req.method !== 'POST') return
    seen.posts++
    const sid = new URL(req.url ?? '', 'http://x').searchParams.get('sid')
    if (req.headers.cookie !== `who=${sid}`) seen.wrongCookies.push(`${sid}: ${req.headers.cookie}`)
    const socket = req.socket
    seen.connections.add(socket)
    if (!seen.open.has(socket)) {
      seen.open.add(socket)
      seen.mostOpen = Math.max(seen.mostOpen, seen.open.size)
      socket.once('close', () => seen.open.delete(socket))
    }
    onPost(req, res)
  })
  return { ...server, seen, setOnPost: (/** @type {typeof onPost} */ f) => { onPost = f } }
}

/**
 * `count` polling clients, each with its index in the handshake query (k=i), all connected.
 * @param {import('node:test').TestContext} t
 * @param {string} url
 * @param {number} count
 * @param {Partial<import('../../../../../simulator/engines/lean/config.js').LeanOptions>} extra
 */
async function connectPolling (t, url, count, extra) {
  const { log, events } = recorder()
  const pool = leanEngine.createPool(engineOptions(url, { identity: (i) => ({ query: { k: String(i) } }), ...extra }), events)
  t.after(() => pool.close())
  for (let i = 0; i < count; i++) pool.connect(i, 'polling')
  await waitFor(() => log.connected.size === count, { timeoutMs: 20000, message: `${count} polling clients to connect` })
  return { pool, log }
}

/**
 * Client i emits `hello` and counts its ack in `acks` (an ack must carry i back).
 * @param {import('../../../../../simulator/engines/types.js').EnginePool} pool
 * @param {number} i
 * @param {number[]} acks
 */
function hello (pool, i, acks) {
  pool.emit(i, '/', 'hello', [i], (error, args) => { if (error === null && args[0] === i) acks.push(i) }, 15000)
}

for (const httpClient of /** @type {const} */ (['builtin', 'undici'])) {
  test(`polling (${httpClient}): 30 clients' POSTs share at most 3 connections; ` +
    'every broadcast reaches every client, every emit is acked, every POST carries its own session\'s cookie', async (t) => {
    const server = await cookieServer(t)
    server.io.on('connection', (socket) => socket.on('hello', (/** @type {number} */ n, /** @type {(n: number) => void} */ ack) => ack(n)))
    const { pool, log } = await connectPolling(t, server.url, 30, { httpClient, postConnections: 3 })
    /** @type {number[]} */
    const acks = []
    for (let i = 0; i < 30; i++) hello(pool, i, acks)
    for (let id = 1; id <= 3; id++) server.io.emit('broadcast', { id })
    await waitFor(() => acks.length === 30 && log.messages.length === 90, { timeoutMs: 20000, message: '30 acks and 90 messages' })
    for (let i = 0; i < 30; i++) assert.deepEqual(messagesOf(log, i).map((m) => m.args), [[{ id: 1 }], [{ id: 2 }], [{ id: 3 }]])
    assert.deepEqual(acks.sort((a, b) => a - b), Array.from({ length: 30 }, (_, i) => i))
    assert.deepEqual([...log.errors, ...log.disconnects], [])
    // Each client's CONNECT and its emit, at least: 60 POSTs, never more than 3 connections carrying them at once.
    assert.ok(server.seen.posts >= 60, `${server.seen.posts} POSTs`)
    assert.ok(server.seen.mostOpen >= 1 && server.seen.mostOpen <= 3, `at most 3 POST connections open at once, saw ${server.seen.mostOpen}`)
    assert.deepEqual(server.seen.wrongCookies, [])
  })

  test(`polling (${httpClient}): a POST whose connection breaks fails that client alone; POSTs waiting for the 2 connections go on new ones`, async (t) => {
    const server = await cookieServer(t)
    server.io.on('connection', (socket) => socket.on('hello', (/** @type {number} */ n, /** @type {(n: number) => void} */ ack) => ack(n)))
    const { pool, log } = await connectPolling(t, server.url, 12, { httpClient, postConnections: 2 })
    let broken = 0
    /** @type {string | null} */
    let brokenSid = null
    // Client 0's next POST: its connection is cut before any answer, and again when it is sent again (the built-in client
    // sends once more what a reused connection lost); its next session's POSTs pass.
    server.setOnPost((req) => {
      const query = new URL(req.url ?? '', 'http://x').searchParams
      if (query.get('k') === '0' && (brokenSid ??= query.get('sid')) === query.get('sid')) {
        broken++
        req.socket.destroy()
      }
    })
    /** @type {number[]} */
    const acks = []
    for (let i = 0; i < 12; i++) hello(pool, i, acks)
    await waitFor(() => acks.filter((i) => i !== 0).length === 11 && log.disconnects.length === 1, {
      timeoutMs: 20000,
      message: '11 acks and client 0 dropped'
    })
    assert.ok(broken >= 1)
    assert.deepEqual(log.disconnects, [{ i: 0, reason: 'transport error' }])
    assert.deepEqual(log.errors, [])
    // It reconnects (a new session, a new cookie); every other client stayed.
    await waitFor(() => log.connected.size === 12, { timeoutMs: 20000, message: 'client 0 back' })
    assert.ok(server.seen.mostOpen <= 2, `at most 2 POST connections open at once, saw ${server.seen.mostOpen}`)
    assert.deepEqual(server.seen.wrongCookies, [])
  })
}

test('polling (builtin): a server that closes every POST connection after answering; the bounded pool replaces them and no pong is lost', async (t) => {
  const server = await cookieServer(t, { pingInterval: 150, pingTimeout: 10000 })
  // Pings written and pongs read per client (k of its handshake): each client is checked on its own, so one client
  // that drops its pongs is not hidden by the others' total.
  /** @type {Map<string, { pings: number, pongs: number }>} */
  const heartbeats = new Map()
  server.setOnPost((req, res) => res.on('finish', () => setImmediate(() => req.socket.destroy())))
  server.io.engine.on('connection', (/** @type {any} */ socket) => {
    const k = String(new URL(socket.request.url ?? '', 'http://x').searchParams.get('k'))
    const own = heartbeats.get(k) ?? { pings: 0, pongs: 0 }
    heartbeats.set(k, own)
    socket.on('packetCreate', (/** @type {{ type: string }} */ p) => { if (p.type === 'ping') own.pings++ })
    socket.on('packet', (/** @type {{ type: string }} */ p) => { if (p.type === 'pong') own.pongs++ })
  })
  const { log } = await connectPolling(t, server.url, 20, { postConnections: 2 })
  const before = server.seen.connections.size
  const answered = () => [...heartbeats].filter(([, h]) => h.pongs >= 3).map(([k]) => k)
  await waitFor(() => answered().length === 20, {
    timeoutMs: 20000,
    message: () => `3 pongs from each of 20 clients (have them from ${answered().length}; ` +
      `short: ${JSON.stringify([...heartbeats].filter(([, h]) => h.pongs < 3))})`
  })
  assert.deepEqual([...log.errors, ...log.disconnects], [])
  // Every ping written is answered but the one that may be in flight now.
  const lost = [...heartbeats].filter(([, h]) => h.pings - h.pongs > 1)
  assert.deepEqual(lost, [], 'clients with a ping unanswered besides the one in flight')
  assert.ok(server.seen.connections.size >= before + 20, `new connections replaced the closed ones (${server.seen.connections.size - before})`)
  assert.ok(server.seen.mostOpen <= 2, `at most 2 POST connections open at once, saw ${server.seen.mostOpen}`)
  assert.deepEqual(server.seen.wrongCookies, [])
})
