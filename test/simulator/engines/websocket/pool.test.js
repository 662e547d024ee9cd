/**
 * The plain WebSocket pool against real `ws` servers in this process, for both clients (ws
 * and builtin): the first round trip, refusals, reconnection after a close, timeouts, the
 * payload limit, closing on purpose, and frames decoded once.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import net from 'node:net'
import { once } from 'node:events'
import { WebSocketServer } from 'ws'
import { websocketEngine } from '../../../../simulator/engines/websocket.js'
import { PAYLOAD_TOO_LARGE } from '../../../../simulator/wire/limits.js'
import { recorder } from '../lean/helpers.js'
import { waitFor } from '../../../helpers/wait.js'

const CLIENTS = /** @type {const} */ (['ws', 'builtin'])

/**
 * A ws server on a free loopback port, closed after the test.
 * @param {import('node:test').TestContext} t
 * @param {import('ws').ServerOptions} [options]
 */
async function startWss (t, options = {}) {
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1', ...options })
  await once(wss, 'listening')
  t.after(() => {
    for (const ws of wss.clients) ws.terminate()
    return new Promise((resolve) => wss.close(() => resolve(undefined)))
  })
  return { wss, url: `ws://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (wss.address()).port}/feed` }
}

/**
 * A pool of plain WebSocket clients, closed after the test.
 * @param {import('node:test').TestContext} t
 * @param {string} url
 * @param {Partial<import('../../../../simulator/engines/websocket/config.js').PlainOptions>} [extra]
 */
function openPool (t, url, extra = {}) {
  const { log, events } = recorder()
  const pool = websocketEngine.createPool(
    { url, path: '/', namespace: '/', events: ['*'], keepAlive: true, reconnect: true, heartbeatTickMs: 20, ...extra },
    events
  )
  t.after(() => pool.close())
  return { pool, log }
}

