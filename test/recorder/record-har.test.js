/**
 * `ioswarm record --har`: the real binary on HAR files shaped as Chrome's and Firefox's devtools
 * write them (test/fixtures/har/), and on bad input (exit 2, a message naming what is missing,
 * no file written). The scenario it writes must load as a --scenario.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { once } from 'node:events'
import { WebSocketServer } from 'ws'
import { BIN, ROOT, runCli } from '../helpers/cli.js'
import { loadScenario } from '../../simulator/traffic/scenario-hooks.js'

const FIXTURES = join(ROOT, 'test/fixtures/har')

/** @param {import('node:test').TestContext} t */
async function tempDir (t) {
  const dir = await mkdtemp(join(tmpdir(), 'ioswarm-record-'))
  t.after(() => rm(dir, { recursive: true, force: true }))
  return dir
}

test('a Chrome HAR (WebSocket frames, a login, a namespace, a join, acked and binary emits) becomes a scenario', async (t) => {
  const dir = await tempDir(t)
  const out = join(dir, 'app.mjs')
  const run = await runCli(t, [BIN, 'record', '--har', join(FIXTURES, 'chrome-websocket.har'), '--out', out])
  assert.equal(run.code, 0, run.stderr)
  assert.match(run.stderr, /Engine\.IO v4, websocket\), namespaces \/chat/)
  assert.match(run.stderr, /sent: \/chat join\(room-7\), \/chat chat \(ack\), \/chat avatar \(ack\), \/chat typing/)
  assert.match(run.stderr, /received: \/chat chat ×3/)
  // The lean engine would write the avatar's bytes as JSON ({type, data}): the replay needs the sio engine, and both files say so.
  assert.match(run.stderr, /binary data sent by: avatar; replay with the sio engine \(the default\): --engine lean sends JSON only/)
  assert.match(run.stderr, /measured events: chat; id field: id/)
  assert.match(run.stderr, /auth token → ctx\.login\.token \(the login answered it\)/)
  assert.match(run.stderr, /receive "9zz unknown": not an Engine\.IO packet/)
  assert.match(run.stderr, /--namespace \/chat --scenario app\.mjs --feeder app\.users\.csv --event chat --id-field id/)
  const module = await readFile(out, 'utf8')
  assert.doesNotMatch(module, /hunter2-secret|eyJhbGci/, 'no password or token left in the scenario')
  assert.match(module, /json: \{ user: ctx\.row\.user, password: ctx\.row\.password \}/)
  assert.match(module, /\* avatar sends binary data: replay with the sio engine/)
  assert.match(module, /auth: \{ token: ctx\.login\.token, user: ctx\.row\.user \}/)
  assert.match(module, /cookies: \{ "theme": "dark" \}/, 'the login\'s own cookie is left to the login')
  assert.match(module, /await step\(1, 88, "join room-7", \(\) => socket\.join\("room-7", \{ event: "join", payload: \{ room: "room-7" \} \}\)\)/)
  assert.match(module, /step\(2, 2000, "chat \(ack\)", \(\) => socket\.emitWithAck\("chat", \{ room: "room-7", text: typed\("hello there"\) \}\)\)/)
  assert.match(module, /socket\.emitWithAck\("avatar", \{ name: "me\.png", data: Buffer\.from\("AAECAwQFBgc=", 'base64'\) \}\)/)
  assert.match(module, /step\(4, 500, "typing", \(\) => socket\.emit\("typing", \{ room: "room-7" \}\)\)/)
  assert.equal(await readFile(join(dir, 'app.users.csv'), 'utf8'), 'user,password\nalice,hunter2-secret\n')
  const hooks = await loadScenario(out)
  assert.deepEqual(Object.keys(hooks).sort(), ['identity', 'login', 'onConnect'])
  const identity = hooks.identity?.(3, /** @type {any} */ ({ i: 3, row: { user: 'u3', password: 'p' }, login: { token: 'tk3' } }))
  assert.deepEqual(identity?.auth, { token: 'tk3', user: 'u3' })
})

test('a Firefox HAR (polling bodies, the WebSocket written without frames) becomes a scenario, and says what it lacks', async (t) => {
  const dir = await tempDir(t)
  const out = join(dir, 'ff.mjs')
  const run = await runCli(t, [BIN, 'record', '--har', join(FIXTURES, 'firefox-polling.har'), '--out', out, '--feeder-out', join(dir, 'people.csv')])
  assert.equal(run.code, 0, run.stderr)
  assert.match(run.stderr, /by Firefox 128\.0.*Engine\.IO v4, polling\)/)
  assert.match(run.stderr, /WebSocket connections written without their frames/)
  assert.match(run.stderr, /sent: \/ vote \(ack\), \/ ping me/)
  assert.doesNotMatch(run.stderr, /binary data/, 'JSON only: any engine replays it')
  assert.match(run.stderr, /measured events: score; id field: seq/)
  const module = await readFile(out, 'utf8')
  assert.match(module, /socket\.emitWithAck\("vote", \{ poll: "p1", choice: 2 \}\)\) \/\/ acked with \[\{"counted":true\}\]/)
  assert.match(module, /socket\.emit\("ping me", \{ n: 1 \}\)/)
  assert.match(module, /--feeder people\.csv/)
  assert.equal(await readFile(join(dir, 'people.csv'), 'utf8'), 'user\ndave\n')
})

