/**
 * Conformance of the lean engine against a real socket.io 4.8 server: connect over each
 * transport, receive broadcasts (text and binary), custom path and namespace, and what the
 * server sees (client counts, transport names).
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { leanEngine } from '../../../simulator/engines/lean.js'
import { recorder, engineOptions, messagesOf, serverTransports, VARIANTS } from './lean/helpers.js'
import { startIoServer } from '../../helpers/io-server.js'
import { waitFor } from '../../helpers/wait.js'

/**
 * Connects `count` lean clients with one transport and returns the pool and its log.
 * @param {import('node:test').TestContext} t
 * @param {string} url
 * @param {import('../../../lib/values/parsers.js').Transport} transport
 * @param {number} count
 * @param {Partial<import('../../../simulator/engines/lean/config.js').LeanOptions>} [extra]
 */
async function connectPool (t, url, transport, count, extra) {
  const { log, events } = recorder()
  const pool = leanEngine.createPool(engineOptions(url, extra), events)
  t.after(() => pool.close())
  for (let i = 0; i < count; i++) pool.connect(i, transport)
  await waitFor(() => log.connected.size === count, { message: `${count} ${transport} clients to connect` })
  return { pool, log }
}

for (const { label, transport, extra } of VARIANTS) {
  test(`${label}: clients connect, stay on ${transport} and receive broadcasts`, async (t) => {
    const server = await startIoServer(t)
    const { log } = await connectPool(t, server.url, transport, 5, extra)
    assert.deepEqual([...log.connected.values()], Array(5).fill(transport))
    assert.equal(server.io.engine.clientsCount, 5)
    assert.deepEqual(serverTransports(server.io.of('/')), Array(5).fill(transport))
    for (let id = 1; id <= 3; id++) server.io.emit('broadcast', { id, text: 'héllo ✓' })
    server.io.emit('ignored', { id: 0 })
    await waitFor(() => log.messages.length === 15, { message: '15 messages' })
    for (let i = 0; i < 5; i++) {
      assert.deepEqual(messagesOf(log, i).map((m) => m.args), [1, 2, 3].map((id) => [{ id, text: 'héllo ✓' }]))
    }
    assert.ok(log.messages.every((m) => m.event === 'broadcast'))
    // Decode-once: every client got the very same args array.
    assert.equal(log.messages.filter((m) => m.args === log.messages[0].args).length, 5)
    assert.deepEqual(serverTransports(server.io.of('/')), Array(5).fill(transport))
    assert.equal(log.errors.length + log.disconnects.length, 0)
  })

  test(`${label}: binary broadcasts are reassembled from their attachments`, async (t) => {
    const server = await startIoServer(t)
    const { log } = await connectPool(t, server.url, transport, 3, extra)
    const blob = Buffer.from([0, 1, 2, 250, 255])
    server.io.emit('broadcast', { id: 7, blob, parts: [Buffer.from('a'), { deep: Buffer.from('bc') }] }, Buffer.from('x'))
    await waitFor(() => log.messages.length === 3, { message: '3 binary messages' })
    for (const { args } of log.messages) {
      const [payload, extra] = /** @type {[any, Buffer]} */ (args)
      assert.equal(payload.id, 7)
      assert.deepEqual(Buffer.from(payload.blob), blob)
      assert.equal(Buffer.from(payload.parts[0]).toString(), 'a')
      assert.equal(Buffer.from(payload.parts[1].deep).toString(), 'bc')
      assert.equal(Buffer.from(extra).toString(), 'x')
    }
    assert.equal(log.disconnects.length, 0)
  })
}

for (const wsClient of /** @type {const} */ (['builtin', 'ws'])) {
  test(`upgrade (${wsClient} client): clients connect over polling, then end on websocket as the server sees it`, async (t) => {
    const server = await startIoServer(t)
    const { log } = await connectPool(t, server.url, 'upgrade', 4, { wsClient })
    assert.deepEqual([...log.connected.values()], Array(4).fill('polling'))
    await waitFor(() => log.upgraded.length === 4, { message: '4 upgrades' })
    await waitFor(() => serverTransports(server.io.of('/')).every((name) => name === 'websocket'), { message: 'server-side websocket transports' })
    assert.equal(server.io.engine.clientsCount, 4)
    server.io.emit('broadcast', { id: 1 })
    await waitFor(() => log.messages.length === 4, { message: '4 messages after the upgrade' })
    assert.equal(log.errors.length + log.disconnects.length, 0)
  })
}