for (const wsClient of CLIENTS) {
  test(`${wsClient}: connected after the first round trip, the --send-on-open message first, headers and query on the upgrade`, async (t) => {
    const { wss, url } = await startWss(t)
    /** @type {string[]} */
    const seen = []
    wss.on('connection', (ws, req) => {
      seen.push(`open ${req.url} ${req.headers['x-user']}`)
      ws.on('message', (data) => seen.push(`message ${data}`))
      ws.on('ping', () => seen.push('ping'))
    })
    const identity = (/** @type {number} */ i) => ({ query: { user: `u${i}` }, headers: { 'X-User': `u${i}` }, openMessage: `{"sub":${i}}` })
    const { pool, log } = openPool(t, `${url}?v=1`, { wsClient, identity })
    pool.connect(3, 'websocket')
    await waitFor(() => log.connectedCount === 1, { message: 'the client connected' })
    assert.deepEqual(seen, ['open /feed?v=1&user=u3 u3', 'message {"sub":3}', 'ping'], 'the subscribe, then the ping whose pong settles the client')
    assert.equal(log.connected.get(3), 'websocket')
    assert.equal(log.attempts, 1)
  })

  test(`${wsClient}: a close right after the handshake is a refusal, not a connection; reconnects with the backoff`, async (t) => {
    const { wss, url } = await startWss(t)
    let refusals = 0
    wss.on('connection', (ws) => { refusals++; ws.close(1008, 'bad token') })
    const { pool, log } = openPool(t, url, { wsClient, reconnect: true })
    pool.connect(0, 'websocket')
    await waitFor(() => log.errors.length >= 2, { message: 'two refusals (the second after the backoff)' })
    assert.deepEqual(
      log.errors.slice(0, 2).map((e) => e.reason),
      ['refused: close 1008 policy violation: bad token', 'refused: close 1008 policy violation: bad token']
    )
    assert.equal(log.connectedCount, 0)
    assert.equal(log.attempts, refusals)
  })

  test(`${wsClient}: a server close after connecting is a disconnect by code and reason; the client reconnects`, async (t) => {
    const { wss, url } = await startWss(t)
    let connections = 0
    wss.on('connection', (ws) => {
      if (++connections === 1) ws.once('ping', () => setImmediate(() => ws.close(1011, 'boom')))
    })
    const { pool, log } = openPool(t, url, { wsClient })
    pool.connect(0, 'websocket')
    await waitFor(() => log.reconnected === 1, { timeoutMs: 8000, message: 'reconnected after the backoff' })
    assert.deepEqual(log.disconnects, [{ i: 0, reason: 'close 1011 internal error: boom' }])
    assert.equal(log.connectedCount, 2)
    assert.deepEqual(log.errors, [])
  })

  test(`${wsClient}: a server that never answers pings: its clients count as connected at the connect timeout`, async (t) => {
    const { wss, url } = await startWss(t, { autoPong: false })
    const { pool, log } = openPool(t, url, { wsClient, connectTimeoutMs: 200 })
    pool.connect(0, 'websocket')
    await waitFor(() => wss.clients.size === 1, { message: 'the server has the client' })
    assert.equal(log.connectedCount, 0, 'not before the timeout')
    await waitFor(() => log.connectedCount === 1, { message: 'connected at the timeout' })
  })

  test(`${wsClient}: a handshake that never finishes times out and is retried`, async (t) => {
    const server = net.createServer(() => {})
    server.listen(0, '127.0.0.1')
    await once(server, 'listening')
    t.after(() => { server.close() })
    /** @type {net.Socket[]} */
    const sockets = []
    server.on('connection', (s) => sockets.push(s))
    t.after(() => { for (const s of sockets) s.destroy() })
    const { pool, log } = openPool(t, `ws://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (server.address()).port}/`, {
      wsClient,
      connectTimeoutMs: 150
    })
    pool.connect(0, 'websocket')
    // The retry is a second TCP connection after the first attempt's timeout, and it times out too.
    await waitFor(() => log.errors.length >= 2 && sockets.length >= 2, {
      message: () => `two timed-out attempts on two connections (have ${log.errors.length} errors, ${sockets.length} connections)`
    })
    assert.deepEqual(log.errors.slice(0, 2).map((e) => e.reason), ['timeout', 'timeout'])
    assert.ok(log.attempts >= 2, `${log.attempts} attempts`)
    assert.equal(log.connectedCount, 0)
  })

  test(`${wsClient}: a message over --max-payload closes the client with that reason`, async (t) => {
    const { wss, url } = await startWss(t)
    const { pool, log } = openPool(t, url, { wsClient, maxPayloadBytes: 1000, reconnect: false })
    pool.connect(0, 'websocket')
    await waitFor(() => log.connectedCount === 1, { message: 'connected' })
    for (const ws of wss.clients) ws.send('x'.repeat(2000))
    await waitFor(() => log.disconnects.length === 1, { message: 'closed' })
    assert.equal(log.disconnects[0].reason, PAYLOAD_TOO_LARGE)
  })

  test(`${wsClient}: one frame to many clients is decoded once, text and binary apart; disconnect and close are polite`, async (t) => {
    const { wss, url } = await startWss(t)
    /** @type {number[]} */
    const codes = []
    wss.on('connection', (ws) => ws.on('close', (code) => codes.push(code)))
    const { pool, log } = openPool(t, url, { wsClient, match: [['type', 'score']] })
    for (let i = 0; i < 3; i++) pool.connect(i, 'websocket')
    await waitFor(() => log.connectedCount === 3, { message: 'connected' })
    for (const ws of wss.clients) {
      ws.send('{"type":"score","id":1}')
      ws.send(Buffer.from('{"type":"score","id":2}'))
      ws.send('{"type":"ping"}')
    }
    await waitFor(() => log.messages.length === 6 && log.unmeasured.length === 3, { message: 'every copy' })
    const texts = log.messages.filter((m) => /** @type {any} */ (m.args[0]).id === 1)
    assert.equal(texts.length, 3)
    assert.ok(texts.every((m) => m.args === texts[0].args && m.event === 'message'), 'the same args for every client')
    assert.deepEqual(log.unmeasured.map((u) => u.event), ['type=ping', 'type=ping', 'type=ping'])
    pool.disconnect(1)
    assert.deepEqual(log.disconnects, [{ i: 1, reason: 'io client disconnect' }])
    await pool.close()
    await waitFor(() => codes.length === 3, { message: 'the server saw every close' })
    assert.deepEqual(codes, [1000, 1000, 1000])
    assert.equal(log.disconnects.length, 3)
  })

  test(`${wsClient}: subprotocols are offered; one the server did not pick fails the handshake`, async (t) => {
    /** @type {string[][]} */
    const offered = []
    const { url } = await startWss(t, { handleProtocols: (protocols) => { offered.push([...protocols]); return protocols.has('b') ? 'b' : false } })
    const { pool, log } = openPool(t, url, { wsClient, subprotocols: ['a', 'b'], reconnect: false })
    pool.connect(0, 'websocket')
    await waitFor(() => log.connectedCount === 1, { message: 'connected with b' })
    const other = openPool(t, url, { wsClient, subprotocols: ['c'], reconnect: false })
    other.pool.connect(0, 'websocket')
    await waitFor(() => other.log.errors.length === 1, { message: 'refused' })
    assert.equal(other.log.errors[0].reason, 'Server sent no subprotocol')
    assert.deepEqual(offered, [['a', 'b'], ['c']])
  })
}

test('--reconnect-spread reaches the plain WebSocket clients\' backoff (it was dropped for the defaults)', async () => {
  const { resolvePlainConfig } = await import('../../../../simulator/engines/websocket/config.js')
  const spread = { minMs: 5000, maxMs: 10000, jitter: 1 }
  const base = { url: 'ws://127.0.0.1:1/', path: '/', namespace: '/', events: ['*'], keepAlive: true, reconnect: true }
  assert.deepEqual(resolvePlainConfig({ ...base, backoff: spread }).backoff, spread)
  assert.notDeepEqual(resolvePlainConfig(base).backoff, spread, 'without it: the defaults')
})

test('--ramp-guard\'s reconnect cap: each reconnect asks it once; a deferred one goes after the wait without asking again', async (t) => {
  const { wss, url } = await startWss(t)
  wss.on('connection', (ws) => ws.close(1008, 'busy'))
  /** The attempts made when the cap was asked: once before each reconnect. @type {number[]} */
  const askedAfter = []
  /** The first reconnect waits 200 ms for its token, the later ones go at once. */
  const reconnectGate = () => {
    askedAfter.push(log.attempts)
    return askedAfter.length === 1 ? 200 : 0
  }
  const { pool, log } = openPool(t, url, { wsClient: 'builtin', reconnectGate, backoff: { minMs: 10, maxMs: 20, jitter: 0 } })
  pool.connect(0, 'websocket')
  await waitFor(() => log.attempts >= 4, { message: () => `3 reconnects (attempts ${log.attempts})` })
  assert.deepEqual(askedAfter.slice(0, 3), [1, 2, 3], 'asked once before each reconnect, the deferred one included')
})
