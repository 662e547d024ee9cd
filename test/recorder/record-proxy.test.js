/**
 * `ioswarm record --proxy`: the real binary as a recording reverse proxy in front of a real
 * socket.io 4 app (port 0), with the real socket.io-client talking through it over WebSocket,
 * long-polling and polling then upgraded. The app must see what the client sent and the client
 * what the app answered (nothing changed on the way), and Ctrl-C must write the scenario the
 * HAR import writes for the same session: the same namespace, steps, acks, measured events and
 * login (the Chromium page's own recording through the proxy is in browser-record-proxy.test.js).
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises'
import https from 'node:https'
import { readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { BIN, printedUrl, runCli } from '../helpers/cli.js'
import { makeCertificate } from '../helpers/https-server.js'
import { startIoServer } from '../helpers/io-server.js'
import { connect } from '../helpers/sio-client.js'
import { waitFor } from '../helpers/wait.js'
import { startRecordedApp } from './recorded-app.js'

/** @param {import('node:test').TestContext} t */
async function tempDir (t) {
  const dir = await mkdtemp(join(tmpdir(), 'ioswarm-record-proxy-'))
  t.after(() => rm(dir, { recursive: true, force: true }))
  return dir
}

/**
 * Starts `ioswarm record --proxy 0` in front of target; resolves with the proxy's URL and the run.
 * @param {import('node:test').TestContext} t
 * @param {string} target
 * @param {string} out
 * @param {string[]} [more]
 */
async function startRecorder (t, target, out, more = []) {
  const run = runCli(t, [BIN, 'record', '--proxy', '0', '--target', target, '--out', out, ...more])
  const url = await printedUrl(run, 'recording proxy on')
  return { run, url: url.replace(/\/$/, '') }
}

/**
 * What the chat page of recorded-app.js does, with socket.io-client in Node through the proxy.
 * @param {import('node:test').TestContext} t
 * @param {string} url the proxy
 * @param {string[]} transports
 * @param {Awaited<ReturnType<typeof startRecordedApp>>} app
 */
async function chatSession (t, url, transports, app) {
  const res = await fetch(`${url}/login`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ user: 'alice', password: 'pw-Alice-2026' })
  })
  assert.equal(res.status, 200)
  const { token } = /** @type {{ token: string }} */ (await res.json())
  const cookie = String(res.headers.get('set-cookie')).split(';')[0]
  const socket = await connect(t, `${url}/chat`, { auth: { token, user: 'alice' }, transports, extraHeaders: { cookie } })
  // The upgrade may be over before connect() resolves: its event would never come again.
  if (transports.length > 1) await waitFor(() => socket.io.engine.transport.name === 'websocket', { message: 'the upgrade to websocket' })
  const acks = [
    await socket.emitWithAck('join', { room: 'room-7' }),
    await socket.emitWithAck('chat', { room: 'room-7', text: 'hello there' }),
    await socket.emitWithAck('avatar', { name: 'me.png', data: Buffer.from([1, 2, 3, 4, 5]) })
  ]
  socket.emit('typing', { room: 'room-7' })
  await waitFor(() => [...app.ledger.values()][0]?.events.length === 4, { message: 'the typing notice at the app' })
  socket.close()
  return acks
}

/** @type {[string, string[], string][]} what the client says, its transports, the --transport of the replay */
const CASES = [['websocket', ['websocket'], 'websocket'], ['polling', ['polling'], 'polling'], ['polling then upgraded', ['polling', 'websocket'], 'upgrade']]

