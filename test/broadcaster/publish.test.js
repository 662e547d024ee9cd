/**
 * `--publish 'METHOD URL'`: rounds published by HTTP requests to an app's own API, measured
 * at the subscribers like the reference server's broadcasts. Against nchan on nginx (a
 * pub/sub server other people wrote: POST to publish, WebSocket to subscribe; its
 * EventSource and long-poll sides are not covered here) and a Socket.IO app whose REST
 * endpoint emits to a room.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createHash, createHmac } from 'node:crypto'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import http from 'node:http'
import os from 'node:os'
import path from 'node:path'
import { Server } from 'socket.io'
import { runCli } from '../helpers/cli.js'
import { startNchan } from '../helpers/nchan.js'
import { runBroadcast } from '../../broadcaster/index.js'
import { normalizeRunOptions } from '../../runner/run-options.js'

/**
 * @param {import('node:test').TestContext} t
 */
async function tempDir (t) {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'ioswarm-publish-'))
  t.after(() => rm(dir, { recursive: true, force: true }))
  return dir
}

/**
 * @param {string} dir
 * @returns {Promise<import('../../lib/schema/result-schema.js').RunResult>}
 */
async function readResult (dir) {
  return JSON.parse(await readFile(path.join(dir, 'result.json'), 'utf8'))
}

/**
 * An HTTP server on loopback port 0 that answers every request with `handle`, closed when the test ends.
 * @param {import('node:test').TestContext} t
 * @param {http.RequestListener} handle
 */
async function listen (t, handle) {
  const server = http.createServer(handle)
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)))
  t.after(() => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve(undefined)) }))
  return { server, url: `http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (server.address()).port}` }
}

/** @param {http.IncomingMessage} req */
async function bodyOf (req) {
  let text = ''
  for await (const chunk of req) text += chunk
  return text
}

test('run --publish against nchan: WebSocket subscribers measure each published message, the requests are reported apart', async (t) => {
  const nchan = await startNchan(t)
  if (!nchan) return
  const out = await tempDir(t)
  const clients = 30
  const { code, stderr } = await runCli(t, ['bin/ioswarm.js', 'run', '--protocol', 'websocket', '--target', `${nchan.ws}/sub/news`,
    '--publish', `POST ${nchan.http}/pub/news`, '--message', '{"id":"{{id}}","ts":{{sentAt}}}', '--id-field', 'id', '--sent-at-field', 'ts',
    '--rounds', '3x100,2x100', '--clients', String(clients), '--simulators', '1', '--ramp', '500ms', '--out', out], { timeoutMs: 60000 })
  assert.equal(code, 0, stderr)
  const [d] = (await readResult(out)).distributions
  assert.deepEqual(d.rounds.map((r) => [r.round, r.messages, r.received, r.missing]), [[1, 3, 3 * clients, 0], [2, 2, 2 * clients, 0]])
  assert.ok(d.rounds.every((r) => r.absolute && r.absolute.count === r.received), 'absolute latency from the ts the request carried')
  assert.ok(d.publish, 'the publish summary is in the result')
  // nchan answers 201 when the channel has subscribers.
  assert.deepEqual([d.publish.requests, d.publish.ok, d.publish.byStatus], [5, 5, { 201: 5 }])
  assert.ok(/** @type {number} */ (d.publish.requestMs.p50) > 0)
  assert.match(stderr, /publish POST http:\/\/127\.0\.0\.1:\d+\/pub\/news: 5 requests, 5 × 201; request p50/)
})

/**
 * A Socket.IO 4 app with its own announce API: `POST /announce/:room` with the app's key in a
 * header emits the JSON body to the room as `news`; clients join a room with a `join` emit.
 * @param {import('node:test').TestContext} t
 * @param {string} key
 */
async function startAnnounceApp (t, key) {
  const announced = { count: 0 }
  /** @type {{ io: Server | null }} */
  const app = { io: null }
  const { server, url } = await listen(t, async (req, res) => {
    const match = /^\/announce\/([\w-]+)$/.exec(req.url ?? '')
    if (req.method !== 'POST' || !match) {
      res.writeHead(404).end('no such route')
      return
    }
    if (req.headers['x-app-key'] !== key) {
      res.writeHead(401).end('bad key')
      return
    }
    const message = JSON.parse(await bodyOf(req))
    announced.count++
    app.io?.to(match[1]).emit('news', message)
    res.writeHead(204).end()
  })
  const io = app.io = new Server(server, { pingInterval: 1000, pingTimeout: 2000 })
  io.on('connection', (socket) => {
    socket.on('join', (/** @type {{ room: string }} */ data, /** @type {(a: unknown) => void} */ ack) => {
      socket.join(data.room)
      ack?.({ ok: true })
    })
  })
  t.after(() => io.close())
  return { url, announced }
}

