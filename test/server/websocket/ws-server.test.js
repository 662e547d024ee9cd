/**
 * The plain WebSocket reference server (`serve --protocol websocket`): broadcasts as JSON text
 * frames to every client, the token and rate limit of POST /broadcast, GET /stats, the
 * heartbeat, the close on shutdown; and a swarm of both clients measuring it.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { once } from 'node:events'
import WebSocket from 'ws'
import { startWebSocketServer } from '../../../server/websocket/ws-server.js'
import { normalizeServeOptions } from '../../../server/server-options.js'
import { runCli } from '../../helpers/cli.js'
import { startTestSwarm } from '../../helpers/swarm.js'
import { waitFor } from '../../helpers/wait.js'

/**
 * @param {import('node:test').TestContext} t
 * @param {import('../../../server/index.js').ServerOptions} [options]
 */
async function start (t, options = {}) {
  const server = await startWebSocketServer({ port: 0, host: '127.0.0.1', token: 'test-token', ...options })
  t.after(() => server.close())
  return server
}

/**
 * A ws client, closed after the test.
 * @param {import('node:test').TestContext} t
 * @param {string} url
 * @param {import('ws').ClientOptions} [options]
 */
async function client (t, url, options = {}) {
  const ws = new WebSocket(url.replace(/^http/, 'ws') + '/any/path', options)
  t.after(() => ws.terminate())
  /** @type {unknown[]} */
  const received = []
  ws.on('message', (data, isBinary) => received.push(isBinary ? data : JSON.parse(String(data))))
  await once(ws, 'open')
  return { ws, received }
}

/**
 * @param {string} url
 * @param {unknown} body
 * @param {string} [token]
 */
function post (url, body, token = 'test-token') {
  return fetch(`${url}/broadcast`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify(body)
  })
}

test('a broadcast reaches every client as one JSON text frame; the token guards it; /stats counts the clients', async (t) => {
  const server = await start(t)
  const a = await client(t, server.url)
  const b = await client(t, server.url)
  assert.equal((await post(server.url, { count: 1 }, 'wrong')).status, 401)
  const res = await post(server.url, { round: 1, seq: 1, count: 2, size: 8 })
  assert.equal(res.status, 200)
  const { messages } = /** @type {any} */ (await res.json())
  assert.deepEqual(messages.map((/** @type {any} */ m) => [m.id, m.recipients]), [['1.1', 2], ['1.2', 2]])
  await waitFor(() => a.received.length === 2 && b.received.length === 2, { message: 'both messages at both clients' })
  assert.deepEqual(a.received.map((m) => /** @type {any} */ (m).id), ['1.1', '1.2'])
  assert.deepEqual(Object.keys(/** @type {object} */ (a.received[0])).sort(), ['id', 'payload', 'round', 'sentAt', 'seq'])
  const stats = /** @type {any} */ (await (await fetch(`${server.url}/stats`)).json())
  assert.equal(stats.connected, 2)
  assert.deepEqual(stats.byTransport, { websocket: 2, polling: 0 })
  assert.equal(typeof stats.rssBytes, 'number')
})

test('a broadcast to a room reaches the clients that subscribed to it ({"subscribe": ROOM}) only', async (t) => {
  const server = await start(t)
  const a = await client(t, server.url)
  const b = await client(t, server.url)
  a.ws.send(JSON.stringify({ subscribe: 'room-a' }))
  b.ws.send(JSON.stringify({ subscribe: 'room-b' }))
  b.ws.send('not json, ignored')
  await waitFor(() => server.stats().connected === 2 && /** @type {any} */ (server.wss).clients.size === 2, { message: 'both in' })
  await waitFor(async () => {
    const res = await post(server.url, { room: 'room-a', count: 1, id: `probe-${Date.now()}` })
    return (/** @type {any} */ (await res.json())).messages[0].recipients === 1
  }, { message: 'room-a has its subscriber' })
  await waitFor(() => a.received.length >= 1, { message: 'a got it' })
  assert.ok(a.received.every((m) => /** @type {any} */ (m).room === 'room-a'))
  assert.equal(b.received.length, 0, 'b is in another room')
})

test('--broadcast-rate applies, as on the socket.io server', async (t) => {
  const server = await start(t, { broadcastRate: '1/s' })
  assert.equal((await post(server.url, {})).status, 200)
  const limited = await post(server.url, {})
  assert.equal(limited.status, 429)
  assert.ok(Number(limited.headers.get('retry-after')) >= 1)
})

test('the heartbeat drops a client that does not answer pings, keeps one that does; close says 1001', async (t) => {
  const server = await start(t, { pingIntervalMs: 50 })
  const silent = await client(t, server.url, { autoPong: false })
  const answering = await client(t, server.url)
  const [code] = await once(silent.ws, 'close')
  assert.equal(code, 1006, 'terminated without a close frame')
  assert.equal(answering.ws.readyState, WebSocket.OPEN)
  const closed = once(answering.ws, 'close')
  await server.close()
  const [byeCode, reason] = await closed
  assert.equal(byeCode, 1001)
  assert.equal(String(reason), 'server shutting down')
})