for (const [name, transports, replay] of CASES) {
  test(`socket.io-client over ${name} through the recording proxy: nothing changed, and Ctrl-C writes the scenario`, async (t) => {
    const dir = await tempDir(t)
    const app = await startRecordedApp(t)
    const out = join(dir, 'app.mjs')
    const { run, url } = await startRecorder(t, app.url, out)
    const acks = await chatSession(t, url, transports, app)
    assert.deepEqual(acks[0], { ok: true })
    assert.deepEqual(acks[1], { ok: true, id: 'm-1' })
    assert.deepEqual(acks[2], { stored: 5 }, 'the binary attachment reached the app whole')
    const [entry] = [...app.ledger.values()]
    assert.deepEqual(entry.events.map((e) => e.event), ['join', 'chat', 'avatar', 'typing'])
    assert.deepEqual(entry.events[2].shape, [{ data: 'binary', name: 'string' }])

    run.child.kill('SIGINT')
    const done = await run
    assert.equal(done.code, 0, done.stderr)
    assert.match(
      done.stderr,
      /recorded 1 Socket\.IO session\(s\) through the recording proxy to http:\/\/127\.0\.0\.1:\d+; replaying 127\.0\.0\.1:\d+\/socket\.io\//
    )
    assert.match(done.stderr, new RegExp(`Engine\\.IO v4, ${transports.join(' then ')}\\), namespaces /chat`))
    // The same lines the HAR of the browser's session gives (browser-case.js).
    assert.match(done.stderr, /sent: \/chat join\(room-7\), \/chat chat \(ack\), \/chat avatar \(ack\), \/chat typing\n/)
    assert.match(done.stderr, /login: POST \/login \(HTTP 200, set a cookie\)/)
    assert.match(done.stderr, new RegExp(`--url ${app.url} --transport ${replay} `))
    const module = await readFile(out, 'utf8')
    assert.doesNotMatch(module, /pw-Alice-2026/, 'the password stays out of the scenario')
    assert.match(module, /auth: \{ token: ctx\.login\.token, user: ctx\.row\.user \}/)
    assert.match(module, /json: \{ user: ctx\.row\.user, password: ctx\.row\.password \}/)
    assert.match(
      module,
      /socket\.emitWithAck\("avatar", \{ name: "me\.png", data: Buffer\.from\("AQIDBAU=", 'base64'\) \}\)\) \/\/ acked with \[\{"stored":5\}\]/
    )
    assert.equal(await readFile(join(dir, 'app.users.csv'), 'utf8'), 'user,password\nalice,pw-Alice-2026\n')
  })
}

