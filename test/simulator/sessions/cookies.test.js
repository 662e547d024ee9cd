/**
 * What a client's jar sends, request by request, seen by a real socket.io server that sets
 * cookies on the handshake, on a polling POST and on the WebSocket upgrade's 101, then drops
 * the client so that it reconnects: both engines (and the lean engine's built-in WebSocket
 * client), every transport.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { engines } from '../../../simulator/engines/index.js'
import { waitFor } from '../../helpers/wait.js'
import { startIoServer } from '../../helpers/io-server.js'

/**
 * @typedef {{ sid: string, method: string, upgrade: boolean, cookie: string }} Seen
 */

/**
 * A socket.io server that sets `hs` on each handshake, `post` on a POST's answer, `up` on the
 * 101 of an upgrade (path /socket.io only), and records the Cookie header of every request.
 * @param {import('node:test').TestContext} t
 */
async function startCookieServer (t) {
  const { io, port } = await startIoServer(t, { pingInterval: 1000, pingTimeout: 2000 })
  /** @type {Seen[]} */
  const seen = []
  // engine.io writes one header line per key of a 101 (an array is joined by commas): cookies
  // of an upgrade go under differently cased keys, one line each.
  io.engine.on('initial_headers', (/** @type {Record<string, any>} */ headers, /** @type {import('node:http').IncomingMessage} */ req) => {
    if (req.headers.upgrade !== 'websocket') headers['set-cookie'] = ['hs=1; Path=/', 'gone=1; Max-Age=0', 'tls=1; Secure']
    else Object.assign(headers, { 'set-cookie': 'hs=1; Path=/', 'Set-cookie': 'gone=1; Max-Age=0', 'set-Cookie': 'tls=1; Secure' })
  })
  io.engine.on('headers', (/** @type {Record<string, any>} */ headers, /** @type {import('node:http').IncomingMessage} */ req) => {
    const url = new URL(req.url ?? '/', 'http://x')
    const upgrade = req.headers.upgrade === 'websocket'
    seen.push({ sid: url.searchParams.get('sid') ?? '', method: req.method ?? '', upgrade, cookie: req.headers.cookie ?? '' })
    if (req.method === 'POST') headers['set-cookie'] = ['post=1']
    if (upgrade) Object.assign(headers, { 'Set-Cookie': 'up=1; Path=/socket.io', 'SET-COOKIE': 'elsewhere=1; Path=/api' })
  })
  return { io, seen, url: `http://127.0.0.1:${port}` }
}

/**
 * @param {import('node:test').TestContext} t
 * @param {'sio' | 'lean'} engine
 * @param {string} url
 * @param {import('../../../lib/values/parsers.js').Transport} transport
 * @param {Record<string, unknown>} extra
 */
function openClient (t, engine, url, transport, extra = {}) {
  let connects = 0
  let upgrades = 0
  /** @type {string[]} */
  const errors = []
  const events = {
    attempt () {},
    connected () { connects++ },
    upgraded () { upgrades++ },
    message () {},
    unmeasured () {},
    disconnected () {},
    connectError (/** @type {number} */ i, /** @type {string} */ reason) { errors.push(reason) },
    reconnected () {}
  }
  const pool = engines[engine].createPool({
    url,
    path: '/socket.io/',
    namespace: '/',
    events: ['*'],
    keepAlive: true,
    reconnect: true,
    backoff: { minMs: 20, maxMs: 50, jitter: 0 },
    identity: () => ({ cookies: { seed: 'u0' } }),
    ...extra
  }, events)
  t.after(() => pool.close())
  pool.connect(0, transport)
  return { errors, get connects () { return connects }, get upgrades () { return upgrades } }
}

const CASES = [
  ['sio', 'polling', {}], ['sio', 'upgrade', {}], ['sio', 'websocket', {}],
  ['lean', 'polling', {}], ['lean', 'upgrade', {}], ['lean', 'websocket', {}],
  ['lean', 'upgrade', { wsClient: 'builtin' }], ['lean', 'websocket', { wsClient: 'builtin' }]
]

for (const [engine, transport, extra] of /** @type {['sio' | 'lean', any, Record<string, unknown>][]} */ (CASES)) {
  test(`${engine}${extra.wsClient ? ' builtin' : ''} ${transport}: ` +
    'cookies of every answer go back on every later request, the upgrade and the reconnect', async (t) => {
    const server = await startCookieServer(t)
    const client = openClient(t, engine, server.url, transport, extra)
    await waitFor(() => client.connects === 1 && (transport !== 'upgrade' || client.upgrades === 1), { message: () => `connected (errors: ${client.errors})` })
    // Polling clients: let a POST's answer come back before the drop (a pong every second).
    if (transport === 'polling') {
      await waitFor(() => server.seen.some((s) => s.method === 'GET' && s.cookie.includes('post=1')), { message: 'a GET after a POST' })
    }
    for (const socket of server.io.sockets.sockets.values()) socket.conn.close()
    await waitFor(() => client.connects === 2, { message: () => `reconnected (errors: ${client.errors})` })
    const [first, ...later] = server.seen
    assert.equal(first.sid, '', 'the first request is the handshake')
    assert.equal(first.cookie, 'seed=u0', '--cookie is on the first request, alone')
    for (const s of later) {
      const names = s.cookie.split('; ').map((pair) => pair.split('=')[0])
      assert.ok(names.includes('seed') && names.includes('hs'), `${s.method} ${s.upgrade ? 'upgrade' : ''} carries the handshake's cookie: ${s.cookie}`)
      assert.ok(
        !names.includes('gone') && !names.includes('tls') && !names.includes('elsewhere'),
        `deleted, Secure over http and other-path cookies stay out: ${s.cookie}`
      )
      assert.equal(new Set(names).size, names.length, `no cookie twice: ${s.cookie}`)
    }
    const reconnect = later.find((s) => s.sid === '')
    assert.ok(reconnect, 'the reconnect made a new handshake')
    const expected = transport === 'websocket' ? ['up'] : transport === 'upgrade' ? ['post', 'up'] : ['post']
    for (const name of expected) assert.match(reconnect.cookie, new RegExp(`(^|; )${name}=1`), `the reconnect carries ${name}: ${reconnect.cookie}`)
    assert.deepEqual(client.errors, [])
  })
}