test('an Engine.IO v3 polling session (length-prefixed bodies, base64 binary) is read with the simulator\'s codec', async (t) => {
  const dir = await tempDir(t)
  const sid = 'v3sidAAAAAAAAAAAAAAA'
  const open = `0{"sid":"${sid}","upgrades":[],"pingInterval":25000,"pingTimeout":5000}`
  const base = 'http://old.test/socket.io/?EIO=3&transport=polling'
  const t0 = Date.parse('2026-12-05T06:00:00Z')
  /** @param {string} method @param {number} at @param {string} url @param {string | null} post @param {string} text */
  const entry = (method, at, url, post, text) =>
    ({
      startedDateTime: new Date(t0 + at).toISOString(),
      time: 2,
      request: { method, url, headers: [], cookies: [], ...(post === null ? {} : { postData: { mimeType: 'text/plain;charset=UTF-8', text: post } }) },
      response: { status: 200, headers: [], cookies: [], content: { mimeType: 'text/plain', text } }
    })
  const v3 = (/** @type {string[]} */ packets) => packets.map((p) => `${p.length}:${p}`).join('')
  const har = {
    log: {
      creator: { name: 'WebInspector', version: '537.36' },
      entries: [
        entry('GET', 0, `${base}&t=1`, null, v3([open, '40'])),
        entry('POST', 100, `${base}&sid=${sid}`, v3(['40/feed?token=abc', '42/feed,["sub",{"topic":"news"}]']), 'ok'),
        entry('POST', 200, `${base}&sid=${sid}`, v3(['451-/feed,7["photo",{"_placeholder":true,"num":0}]', 'b4AQID']), 'ok'),
        entry('GET', 250, `${base}&sid=${sid}`, null, v3(['40/feed', '43/feed,7[true]', '42/feed,["item",{"uid":1}]', '42/feed,["item",{"uid":2}]']))
      ]
    }
  }
  const file = join(dir, 'v3.har')
  await writeFile(file, JSON.stringify(har))
  const run = await runCli(t, [BIN, 'record', '--har', file, '--out', join(dir, 'v3.mjs')])
  assert.equal(run.code, 0, run.stderr)
  assert.match(run.stderr, /Engine\.IO v3, polling\), namespaces \/, \/feed/)
  assert.match(run.stderr, /--eio 3 --transport polling --namespace \/ --namespace \/feed/)
  assert.match(run.stderr, /measured events: item; id field: uid/)
  const module = await readFile(join(dir, 'v3.mjs'), 'utf8')
  assert.match(module, /socket\.emit\("sub", \{ topic: "news" \}\)/)
  assert.match(module, /query: \{ "token": "abc" \}/, 'the query socket.io-client 2 sent with the namespace\'s CONNECT')
  assert.match(module, /socket\.emitWithAck\("photo", Buffer\.from\("AQID", 'base64'\)\)\) \/\/ acked with \[true\]/)
})

test('bad recordings: exit 2 with what is missing, and no file written', async (t) => {
  const dir = await tempDir(t)
  const t0 = '2026-12-05T06:00:00.000Z'
  const ws = (/** @type {string} */ url, /** @type {unknown[] | undefined} */ messages) => ({
    startedDateTime: t0,
    time: 0,
    _resourceType: 'websocket',
    request: { method: 'GET', url, headers: [], cookies: [] },
    response: { status: 101, headers: [], cookies: [], content: { size: 0, mimeType: 'x-unknown' } },
    ...(messages === undefined ? {} : { _webSocketMessages: messages })
  })
  const page = {
    startedDateTime: t0,
    time: 3,
    request: { method: 'GET', url: 'http://a.test/', headers: [] },
    response: { status: 200, content: { text: '<html>' } }
  }
  const cases = [
    { name: 'truncated.har', copy: join(FIXTURES, 'truncated.har'), want: /not a whole HAR file \(it ends in the middle: truncated\?\)/ },
    {
      name: 'nosockets.har',
      har: { log: { creator: { name: 'WebInspector' }, entries: [page] } },
      want: /no WebSocket frames \(no _webSocketMessages\) and no Engine\.IO polling requests/
    },
    {
      name: 'firefox-ws.har',
      har: { log: { creator: { name: 'Firefox', version: '128.0' }, entries: [page, ws('ws://a.test/socket.io/?EIO=4&transport=websocket', undefined)] } },
      want: /1 WebSocket connection\(s\) .* but not their frames: its writer \(Firefox 128\.0\)/
    },
    {
      name: 'unknown.har',
      har: { log: { entries: [ws('ws://a.test/socket.io/?EIO=4&transport=websocket', [{ type: 'receive', time: 1, opcode: 1, data: 'HELLO v9' }])] } },
      want: /frames of an unknown protocol \(no Engine\.IO open packet; first: "HELLO v9"\)/
    },
    {
      name: 'plain.har',
      har: { log: { entries: [ws('ws://a.test/feed', [{ type: 'send', time: 1, opcode: 1, data: '{"sub":"x"}' }])] } },
      want: /none speaks Engine\.IO .* first frame: "\{\\"sub\\":\\"x\\"\}"; .*--protocol websocket/
    },
    { name: 'notahar.har', har: { hello: 1 }, want: /has no log\.entries/ }
  ]
  for (const c of cases) {
    const file = join(dir, c.name)
    await writeFile(file, c.copy ? await readFile(c.copy) : JSON.stringify(c.har))
    const run = await runCli(t, [BIN, 'record', '--har', file, '--out', join(dir, 'out.mjs')])
    assert.equal(run.code, 2, `${c.name}: ${run.stderr}`)
    assert.match(run.stderr, c.want, c.name)
  }
  const missing = await runCli(t, [BIN, 'record', '--har', join(dir, 'nope.har'), '--out', join(dir, 'out.mjs')])
  assert.equal(missing.code, 2, missing.stderr)
  assert.match(missing.stderr, /--har cannot read .*nope\.har/)
  const written = (await readdir(dir)).filter((f) => !f.endsWith('.har'))
  assert.deepEqual(written, [], 'nothing written, no temporary file left')
})

