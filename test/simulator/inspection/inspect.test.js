/**
 * The one inspection before a swarm (simulator/inspection/inspect.js), against real servers on port 0:
 * the first client's whole identity reaches the first contact, a server that never answers
 * is said to have timed out, and an address with no Engine.IO at the path stops everything
 * (exit 2) unless --wait-for-server gives it time.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import http from 'node:http'
import net from 'node:net'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { CODES, EXIT, IoswarmError } from '../../../lib/errors.js'
import { inspectServer } from '../../../simulator/index.js'
import { normalizeSimOptions } from '../../../simulator/sim-options.js'
import { startTestServer } from '../../helpers/swarm.js'
import { startIoServer } from '../../helpers/io-server.js'

const TOKEN = 'inspect-s3cret'

/** @param {{ url: string }} server */
async function refusals (server) {
  const stats = /** @type {{ app: { refused: number } }} */ (await (await fetch(`${server.url}/stats`)).json())
  return stats.app.refused
}

/**
 * @param {import('node:test').TestContext} t
 * @param {http.Server | net.Server} server
 * @returns {Promise<string>} its URL
 */
async function listen (t, server) {
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)))
  t.after(() => new Promise((resolve) => server.close(() => resolve(undefined))))
  return `http://127.0.0.1:${/** @type {net.AddressInfo} */ (server.address()).port}`
}