test('polling: large broadcasts sent back to back arrive whole (several packets per response)', async (t) => {
  const server = await startIoServer(t)
  /** @type {number[]} */
  const flushSizes = []
  server.io.engine.on('connection', (socket) => {
    socket.on('flush', (/** @type {unknown[]} */ packets) => { flushSizes.push(packets.length) })
  })
  // Five 200 KB messages may leave in one response: over the default --max-payload (1 MB),
  // which would close the client (limits.test.js tests that); room for them here.
  const { log } = await connectPool(t, server.url, 'polling', 2, { maxPayloadBytes: 4e6 })
  const big = 'x'.repeat(200000)
  // Emitted in one tick: the server queues them and flushes them into the same poll responses.
  for (let id = 1; id <= 5; id++) server.io.emit('broadcast', { id, big })
  await waitFor(() => log.messages.length === 10, { message: '10 large messages' })
  for (let i = 0; i < 2; i++) {
    const got = messagesOf(log, i).map((m) => /** @type {any} */ (m.args[0]))
    assert.deepEqual(got.map((p) => p.id), [1, 2, 3, 4, 5])
    assert.ok(got.every((p) => p.big === big))
  }
  assert.ok(flushSizes.some((n) => n >= 2), `some poll response carried several packets: ${flushSizes}`)
})

test('polling: one GET and one POST at most; packets written during a POST leave together', async (t) => {
  // A real server whose POST carrying the first emit is held (not handed to socket.io) until the client has written
  // three more: those must wait for it and leave in one POST, separated by \x1e, once it is answered.
  const server = await startIoServer(t)
  /** @type {unknown[][]} */
  const events = []
  server.io.on('connection', (socket) => socket.on('e', (/** @type {unknown} */ n) => events.push([n])))
  const open = { gets: 0, posts: 0, maxGets: 0, maxPosts: 0 }
  /** Packets socket.io read, grouped by the POST that carried them (one POST at a time: they cannot interleave). @type {string[][]} */
  const posts = []
  server.io.engine.on('connection', (/** @type {import('engine.io').Socket} */ socket) => {
    socket.on('packet', (/** @type {{ type: string, data?: unknown }} */ p) => posts.at(-1)?.push(`${p.type} ${p.data ?? ''}`))
  })
  /** The held POST's hand-over to socket.io. @type {(() => void)[]} */
  const held = []
  let holdNext = false
  const engineListeners = server.httpServer.listeners('request')
  server.httpServer.removeAllListeners('request')
  server.httpServer.on('request', (req, res) => {
    const kind = req.method === 'POST' ? 'posts' : new URL(req.url ?? '', 'http://x').searchParams.has('sid') ? 'gets' : null
    if (kind !== null) {
      open[kind]++
      open[kind === 'posts' ? 'maxPosts' : 'maxGets'] = Math.max(open[kind === 'posts' ? 'maxPosts' : 'maxGets'], open[kind])
      res.on('close', () => { open[kind]-- })
    }
    const pass = () => {
      if (kind === 'posts') posts.push([])
      for (const listener of engineListeners) listener.call(server.httpServer, req, res)
    }
    if (kind === 'posts' && holdNext) {
      holdNext = false
      held.push(pass)
    } else pass()
  })
  const { log, events: poolEvents } = recorder()
  const pool = leanEngine.createPool(engineOptions(server.url, { reconnect: false }), poolEvents)
  t.after(() => pool.close())
  pool.connect(0, 'polling')
  await waitFor(() => log.connected.size === 1, { message: 'the client to connect' })
  holdNext = true
  pool.emit(0, '/', 'e', [1])
  await waitFor(() => held.length === 1, { message: 'the POST carrying the first emit, held' })
  for (const n of [2, 3, 4]) pool.emit(0, '/', 'e', [n])
  held[0]()
  await waitFor(() => events.length === 4, { message: () => `4 emits heard (have ${JSON.stringify(events)})` })
  assert.deepEqual(events, [[1], [2], [3], [4]])
  assert.deepEqual(posts, [['message 0'], ['message 2["e",1]'], ['message 2["e",2]', 'message 2["e",3]', 'message 2["e",4]']])
  assert.equal(open.maxGets, 1)
  assert.equal(open.maxPosts, 1)
})

test('custom path and a namespace with auth', async (t) => {
  const server = await startIoServer(t, { path: '/custom/' })
  /** @type {unknown[]} */
  const auths = []
  server.io.of('/chat').use((socket, next) => {
    auths.push(socket.handshake.auth)
    next()
  })
  const { log } = await connectPool(t, server.url, 'websocket', 2, { path: '/custom', namespace: '/chat', auth: { token: 't1' } })
  await connectPool(t, server.url, 'polling', 1, { path: '/custom/', namespace: '/chat', auth: { token: 't2' } })
  assert.equal(server.io.of('/chat').sockets.size, 3)
  assert.equal(server.io.of('/').sockets.size, 0)
  assert.deepEqual(auths, [{ token: 't1' }, { token: 't1' }, { token: 't2' }])
  server.io.emit('broadcast', { id: 'root-only' })
  server.io.of('/chat').emit('broadcast', { id: 'chat' })
  await waitFor(() => log.messages.length === 2, { message: '2 chat messages' })
  assert.deepEqual(log.messages.map((m) => m.args), [[{ id: 'chat' }], [{ id: 'chat' }]])
})

