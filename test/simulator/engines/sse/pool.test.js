/**
 * The Server-Sent Events pool against small event stream servers written here (node:http and
 * node:https on loopback port 0): events measured by type, the Last-Event-ID and the server's
 * retry: delay on reconnect as EventSource does, refusals by status and content type, the
 * payload limit, --header/--query/cookies on every GET, https with --ca.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import http from 'node:http'
import https from 'node:https'
import { readFileSync } from 'node:fs'
import { sseEngine } from '../../../../simulator/engines/sse.js'
import { SsePool } from '../../../../simulator/engines/sse/pool.js'
import { resolveSseConfig } from '../../../../simulator/engines/sse/config.js'
import { STATE } from '../../../../simulator/wire/state.js'
import { PAYLOAD_TOO_LARGE } from '../../../../simulator/wire/limits.js'
import { tlsTrust } from '../../../../lib/input/tls-trust.js'
import { recorder } from '../lean/helpers.js'
import { makeCertificate } from '../../../helpers/https-server.js'
import { waitFor } from '../../../helpers/wait.js'

/** A backoff no test waits out: a reconnect that comes sooner came after the server's retry: delay. */
const NEVER = { minMs: 600000, maxMs: 600000, jitter: 0 }

/**
 * An HTTP(S) server on loopback port 0 answering with `handle`, every request kept; closed after the test.
 * @param {import('node:test').TestContext} t
 * @param {(req: http.IncomingMessage, res: http.ServerResponse, n: number) => void} handle n: the request's number, from 1
 * @param {{ cert: string, key: string }} [tls]
 */
async function listen (t, handle, tls) {
  /** @type {http.IncomingMessage[]} */
  const requests = []
  /** @type {(req: http.IncomingMessage, res: http.ServerResponse) => void} */
  const serve = (req, res) => { requests.push(req); handle(req, res, requests.length) }
  const server = tls ? https.createServer({ cert: readFileSync(tls.cert), key: readFileSync(tls.key) }, serve) : http.createServer(serve)
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)))
  t.after(() => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve(undefined)) }))
  const port = /** @type {import('node:net').AddressInfo} */ (server.address()).port
  return { requests, server, url: `${tls ? 'https' : 'http'}://127.0.0.1:${port}/events` }
}