test('run --publish to a Socket.IO app\'s REST endpoint: {{room}} in the URL, a header from the environment, each room\'s clients measured', async (t) => {
  const { url, announced } = await startAnnounceApp(t, 'k-123')
  const out = await tempDir(t)
  const clients = 20
  const common = ['bin/ioswarm.js', 'run', '--target', url, '--publish', `POST ${url}/announce/{{room}}`, '--publish-header', 'X-App-Key: {{env.APP_KEY}}',
    '--rooms', '2', '--join', 'join {"room":"{{room}}"}', '--event', 'news', '--clients', String(clients), '--simulators', '1', '--ramp', '500ms', '--out', out]
  const { code, stderr } = await runCli(t, [...common, '--rounds', '4x100'], { env: { APP_KEY: 'k-123' }, timeoutMs: 60000 })
  assert.equal(code, 0, stderr)
  const [d] = (await readResult(out)).distributions
  // Message k went to room-{(k-1) mod 2}: half of the clients each.
  assert.deepEqual(d.messages.map((m) => [m.id, m.room, m.received, m.missing]), [1, 2, 3, 4].map((k) => [`1.${k}`, `room-${(k - 1) % 2}`, clients / 2, 0]))
  assert.equal(d.rounds[0].misdelivered, 0)
  assert.deepEqual([d.publish?.ok, d.publish?.byStatus], [4, { 204: 4 }])
  assert.equal(announced.count, 4)
})

test('a first answer 401 or 404 stops the rounds: a usage error (exit 2) with the reason, the fix and what the API said', async (t) => {
  const { url, announced } = await startAnnounceApp(t, 'k-123')
  const cases = [
    [
      `POST ${url}/announce/news`, ['X-App-Key: {{env.APP_KEY}}'], { APP_KEY: 'wrong' },
      /answered HTTP 401 to the first message: the publish API wants credentials: give them with --publish-header .*\(it said: bad key\)/
    ],
    [`POST ${url}/announcement/news`, ['X-App-Key: k-123'], {}, /answered HTTP 404 to the first message: nothing answers at that path: check the --publish URL/]
  ]
  for (const [publish, publishHeader, env, expected] of /** @type {[string, string[], Record<string, string>, RegExp][]} */ (cases)) {
    Object.assign(process.env, env)
    t.after(() => { for (const name of Object.keys(env)) delete process.env[name] })
    await assert.rejects(runBroadcast({ url, token: '', publish, publishHeader, rounds: '3x30' }), (error) => {
      assert.equal(/** @type {import('../../lib/errors.js').IoswarmError} */ (error).exitCode, 2)
      assert.match(/** @type {Error} */ (error).message, expected)
      return true
    })
  }
  assert.equal(announced.count, 0)
})

test('--publish-sign pusher:KEY:SECRET signs each request as Pusher\'s HTTP API checks it', async (t) => {
  const seen = { good: 0, bad: 0 }
  // The check of Pusher's server side, written from its documentation: the query parameters but
  // the signature, sorted by name, after the method and the path, HMAC-SHA256 with the secret.
  const { url } = await listen(t, async (req, res) => {
    const body = await bodyOf(req)
    const at = new URL(req.url ?? '', 'http://x')
    const signature = at.searchParams.get('auth_signature')
    at.searchParams.delete('auth_signature')
    const query = [...at.searchParams].sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => `${k}=${v}`).join('&')
    const expected = createHmac('sha256', 'the-secret').update(`${req.method}\n${at.pathname}\n${query}`).digest('hex')
    const md5 = createHash('md5').update(body).digest('hex')
    const good = signature === expected && at.searchParams.get('auth_key') === 'app-key' && at.searchParams.get('body_md5') === md5
    seen[good ? 'good' : 'bad']++
    res.writeHead(good ? 200 : 401).end(good ? '{}' : 'Invalid signature')
  })
  const message = '{"name":"news","channels":["c"],"data":"{\\"id\\":\\"{{id}}\\"}"}'
  const publish = `POST ${url}/apps/1/events`
  const signed = await runBroadcast({ url, token: '', publish, publishSign: 'pusher:app-key:the-secret', message, rounds: '3x20' })
  assert.deepEqual(signed.publish?.byStatus, { 200: 3 })
  assert.deepEqual(seen, { good: 3, bad: 0 })
  await assert.rejects(
    runBroadcast({ url, token: '', publish, publishSign: 'pusher:app-key:another', message, rounds: '3x20' }),
    /HTTP 401 to the first message/
  )
  // The schedule may have sent more before the first answer came: none of them passed.
  assert.ok(seen.good === 3 && seen.bad >= 1, JSON.stringify(seen))
})

test('--publish is checked before anything starts: its form, its placeholders, and its companions without it', () => {
  /** @type {[string[], RegExp][]} */
  const cases = [
    [['--publish', 'SEND http://127.0.0.1:1/x'], /--publish must be 'METHOD URL' with METHOD one of POST/],
    [['--publish', 'POST /pub/news'], /--publish must have an http:\/\/ or https:\/\/ URL with a host/],
    [['--publish', 'POST http://127.0.0.1:1/pub/{{rom}}'], /--publish has an unknown placeholder \{\{rom\}\}/],
    [['--publish-header', 'X-Key: 1', '--token', 't'], /--publish-header goes with --publish/],
    [['--publish', 'POST http://127.0.0.1:1/x', '--publish-sign', 'pusher:only-key'], /--publish-sign must be pusher:KEY:SECRET/]
  ]
  for (const [args, expected] of cases) {
    /** @type {Record<string, unknown>} */
    const input = { target: 'http://127.0.0.1:1', rounds: '1x100' }
    for (let i = 0; i < args.length; i += 2) input[args[i].slice(2).replace(/-(\w)/g, (_, c) => c.toUpperCase())] = args[i + 1]
    assert.throws(() => normalizeRunOptions(input), (error) => {
      assert.equal(/** @type {import('../../lib/errors.js').IoswarmError} */ (error).exitCode, 2)
      assert.match(/** @type {Error} */ (error).message, expected)
      return true
    }, args.join(' '))
  }
})