test("events '*' records every event, numeric names included", async (t) => {
  const server = await startIoServer(t)
  const { log } = await connectPool(t, server.url, 'websocket', 1, { events: ['*'] })
  server.io.emit('broadcast', 1)
  server.io.emit('other', 'a', 'b')
  server.io.emit(/** @type {any} */ (42), 'n')
  await waitFor(() => log.messages.length === 3, { message: '3 messages' })
  assert.deepEqual(log.messages.map((m) => [m.event, m.args]), [['broadcast', [1]], ['other', ['a', 'b']], ['42', ['n']]])
})

test('the pool reports one shared keep-alive agent', (t) => {
  const { events } = recorder()
  const pool = leanEngine.createPool(engineOptions('http://127.0.0.1:9'), events)
  t.after(() => pool.close())
  assert.deepEqual(pool.agent(), { keepAlive: true, maxSockets: null })
  assert.equal(leanEngine.name, 'lean')
  assert.throws(() => leanEngine.createPool(engineOptions('ftp://x'), events), /url must be an http/)
})

for (const httpClient of /** @type {const} */ (['builtin', 'undici'])) {
  test(`polling (${httpClient}): a server that closes each POST's connection after answering (as its keep-alive timeout does); ` +
    'every pong still arrives, no client is lost', async (t) => {
    const server = await startIoServer(t, { pingInterval: 150, pingTimeout: 10000 })
    let pongs = 0
    let connections = 0
    server.httpServer.on('connection', () => { connections++ })
    server.httpServer.on('request', (req, res) => {
      if (req.method === 'POST') res.on('finish', () => setImmediate(() => req.socket.destroy()))
    })
    server.io.engine.on('connection', (/** @type {any} */ socket) =>
      socket.on('packet', (/** @type {{ type: string }} */ p) => {
        if (p.type === 'pong') pongs++
      })
    )
    const { log } = await connectPool(t, server.url, 'polling', 10, { httpClient })
    const before = connections
    await waitFor(() => pongs >= 40, { timeoutMs: 20000, message: '40 pongs' })
    assert.deepEqual([...log.errors, ...log.disconnects], [])
    assert.equal(log.connected.size, 10)
    assert.ok(connections >= before + 20, `new connections replaced the closed ones (${connections - before})`)
  })
}

for (const httpClient of /** @type {const} */ (['builtin', 'undici'])) {
  test(`polling (${httpClient}): a header or cookie value rendered with a line break fails that client's attempt, ` +
    'saying which flag; others connect', async (t) => {
    const server = await startIoServer(t)
    /** @type {(string | undefined)[]} */
    const tokens = []
    server.io.on('connection', (socket) => { tokens.push(socket.handshake.headers['x-token']?.toString()) })
    const { log, events } = recorder()
    const pool = leanEngine.createPool(engineOptions(server.url, {
      httpClient,
      identity: (i) => (i === 1
        ? { headers: { 'X-Token': 'a\r\nX-Injected: 1' } }
        : i === 2 ? { headers: { 'X-Token': 't2' }, cookies: { s: 'b\nc' } } : { headers: { 'X-Token': `t${i}` } })
    }), events)
    t.after(() => pool.close())
    for (let i = 0; i < 4; i++) pool.connect(i, 'polling')
    await waitFor(() => log.connected.size === 2 && log.errors.length === 2, { timeoutMs: 10000, message: '2 clients connected, 2 refused' })
    assert.deepEqual([...log.connected.keys()].sort(), [0, 3])
    assert.deepEqual(log.errors.sort((a, b) => a.i - b.i), [
      { i: 1, reason: '--header X-Token: its value for this client has a line break (CR or LF), not sent' },
      { i: 2, reason: '--cookie s: its value for this client has a line break (CR or LF), not sent' }
    ])
    assert.deepEqual(tokens.sort(), ['t0', 't3'])
  })
}

for (const { label, transport, extra } of VARIANTS) {
  test(`${label}: an ack's arguments are decoded only for an emit that reads them; both are acked, by id`, async (t) => {
    const server = await startIoServer(t)
    let n = 0
    server.io.on('connection', (socket) => socket.on('chat', (_line, ack) => ack({ ok: true, n: ++n })))
    const { pool } = await connectPool(t, server.url, transport, 1, extra)
    /** @type {{ wants: boolean, error: Error | null, args: unknown[] }[]} */
    const answers = []
    const ask = (/** @type {boolean} */ wants) =>
      assert.ok(pool.emit(0, '/', 'chat', [{ text: 'hi' }], (error, args) => answers.push({ wants, error, args }), 5000, wants))
    // Two at once: the first waits in the client's first slot, the second in its map of the rest.
    ask(false)
    ask(true)
    ask(true)
    ask(false)
    await waitFor(() => answers.length === 4, { message: '4 acks' })
    assert.ok(answers.every((a) => a.error === null))
    assert.deepEqual(answers.filter((a) => !a.wants).map((a) => a.args), [[], []], 'not decoded: []')
    const read = answers.filter((a) => a.wants).map((a) => /** @type {any} */ (a.args)[0])
    assert.equal(read.length, 2)
    assert.ok(read.every((a) => a.ok === true && a.n >= 1 && a.n <= 4), JSON.stringify(read))
  })
}