/** @param {http.ServerResponse} res */
function openStream (res) {
  res.writeHead(200, { 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-cache' })
}

/**
 * A pool of subscribers, closed after the test.
 * @param {import('node:test').TestContext} t
 * @param {string} url
 * @param {Partial<import('../../../../simulator/engines/sse/config.js').SseOptions>} [extra]
 */
function openPool (t, url, extra = {}) {
  const { log, events } = recorder()
  const base = { url, path: '/', namespace: '/', events: ['message'], keepAlive: false, reconnect: true, heartbeatTickMs: 20 }
  const pool = sseEngine.createPool({ ...base, ...extra }, events)
  t.after(() => pool.close())
  return { pool, log }
}

test('connected at the 200 text/event-stream; events measured by type, JSON data parsed, other types counted apart', async (t) => {
  const { url, requests } = await listen(t, (req, res) => {
    openStream(res)
    res.write(': hello\n\ndata: {"id":"m1","ts":1}\n\nevent: score\ndata: {"id":"s1"}\n\nevent: ping\ndata: x\n\ndata: plain\ndata: text\n\n')
  })
  const { pool, log } = openPool(t, url, { events: ['message', 'score'] })
  pool.connect(0, 'websocket')
  await waitFor(() => log.messages.length === 3 && log.unmeasured.length === 1, { message: 'three measured events and one left out' })
  assert.deepEqual(log.messages.map((m) => [m.event, m.args[0]]), [['message', { id: 'm1', ts: 1 }], ['score', { id: 's1' }], ['message', 'plain\ntext']])
  assert.deepEqual(log.unmeasured, [{ i: 0, event: 'ping' }])
  assert.equal(log.connected.get(0), 'websocket')
  assert.equal(requests[0].headers.accept, 'text/event-stream')
  assert.equal(requests[0].headers['last-event-id'], undefined, 'a first connection has no last event id')
})

test('after the server ends the stream, the client reconnects after the retry: delay and sends the last event id', async (t) => {
  const { url, requests } = await listen(t, (req, res, n) => {
    openStream(res)
    // The first stream sets a short delay and an id, then ends; the second stays open.
    if (n === 1) res.end('retry: 50\nid: 41\ndata: a\n\nid: 42\ndata: b\n\n')
    else res.write(`data: after ${req.headers['last-event-id']}\n\n`)
  })
  // The backoff alone would wait ten minutes: only the server's retry: brings the client back within the wait.
  const { pool, log } = openPool(t, url, { backoff: NEVER })
  pool.connect(0, 'websocket')
  await waitFor(() => log.messages.length === 3, { message: 'two events, the stream\'s end, the reconnect and one more event' })
  assert.deepEqual(log.messages.map((m) => m.args[0]), ['a', 'b', 'after 42'])
  assert.deepEqual(log.disconnects, [{ i: 0, reason: 'stream ended by the server' }])
  assert.equal(log.reconnected, 1)
  assert.deepEqual(requests.map((r) => r.headers['last-event-id']), [undefined, '42'])
})

test('without retry: the reconnect waits the backoff; a client started again on purpose starts fresh (no Last-Event-ID)', async (t) => {
  const { url, requests } = await listen(t, (req, res, n) => {
    openStream(res)
    if (n === 1) res.end('id: 7\ndata: a\n\n')
    else res.write('id: 8\ndata: b\n\n')
  })
  const { pool, log } = openPool(t, url, { backoff: NEVER })
  pool.connect(0, 'websocket')
  await waitFor(() => log.disconnects.length === 1, { message: 'the stream ended' })
  assert.equal(requests.length, 1, 'still waiting out the backoff')
  // Started again on purpose (a new session, as the swarm's churn does): a new EventSource, no last event id.
  pool.disconnect(0)
  pool.connect(0, 'websocket')
  await waitFor(() => log.messages.length === 2, { message: 'the new session\'s event' })
  assert.deepEqual(requests.map((r) => r.headers['last-event-id']), [undefined, undefined])
})

test('a 404, a 200 that is not an event stream and a refused connection are connect errors with their reason; retried', async (t) => {
  const { url } = await listen(t, (req, res) => {
    if (req.url === '/nothing') res.writeHead(404).end('no')
    else res.writeHead(200, { 'Content-Type': 'text/html' }).end('<p>hi</p>')
  })
  const { pool, log } = openPool(t, url, { backoff: { minMs: 10, maxMs: 10, jitter: 0 } })
  pool.connect(0, 'websocket')
  const other = openPool(t, url.replace('/events', '/nothing'), { backoff: { minMs: 10, maxMs: 10, jitter: 0 } })
  other.pool.connect(0, 'websocket')
  await waitFor(() => log.errors.length >= 2 && other.log.errors.length >= 2, { message: 'two refusals each' })
  assert.deepEqual(log.errors.slice(0, 2).map((e) => e.reason), ['not an event stream: content type text/html', 'not an event stream: content type text/html'])
  assert.equal(other.log.errors[0].reason, 'handshake refused: HTTP 404')
  assert.equal(log.connectedCount + other.log.connectedCount, 0)
})

test('an event over --max-payload ends the stream with the payload reason, whole or still coming', async (t) => {
  const { url } = await listen(t, (req, res) => {
    openStream(res)
    // /events: one whole event too large; /events?endless: a line that never ends, in pieces.
    if (req.url === '/events') res.write(`data: ${'x'.repeat(3000)}\n\n`)
    else for (let k = 0; k < 4; k++) res.write(`${k === 0 ? 'data: ' : ''}${'y'.repeat(500)}`)
  })
  const whole = openPool(t, url, { maxPayloadBytes: 1024, backoff: NEVER })
  const coming = openPool(t, `${url}?endless`, { maxPayloadBytes: 1024, backoff: NEVER })
  whole.pool.connect(0, 'websocket')
  coming.pool.connect(0, 'websocket')
  await waitFor(() => whole.log.disconnects.length === 1 && coming.log.disconnects.length === 1, { message: 'both clients closed their streams' })
  assert.deepEqual([...whole.log.disconnects, ...coming.log.disconnects], [{ i: 0, reason: PAYLOAD_TOO_LARGE }, { i: 0, reason: PAYLOAD_TOO_LARGE }])
  assert.equal(whole.log.messages.length + coming.log.messages.length, 0)
})

test('each GET carries the client\'s --header, --query and cookies; the cookies the server sets come back on the reconnect', async (t) => {
  const { url, requests } = await listen(t, (req, res, n) => {
    if (n === 1) res.setHeader('Set-Cookie', 'sid=s1; Path=/')
    openStream(res)
    if (n === 1) res.end('retry: 10\ndata: a\n\n')
    else res.write('data: b\n\n')
  })
  const identity = (/** @type {number} */ i) => ({ query: { user: `u${i}` }, headers: { Authorization: `Bearer t${i}` }, cookies: { lang: 'en' } })
  const { pool, log } = openPool(t, `${url}?topic=news`, { identity })
  pool.connect(5, 'websocket')
  await waitFor(() => log.messages.length === 2, { message: 'an event on each of two streams' })
  assert.deepEqual(requests.map((r) => [r.url, r.headers.authorization, r.headers.cookie]), [
    ['/events?topic=news&user=u5', 'Bearer t5', 'lang=en'],
    ['/events?topic=news&user=u5', 'Bearer t5', 'lang=en; sid=s1']
  ])
})

test('https:// with --ca: the stream is read over TLS; later streams resume the first one\'s TLS session; each handshake timed', async (t) => {
  const files = makeCertificate(t)
  if (!files) return
  const { url, server } = await listen(t, (req, res) => {
    openStream(res)
    res.write('data: {"id":"tls"}\n\n')
  }, files)
  /** @type {boolean[]} whether each TLS connection the server accepted resumed a session */
  const resumed = []
  server.on('secureConnection', (socket) => resumed.push(socket.isSessionReused()))
  /** @type {number[]} */
  const handshakes = []
  const { log, events } = recorder()
  events.secured = (ms) => handshakes.push(ms)
  const base = { path: '/', namespace: '/', events: ['message'], keepAlive: false, reconnect: true, heartbeatTickMs: 20 }
  const pool = sseEngine.createPool({ ...base, url, tls: tlsTrust({ ca: [files.cert] }) }, events)
  t.after(() => pool.close())
  pool.connect(0, 'websocket')
  await waitFor(() => log.messages.length === 1, { message: 'the event over https' })
  assert.deepEqual(log.messages[0].args, [{ id: 'tls' }])
  // The first stream's session ticket has come with its event: the next streams offer it.
  pool.connect(1, 'websocket')
  pool.connect(2, 'websocket')
  await waitFor(() => log.messages.length === 3, { message: 'two more streams' })
  assert.deepEqual(resumed, [false, true, true])
  assert.equal(handshakes.length, 3)
  const untrusted = openPool(t, url, { backoff: NEVER })
  untrusted.pool.connect(0, 'websocket')
  await waitFor(() => untrusted.log.errors.length === 1, { message: 'the untrusted certificate refused' })
  assert.equal(untrusted.log.errors[0].reason, 'DEPTH_ZERO_SELF_SIGNED_CERT')
})

test('--ramp-guard\'s reconnect cap: each reconnect asks it once; a deferred one goes after the wait without asking again', async (t) => {
  const { url } = await listen(t, (req, res) => { res.writeHead(503); res.end() })
  /** The attempts made when the cap was asked: once before each reconnect. @type {number[]} */
  const askedAfter = []
  /** The first reconnect waits 200 ms for its token, the later ones go at once. */
  const reconnectGate = () => {
    askedAfter.push(log.attempts)
    return askedAfter.length === 1 ? 200 : 0
  }
  const { pool, log } = openPool(t, url, { reconnectGate, backoff: { minMs: 10, maxMs: 20, jitter: 0 } })
  pool.connect(0, 'websocket')
  await waitFor(() => log.attempts >= 4, { message: () => `3 reconnects (attempts ${log.attempts})` })
  assert.deepEqual(askedAfter.slice(0, 3), [1, 2, 3], 'asked once before each reconnect, the deferred one included')
})

test('a 204 tells the client to stop reconnecting, as it tells an EventSource; other refusals wait to retry', async (t) => {
  const { url } = await listen(t, (req, res) => {
    if (req.url === '/events') res.writeHead(204).end()
    else res.writeHead(503).end()
  })
  const { log, events } = recorder()
  const options = { path: '/', namespace: '/', events: ['message'], keepAlive: false, reconnect: true, heartbeatTickMs: 20, backoff: NEVER }
  const stopped = new SsePool(resolveSseConfig({ ...options, url }), events)
  const waiting = new SsePool(resolveSseConfig({ ...options, url: url.replace('/events', '/busy') }), events)
  t.after(() => { stopped.close(); waiting.close() })
  stopped.connect(0)
  waiting.connect(1)
  await waitFor(() => log.errors.length === 2, { message: 'both refused' })
  assert.deepEqual(log.errors.map((e) => [e.i, e.reason]).sort(), [[0, 'handshake refused: HTTP 204'], [1, 'handshake refused: HTTP 503']])
  assert.deepEqual([stopped.clients[0].state, waiting.clients[1].state], [STATE.IDLE, STATE.WAITING])
})