test('a plain WebSocket recording becomes --protocol websocket options (--out NAME.json) that simulate replays', { timeout: 60000 }, async (t) => {
  const dir = await tempDir(t)
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1' })
  t.after(() => new Promise((resolve) => { for (const c of wss.clients) c.terminate(); wss.close(() => resolve(undefined)) }))
  await once(wss, 'listening')
  /** @type {string[]} what each client sent first */
  const firsts = []
  wss.on('connection', (ws) => ws.once('message', (data) => firsts.push(String(data))))
  const url = `ws://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (wss.address()).port}/feed`
  const frame = (/** @type {string} */ type, /** @type {number} */ time, /** @type {unknown} */ data) => ({ type, time, opcode: 1, data: JSON.stringify(data) })
  const har = {
    log: {
      creator: { name: 'WebInspector', version: '537.36' },
      entries: [{
        startedDateTime: '2026-12-05T06:00:00.000Z',
        time: 0,
        _resourceType: 'websocket',
        request: { method: 'GET', url, headers: [], cookies: [] },
        response: { status: 101, headers: [{ name: 'Sec-WebSocket-Protocol', value: 'feed.v1' }], cookies: [], content: { size: 0 } },
        _webSocketMessages: [
          frame('send', 1, { op: 'subscribe', channel: 'nba' }),
          frame('receive', 1.1, { type: 'hello' }),
          frame('receive', 1.2, { type: 'score', seq: 1, home: 3 }),
          frame('receive', 1.3, { type: 'score', seq: 2, home: 3 }),
          frame('receive', 1.4, { type: 'score', seq: 3, home: 5 }),
          frame('send', 1.5, { op: 'ping' })
        ]
      }]
    }
  }
  await writeFile(join(dir, 'feed.har'), JSON.stringify(har))
  const mjs = await runCli(t, [BIN, 'record', '--har', join(dir, 'feed.har'), '--out', join(dir, 'feed.mjs')])
  assert.equal(mjs.code, 2, mjs.stderr)
  assert.match(mjs.stderr, /none speaks Engine\.IO .*give --out NAME\.json to write its replay as --protocol websocket options/)
  const run = await runCli(t, [BIN, 'record', '--har', join(dir, 'feed.har'), '--out', join(dir, 'feed.json')])
  assert.equal(run.code, 0, run.stderr)
  assert.match(
    run.stderr,
    new RegExp(/recorded 1 plain WebSocket connection\(s\) in a HAR by WebInspector 537\.36; /.source +
      /replaying ws:\/\/127\.0\.0\.1:\d+\/feed \(2 text frame\(s\) sent, 4 received\)/.source)
  )
  assert.match(run.stderr, /not replayed: 1 more message\(s\) the client sent/)
  const config = JSON.parse(await readFile(join(dir, 'feed.json'), 'utf8'))
  assert.deepEqual(config, {
    protocol: 'websocket',
    url,
    subprotocol: 'feed.v1',
    'send-on-open': '{"op":"subscribe","channel":"nba"}',
    match: ['type=score'],
    'id-field': 'seq'
  })
  const replay = await runCli(t, [BIN, 'simulate', '--config', join(dir, 'feed.json'), '--clients', '3', '--ramp', '0s', '--duration', '3s', '--json'])
  assert.equal(replay.code, 0, replay.stderr)
  assert.ok(firsts.length >= 3, `3 clients sent a first message: ${firsts.length}`)
  assert.deepEqual(new Set(firsts), new Set(['{"op":"subscribe","channel":"nba"}']), 'each client sent the recorded subscribe')
})
