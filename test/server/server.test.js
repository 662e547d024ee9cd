import { test } from 'node:test'
import assert from 'node:assert/strict'
import { io } from 'socket.io-client'
import WebSocket from 'ws'
import { startTestServer, startTestSwarm, waitForClients } from '../helpers/swarm.js'
import { waitFor } from '../helpers/wait.js'
import { ADMIN_NAMESPACE } from '../../lib/protocol.js'

/**
 * @param {string} url
 * @param {Record<string, string>} headers
 * @param {unknown} [body]
 */
function post (url, headers, body = { count: 1 }) {
  return fetch(`${url}/broadcast`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) })
}

test('POST /broadcast rejects a missing or wrong token and accepts the right one', async (t) => {
  const server = await startTestServer(t, { token: 's3cret-token' })
  const missing = await post(server.url, {})
  assert.equal(missing.status, 401)
  const wrong = await post(server.url, { authorization: 'Bearer s3cret-tokem' })
  assert.equal(wrong.status, 401)
  assert.doesNotMatch(await wrong.text(), /s3cret/, 'the token is never echoed')
  const right = await post(server.url, { authorization: 'Bearer s3cret-token' }, { round: 2, seq: 5, count: 2, size: 10 })
  assert.equal(right.status, 200)
  const { messages } = /** @type {any} */ (await right.json())
  assert.deepEqual(messages.map((/** @type {{ id: string }} */ m) => m.id), ['2.5', '2.6'])
  assert.ok(messages.every((/** @type {{ sentAt: number }} */ m) => Math.abs(m.sentAt - Date.now()) < 5000))
  const header = await post(server.url, { 'x-ioswarm-token': 's3cret-token' })
  assert.equal(header.status, 200)
})

test('POST /broadcast rejects bad bodies with a message naming the field', async (t) => {
  const server = await startTestServer(t)
  const auth = { authorization: 'Bearer test-token' }
  /** @type {[unknown, number, RegExp][]} */
  const cases = [
    [{ count: 0 }, 400, /count must be a whole number from 1 to 10000/],
    [{ size: -1 }, 400, /size must be a whole number/],
    [{ event: 'disconnect' }, 400, /event must be a non-reserved event name/],
    [{ id: 'x', count: 2 }, 400, /id must be a string/],
    [[1, 2], 400, /body must be a JSON object/]
  ]
  for (const [body, status, message] of cases) {
    const res = await post(server.url, auth, body)
    assert.equal(res.status, status, JSON.stringify(body))
    assert.match(/** @type {any} */ (await res.json()).error, message)
  }
  const notJson = await fetch(`${server.url}/broadcast`, { method: 'POST', headers: auth, body: '{oops' })
  assert.equal(notJson.status, 400)
  const huge = await fetch(`${server.url}/broadcast`, { method: 'POST', headers: auth, body: JSON.stringify({ payload: 'x'.repeat(2 << 20) }) })
  assert.equal(huge.status, 413)
  assert.equal((await fetch(`${server.url}/broadcast`, { headers: auth })).status, 405)
  assert.equal((await fetch(`${server.url}/nope`)).status, 404)
})

test('the admin namespace needs the token and broadcasts by emit', async (t) => {
  const server = await startTestServer(t)
  const bad = io(`${server.url}${ADMIN_NAMESPACE}`, { auth: { token: 'wrong' }, transports: ['websocket'], reconnection: false })
  t.after(() => bad.close())
  const refusal = await new Promise((resolve) => bad.once('connect_error', resolve))
  assert.match(/** @type {Error} */ (refusal).message, /unauthorized/)

  const admin = io(`${server.url}${ADMIN_NAMESPACE}`, { auth: { token: 'test-token' }, transports: ['websocket'], reconnection: false })
  t.after(() => admin.close())
  const listener = io(server.url, { transports: ['websocket'], reconnection: false, forceNew: true })
  t.after(() => listener.close())
  await waitForClients(server, 1)
  const received = new Promise((resolve) => listener.once('broadcast', resolve))
  const reply = await admin.timeout(5000).emitWithAck('broadcast', { round: 1, count: 1, size: 5 })
  assert.equal(reply.ok, true)
  assert.equal(reply.messages[0].recipients, 1)
  const message = /** @type {{ id: string, payload: string, sentAt: number }} */ (await received)
  assert.equal(message.id, '1.1')
  assert.equal(message.payload.length, 5)
  const refused = await admin.timeout(5000).emitWithAck('broadcast', { count: -1 })
  assert.equal(refused.ok, false)
  assert.match(refused.error, /count/)
})