test('the first contact carries the first client\'s whole identity: --auth, --query, --header, a scenario\'s identity()', async (t) => {
  const server = await startTestServer(t, { authToken: TOKEN, pingIntervalMs: 1500 })
  const given = [
    { auth: JSON.stringify({ token: TOKEN }) },
    { query: `token=${TOKEN}` },
    { header: [`Authorization: Bearer ${TOKEN}`] },
    { auth: '{"token":"{{env.INSPECT_TOKEN}}"}' }
  ]
  for (const identity of given) {
    const info = await inspectServer(normalizeSimOptions({ url: server.url, ...identity }), { env: { INSPECT_TOKEN: TOKEN } })
    assert.equal(info.diagnosis, null, JSON.stringify(identity))
    assert.equal(info.pingIntervalMs, 1500)
    assert.equal(info.rampMs, 1500)
    assert.deepEqual(info.upgrades, ['websocket'])
  }
  const dir = mkdtempSync(join(tmpdir(), 'ioswarm-inspect-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  const scenario = join(dir, 'hooks.js')
  writeFileSync(scenario, `export function identity (i, ctx) { return { auth: { token: '${TOKEN}', i: ctx.i } } }\n`)
  assert.equal((await inspectServer(normalizeSimOptions({ url: server.url, scenario }))).diagnosis, null, 'the scenario\'s identity()')
  assert.equal(await refusals(server), 0, 'no refusal counted by the server')

  // Without a token every client is refused alike: the look stops; with one that differs per client it only says so.
  await assert.rejects(inspectServer(normalizeSimOptions({ url: server.url })), (error) => {
    assert.equal(/** @type {import('../../../lib/errors.js').IoswarmError} */ (error).exitCode, 2)
    assert.match(
      /** @type {Error} */ (error).message,
      /^the server refused namespace \/: unauthorized: every client sends this same identity, so none can connect and nothing was started/
    )
    return true
  })
  assert.equal(await refusals(server), 1, 'the look without a token is the one refusal')
  const personal = await inspectServer(normalizeSimOptions({ url: server.url, auth: '{"token":"t{{i}}"}' }))
  assert.match(String(personal.diagnosis), /^the server refused namespace \/: unauthorized$/)
})

test('a server that takes connections and never answers: the handshakes timed out, said so', async (t) => {
  /** @type {Set<net.Socket>} */
  const sockets = new Set()
  const silent = net.createServer((socket) => {
    sockets.add(socket)
    socket.on('error', () => {})
  })
  t.after(() => { for (const s of sockets) s.destroy() })
  const url = await listen(t, silent)
  const info = await inspectServer(normalizeSimOptions({ url }), { timeoutMs: 300 })
  assert.match(
    String(info.handshakeError),
    new RegExp(/^no Engine\.IO handshake at http:\/\/127\.0\.0\.1:\d+\/socket\.io\/ \(the handshakes timed out: /.source +
      /the server took the connections and answered nothing in 0\.3 s, on polling and on WebSocket\)$/.source)
  )
  assert.equal(info.rampSource, 'default pingInterval (handshake failed)')
  assert.equal(info.rampMs, 25000)
  assert.ok(sockets.size >= 2, 'both transports were tried')
})

test('an address with no Engine.IO at the path (404 on both transports) stops before the swarm, exit 2, unless --wait-for-server', async (t) => {
  const plain = http.createServer((req, res) => res.writeHead(404).end('nothing here'))
  const url = await listen(t, plain)
  const error = await inspectServer(normalizeSimOptions({ url })).then(() => null, (e) => e)
  assert.ok(error instanceof IoswarmError, String(error))
  assert.equal(error.code, CODES.NO_ENGINE_IO)
  assert.equal(error.exitCode, EXIT.USAGE)
  assert.match(
    error.message,
    new RegExp(/polling handshake answered HTTP 404 \(nothing at \/socket\.io\/: is --path right\? .*\): "nothing here"; /.source +
      /websocket: Unexpected server response: 404\): nothing was started; check --url and --path \(give --wait-for-server 2m/.source)
  )
  const started = performance.now()
  await assert.rejects(inspectServer(normalizeSimOptions({ url, waitForServer: '1s' })), /\(still, after --wait-for-server 1 s\)$/)
  assert.ok(performance.now() - started >= 1000, 'it kept looking for the second it was given')
})

test('--wait-for-server: a server that comes up while it waits is inspected and used', async (t) => {
  const { httpServer, url } = await startIoServer(t, { pingInterval: 1200 })
  // socket.io takes every request and upgrade: until `up`, the address answers 404 instead.
  let up = false
  let turnedAway = 0
  const requests = httpServer.listeners('request')
  const upgrades = httpServer.listeners('upgrade')
  httpServer.removeAllListeners('request').removeAllListeners('upgrade')
  httpServer.on('request', (req, res) => {
    if (up) return requests.forEach((listener) => listener.call(httpServer, req, res))
    turnedAway++
    res.writeHead(404).end()
  })
  httpServer.on('upgrade', (req, socket, head) => {
    if (up) return upgrades.forEach((listener) => listener.call(httpServer, req, socket, head))
    socket.end('HTTP/1.1 404 Not Found\r\n\r\n')
    // The second transport was turned away too: the server comes up for the next look.
    up = true
  })
  const info = await inspectServer(normalizeSimOptions({ url, waitForServer: '20s' }))
  assert.ok(turnedAway >= 1)
  assert.equal(info.handshakeError, null)
  assert.equal(info.pingIntervalMs, 1200)
})

for (const transport of /** @type {const} */ (['polling', 'websocket'])) {
  test(`the looks leave from the first client's source address (the first of --source-address): a ${transport}-only server`, async (t) => {
    const { httpServer, url } = await startIoServer(t, { pingInterval: 1300, transports: [transport] })
    /** @type {Set<string | undefined>} */
    const from = new Set()
    httpServer.prependListener('request', (req) => from.add(req.socket.remoteAddress))
    httpServer.prependListener('upgrade', (req) => from.add(req.socket.remoteAddress))
    const info = await inspectServer(normalizeSimOptions({ url, sourceAddress: '127.0.0.3,127.0.0.4' }))
    assert.equal(info.handshakeError, null)
    assert.equal(info.pingIntervalMs, 1300, `the ${transport} handshake was read`)
    assert.deepEqual([...from], ['127.0.0.3'], 'every request of the handshake and the first contact')
  })
}

test('redirects are followed as fetch follows them: a POST keeps its body on 307/308, the cookies set on the way are sent', async (t) => {
  const { httpServer, url } = await startIoServer(t, { pingInterval: 1400 })
  // A gate in front of socket.io: /old/… answers 308 to /socket.io/… and hands out the balancer's cookie.
  const requests = httpServer.listeners('request')
  httpServer.removeAllListeners('request')
  /** @type {string[]} */
  const seen = []
  httpServer.on('request', (req, res) => {
    seen.push(`${req.method} ${req.url?.split('?')[0]} ${req.headers.cookie ?? '-'}`)
    if (req.url?.startsWith('/old/')) return res.writeHead(308, { location: req.url.replace('/old/', '/socket.io/'), 'set-cookie': 'node=a; Path=/' }).end()
    requests.forEach((listener) => listener.call(httpServer, req, res))
  })
  const info = await inspectServer(normalizeSimOptions({ url, path: '/old/' }))
  assert.equal(info.handshakeError, null)
  assert.equal(info.pingIntervalMs, 1400)
  assert.equal(info.diagnosis, null, 'the first contact\'s CONNECT (a POST) reached socket.io through the redirect')
  assert.ok(seen.includes('POST /socket.io/ node=a'), `the redirected POST carried the cookie: ${seen.join(' | ')}`)
})