test('an https target, WebSocket frames compressed with permessage-deflate, gzip polling answers, and HTTP bytes through', { timeout: 60000 }, async (t) => {
  const files = makeCertificate(t)
  if (!files) return
  const dir = await tempDir(t)
  const body = randomBytes(65536)
  const server = https.createServer({ cert: readFileSync(files.cert), key: readFileSync(files.key) }, (req, res) => {
    if (!req.url?.startsWith('/echo')) return
    const chunks = /** @type {Buffer[]} */ ([])
    req.on('data', (c) => chunks.push(c))
    req.on('end', () => res.writeHead(201, { 'X-Echo': 'yes', 'Set-Cookie': ['a=1; Path=/', 'b=2; Path=/'] }).end(Buffer.concat(chunks)))
  })
  const { io, url: target } = await startIoServer(t, { perMessageDeflate: { threshold: 0 }, httpCompression: { threshold: 0 } }, { server })
  const big = 'x'.repeat(5000)
  io.on('connection', (socket) => {
    socket.on('hi', () => socket.emit('hello', { big }))
    socket.on('echo', (m, ack) => ack(m))
  })
  const out = join(dir, 'tls.mjs')
  const { run, url } = await startRecorder(t, target, out, ['--ca', files.cert])

  const res = await fetch(`${url}/echo?x=1`, { method: 'POST', body })
  assert.equal(res.status, 201)
  assert.equal(res.headers.get('x-echo'), 'yes')
  assert.deepEqual(res.headers.getSetCookie(), ['a=1; Path=/', 'b=2; Path=/'])
  assert.ok(Buffer.from(await res.arrayBuffer()).equals(body), 'the answer\'s bytes are the request\'s')
  // socket.io-client over WebSocket, its frames compressed both ways.
  const socket = await connect(t, url, { transports: ['websocket'], perMessageDeflate: { threshold: 0 } })
  assert.deepEqual(await new Promise((resolve) => socket.once('hello', resolve).emit('hi')), { big })
  assert.deepEqual(await socket.emitWithAck('echo', { seq: 'websocket', big }), { seq: 'websocket', big })
  socket.close()
  // Engine.IO polling by fetch, which asks for gzip (socket.io-client's Node XHR does not): the answers come compressed.
  const base = `${url}/socket.io/?EIO=4&transport=polling`
  const poll = async (/** @type {string} */ send = '') => {
    const answer = await fetch(`${base}&sid=${sid}`, send === '' ? {} : { method: 'POST', body: send })
    encodings.push(answer.headers.get('content-encoding'))
    return answer.text()
  }
  /** @type {(string | null)[]} */
  const encodings = []
  const sid = JSON.parse((await (await fetch(base)).text()).slice(1)).sid
  await poll('40')
  assert.match(await poll(), /^40\{"sid"/)
  await poll('42["hi"]')
  assert.equal(await poll(), `42["hello",{"big":"${big}"}]`)
  await poll(`421["echo",{"seq":"polling","big":"${big}"}]`)
  await poll('422["echo",{"seq":"again"}]\x1e423["echo",{"seq":"last"}]')
  assert.equal(await poll(), `431[{"seq":"polling","big":"${big}"}]\x1e432[{"seq":"again"}]\x1e433[{"seq":"last"}]`)
  assert.ok(encodings.includes('gzip'), `the app compressed its answers: ${encodings.join(', ')}`)
  run.child.kill('SIGTERM')
  const done = await run
  assert.equal(done.code, 0, done.stderr)
  // The WebSocket session is read through its deflated frames: without them it would not be found.
  assert.match(done.stderr, /recorded 2 Socket\.IO session\(s\) through the recording proxy to https:\/\/127\.0\.0\.1:\d+; replaying .*, polling\)/)
  assert.match(done.stderr, /, namespaces \/ as 2 client profiles\n/)
  // The two sessions did different things: each is a client profile, the one that sent more first.
  assert.match(done.stderr, /profile 1 \(sid \S+, polling\): sent: \/ hi, \/ echo \(ack\) ×3\n/)
  assert.match(done.stderr, /profile 2 \(sid \S+, websocket\): sent: \/ hi, \/ echo \(ack\)\n/)
  assert.match(done.stderr, /received: \/ hello ×2/, 'what both sessions received')
  const module = await readFile(out, 'utf8')
  assert.match(module, /socket\.emitWithAck\("echo", \{ seq: "polling", big: "x{5000}" \}\)\)/)
  assert.match(module, /socket\.emitWithAck\("echo", \{ seq: "last" \}\)\) \/\/ acked with \[\{"seq":"last"\}\]/, 'the acks, in a gzip answer, were read')
})

test('bad input to record --proxy: exit 2 naming the flag, and nothing written when nothing was recorded', async (t) => {
  const dir = await tempDir(t)
  const app = await startRecordedApp(t)
  const out = join(dir, 'none.mjs')
  const cases = [
    { args: ['--proxy', '0', '--out', out], want: /--target is needed with --proxy/ },
    { args: ['--proxy', '0', '--target', 'ftp://x.test', '--out', out], want: /--target must be an http:\/\/ or https:\/\/ URL, got "ftp:\/\/x\.test"/ },
    {
      args: ['--proxy', '0', '--har', 'x.har', '--target', app.url, '--out', out],
      want: /--proxy records through the proxy; --har reads a recording: give one of them/
    },
    { args: ['--out', out], want: /--har or --proxy is needed/ },
    { args: ['--proxy', '70000', '--target', app.url, '--out', out], want: /--proxy/ }
  ]
  for (const c of cases) {
    const run = await runCli(t, [BIN, 'record', ...c.args])
    assert.equal(run.code, 2, run.stderr)
    assert.match(run.stderr, c.want)
  }
  const { run, url } = await startRecorder(t, app.url, out)
  assert.equal((await fetch(`${url}/`)).status, 200)
  run.child.kill('SIGINT')
  const done = await run
  assert.equal(done.code, 2, done.stderr)
  assert.match(done.stderr, /the recording proxy to http:\/\/127\.0\.0\.1:\d+ saw no Socket\.IO session \(1 request\(s\) passed/)
  assert.deepEqual(await readdir(dir), [], 'nothing written, no temporary file left')
})