test('GET /stats counts connections by transport, and its own process health', async (t) => {
  const server = await startTestServer(t)
  const swarm = startTestSwarm(t, { url: server.url, clients: 6, transport: 'websocket:1,polling:1' })
  await waitForClients(server, 6)
  const stats = /** @type {any} */ (await (await fetch(`${server.url}/stats`)).json())
  assert.deepEqual(stats.byTransport, { websocket: 3, polling: 3 })
  assert.equal(stats.connected, 6)
  assert.ok(stats.rssBytes > 10e6)
  assert.equal(typeof stats.loopDelayP99Ms, 'number')
  assert.equal(typeof stats.cpuPct, 'number')
  await swarm.stop()
  // Why connections closed, by Engine.IO's reason: the swarm's clients closed theirs (the simulator's first look too).
  const closes = async () => /** @type {Record<string, number>} */ ((/** @type {any} */ (await (await fetch(`${server.url}/stats`)).json())).closes)
  await waitFor(async () => Object.values(await closes()).reduce((a, b) => a + b, 0) >= 6, { message: 'the 6 clients\' closes' })
  const reasons = await closes()
  assert.ok(Object.keys(reasons).every((r) => ['transport close', 'forced close'].includes(r)), JSON.stringify(reasons))
  assert.equal((/** @type {any} */ (await (await fetch(`${server.url}/stats`)).json())).connected, 0)
})

test('--parser msgpack: sio clients with the msgpack parser get every broadcast; JSON clients cannot connect', async (t) => {
  const server = await startTestServer(t, { parser: 'msgpack' })
  const swarm = startTestSwarm(t, { url: server.url, clients: 6, transport: 'websocket:1,polling:1', parser: 'msgpack' })
  await waitForClients(server, 6)
  await server.broadcast({ round: 1, count: 2, size: 100 })
  await waitFor(() => swarm.closed.length === 2, { message: () => `2 messages closed (have ${swarm.closed.length})` })
  const result = await swarm.stop()
  assert.equal(result.options.parser, 'msgpack')
  for (const m of result.messages) {
    assert.equal(m.received, 6, `message ${m.id}`)
    assert.equal(m.missing, 0)
    assert.ok(m.absolute && m.absolute.count === 6, 'sentAt decoded from msgpack')
  }

  const json = io(server.url, { transports: ['websocket'], reconnection: false, forceNew: true })
  t.after(() => json.close())
  const outcome = await new Promise((resolve) => {
    json.once('connect', () => resolve('connected'))
    json.once('connect_error', (error) => resolve(`refused: ${error.message}`))
    json.io.once('close', (reason) => resolve(`closed: ${reason}`))
  })
  assert.notEqual(outcome, 'connected', 'a JSON-parser client does not speak to a msgpack server')
})

test('--per-message-deflate is negotiated only when asked for', async (t) => {
  for (const perMessageDeflate of [false, true]) {
    const server = await startTestServer(t, { perMessageDeflate })
    // ws offers permessage-deflate by default; the server accepts it or not.
    const ws = new WebSocket(`${server.url.replace('http', 'ws')}/socket.io/?EIO=4&transport=websocket`)
    t.after(() => ws.close())
    await new Promise((resolve, reject) => { ws.once('open', resolve); ws.once('error', reject) })
    assert.equal(ws.extensions.includes('permessage-deflate'), perMessageDeflate)
    ws.close()
    await server.close()
  }
})

test('--max-http-buffer-size: a client message past it closes that client', async (t) => {
  const server = await startTestServer(t, { maxHttpBufferSize: 1024 })
  const client = io(server.url, { transports: ['websocket'], reconnection: false, forceNew: true })
  t.after(() => client.close())
  await new Promise((resolve) => client.once('connect', () => resolve(undefined)))
  const gone = new Promise((resolve) => client.once('disconnect', (reason) => resolve(reason)))
  client.emit('chat', 'x'.repeat(512))
  client.emit('chat', 'x'.repeat(2048))
  assert.equal(await gone, 'transport close')
})

test('a broadcast with `message` emits it exactly as given', async (t) => {
  const server = await startTestServer(t)
  const listener = io(server.url, { transports: ['websocket'], reconnection: false, forceNew: true })
  t.after(() => listener.close())
  await waitForClients(server, 1)
  const received = new Promise((resolve) => listener.once('score', resolve))
  const message = { type: 'goal', data: { team: 'A', n: 2 } }
  const [answer] = await server.broadcast({ event: 'score', message, id: 'goal-1' })
  assert.equal(answer.id, 'goal-1')
  assert.deepEqual(await received, message)
  await assert.rejects(server.broadcast({ message, count: 2 }), /message is sent as is: only with count 1/)
})