test('a swarm of plain WebSocket clients measures its broadcasts, on both clients', async (t) => {
  const server = await start(t)
  for (const wsClient of ['ws', 'builtin']) {
    const swarm = startTestSwarm(t, { protocol: 'websocket', url: server.url, clients: 10, wsClient })
    await waitFor(() => server.wss.clients.size === 10, { message: '10 clients on the server' })
    // The clients count themselves connected after their first round trip: the message may
    // arrive first, and settles them too.
    await post(server.url, { round: 1, count: 2, batch: wsClient })
    await waitFor(() => swarm.closed.length === 2, { timeoutMs: 15000, message: 'both messages closed' })
    const result = await swarm.stop()
    assert.equal(result.clients.everConnected, 10, wsClient)
    for (const m of result.messages) {
      assert.equal(m.received, 10, `${wsClient} ${m.id}`)
      assert.equal(m.missing, 0)
      assert.equal(m.absolute?.count, 10)
    }
    await waitFor(() => server.wss.clients.size === 0, { message: 'every client gone' })
  }
})

test('--auth-token: a client without it is closed with 1008 after the handshake, and the swarm counts a refusal', async (t) => {
  const server = await start(t, { authToken: 'fan-token' })
  const refused = startTestSwarm(t, { protocol: 'websocket', url: server.url, clients: 3, reconnect: false })
  await waitFor(() => server.stats().refused === 3, { message: 'three refusals' })
  // The server counts a refusal when it sends the close; the swarm when its client reads it (CI, at load: 1 of 3 read at the stop).
  await waitFor(() => (refused.progress?.errors ?? 0) >= 3, { message: () => `the swarm to read the three closes (errors ${refused.progress?.errors})` })
  const without = await refused.stop()
  assert.deepEqual(without.clients.errors, { 'refused: close 1008 policy violation: unauthorized': 3 })
  assert.equal(without.clients.everConnected, 0)
  const credentialsOf = /** @type {const} */ ([['ws', { header: 'Authorization: Bearer fan-token' }], ['builtin', { query: 'token=fan-token' }]])
  for (const [wsClient, credentials] of credentialsOf) {
    const swarm = startTestSwarm(t, { protocol: 'websocket', url: server.url, clients: 3, wsClient, ...credentials })
    await waitFor(() => server.wss.clients.size === 3, { message: `${wsClient}: three clients in` })
    // In on the server's side once it sent the 101; on the swarm's once its client read it (at load: 2 of 3 at the stop).
    await waitFor(() => swarm.progress?.connected === 3, {
      message: () => `${wsClient}: the swarm to count its three clients in (${swarm.progress?.connected})`
    })
    const result = await swarm.stop()
    assert.deepEqual(result.clients.errors, {}, wsClient)
    assert.equal(result.clients.everConnected, 3, wsClient)
    await waitFor(() => server.wss.clients.size === 0, { message: 'gone' })
  }
})

test('serve options of the socket.io server only are refused with --protocol websocket', async (t) => {
  for (const [input, message] of /** @type {[Record<string, unknown>, RegExp][]} */ ([
    [{ cluster: '2' }, /--cluster is for the socket\.io reference server/],
    [{ adapter: 'redis' }, /--adapter is for the socket\.io reference server/],
    [{ parser: 'msgpack' }, /--parser is for the socket\.io reference server/],
    [{ path: '/x' }, /--path is for the socket\.io reference server/],
    [{ pingTimeout: '5s' }, /--ping-timeout is for the socket\.io reference server/],
    [{ shutdown: 'disconnect' }, /--shutdown is for the socket\.io reference server/],
    [{ namespace: '/chat' }, /--namespace is for the socket\.io reference server/],
    [{ relayEvent: 'chat' }, /--relay-event is for the socket\.io reference server/]
  ])) {
    assert.throws(() => normalizeServeOptions({ protocol: 'websocket', ...input }), message)
  }
  assert.equal(normalizeServeOptions({ protocol: 'websocket' }).protocol, 'websocket')
  const { code, stderr } = await runCli(t, ['bin/ioswarm.js', 'serve', '--protocol', 'websocket', '--cluster', '2'], { timeoutMs: 15000 })
  assert.equal(code, 2)
  assert.match(stderr, /--cluster is for the socket\.io reference server, not --protocol websocket/)
})

test('ioswarm serve --protocol websocket (the real binary): listens, broadcasts, stops on SIGTERM', async (t) => {
  const run = runCli(t, ['bin/ioswarm.js', 'serve', '--protocol', 'websocket', '--port', '0', '--host', '127.0.0.1', '--token', 'cli-token', '--json'], {
    timeoutMs: 30000,
    onStderr: () => {}
  })
  /** @type {string} */
  let stdout = ''
  run.child.stdout?.on('data', (d) => { stdout += d })
  const { url } = await waitFor(
    () => {
      const line = stdout.split('\n').find((l) => l.startsWith('{'))
      return line ? JSON.parse(line) : null
    },
    { timeoutMs: 15000, message: 'listening' }
  )
  const c = await client(t, url)
  assert.equal((await post(url, { count: 1 }, 'cli-token')).status, 200)
  await waitFor(() => c.received.length === 1, { message: 'the broadcast' })
  run.child.kill('SIGTERM')
  const { code, stderr } = await run
  assert.equal(code, 0, stderr)
  assert.match(stderr, /plain WebSocket \(ws\), one process, any path/)
})
