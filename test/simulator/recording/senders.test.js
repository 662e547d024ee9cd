/**
 * A line is never expected back at its sender, whoever sent it (--emit, a hook's emit or
 * emitWithAck), and a copy that comes back is an echo: against servers that relay to everyone
 * but the sender (socket.broadcast.emit, socket.io's own chat example; python-socketio's
 * skip_sid) and to everyone (io.emit), on both engines. The sender is found by the line's
 * identity: an id, the string itself when the server wraps it (--id-field message), or the
 * hash of a line relayed unchanged. Events named with spaces, given as JSON arrays.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startTestSwarm } from '../../helpers/swarm.js'
import { waitFor } from '../../helpers/wait.js'
import { startPythonAppPeer } from '../../helpers/peers.js'
import { runCli } from '../../helpers/cli.js'
import { startIoServer } from '../../helpers/io-server.js'

const CLIENTS = 4

/**
 * socket.io's chat example on socket.io 4: `new message` (a string) relayed as
 * `{ username, message }`, `shout` (a string) relayed unchanged, `join` with `{ room }`; each acked.
 * @param {import('node:test').TestContext} t
 * @param {'others' | 'all'} relay others: socket.broadcast.emit; all: io.emit (the sender too)
 */
async function startChatServer (t, relay) {
  const { io, port } = await startIoServer(t)
  io.on('connection', (socket) => {
    const to = relay === 'others' ? socket.broadcast : io
    const username = `user-${socket.id.slice(0, 6)}`
    socket.on('new message', (/** @type {unknown} */ message, /** @type {((a: unknown) => void) | undefined} */ ack) => {
      to.emit('new message', { username, message })
      ack?.({ ok: true })
    })
    socket.on('shout', (/** @type {unknown} */ text, /** @type {((a: unknown) => void) | undefined} */ ack) => {
      to.emit('shout', text)
      ack?.({ ok: true })
    })
    socket.on('join', (/** @type {{ room: string }} */ data, /** @type {((a: unknown) => void) | undefined} */ ack) => {
      socket.join(data.room)
      ack?.({ ok: true, room: data.room })
    })
  })
  return `http://127.0.0.1:${port}`
}

/** @param {import('node:test').TestContext} t @param {string} text */
function hooksFile (t, text) {
  const dir = mkdtempSync(join(tmpdir(), 'ioswarm-senders-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  const file = join(dir, 'hooks.js')
  writeFileSync(file, text)
  return file
}

/**
 * Runs a swarm until `want` lines of each event arrived after every client knew it was
 * connected (then each line's expected set is every client but its sender), and returns them.
 * @param {import('node:test').TestContext} t
 * @param {Record<string, unknown>} options
 * @param {string[]} events
 * @param {number} [want]
 */
async function linesAfterConnect (t, options, events, want = 8) {
  const swarm = startTestSwarm(t, { clients: CLIENTS, ...options })
  await waitFor(() => swarm.progress?.connected === CLIENTS, {
    timeoutMs: 20000, message: () => `${CLIENTS} clients connected (have ${swarm.progress?.connected})`
  })
  const readyAt = Date.now()
  const after = (/** @type {import('../../../lib/schema/result-schema.js').MessageReport} */ m, /** @type {string} */ event) =>
    m.event === event && m.firstAt > readyAt
  await waitFor(() => events.every((e) => swarm.closed.filter((m) => after(m, e)).length >= want), {
    timeoutMs: 30000, message: () => `${want} lines of each of ${events.join(', ')} (have ${events.map((e) => swarm.closed.filter((m) => after(m, e)).length)})`
  })
  const result = await swarm.stop()
  return { result, lines: Object.fromEntries(events.map((e) => [e, result.messages.filter((m) => after(m, e))])) }
}

/**
 * @param {import('../../../lib/schema/result-schema.js').MessageReport[]} lines
 * @param {number} echo copies back to the sender per line
 */
function assertLines (lines, echo) {
  assert.ok(lines.length > 0)
  for (const m of lines) {
    assert.deepEqual({ expected: m.expected, received: m.received, missing: m.missing, echo: m.echo, duplicates: m.duplicates },
      { expected: CLIENTS - 1, received: CLIENTS - 1, missing: 0, echo, duplicates: 0 }, `${m.event} ${m.id}: every client but its sender`)
  }
}

for (const engine of ['sio', 'lean']) {
  for (const relay of /** @type {const} */ (['others', 'all'])) {
    const echo = relay === 'all' ? 1 : 0
    test(`${engine}, ${relay === 'others' ? 'socket.broadcast.emit' : 'io.emit'}: ` +
      '--emit \'["new message", …]\' wrapped by the server (--id-field message), --join as an array', async (t) => {
      const url = await startChatServer(t, relay)
      const { result, lines } = await linesAfterConnect(t, {
        url,
        engine,
        rooms: 1,
        join: '["join", {"room": "{{room}}"}]',
        emit: '["new message", "hi from {{i}} #{{seq}}"]',
        emitRate: '10/s',
        emitAck: true,
        idField: 'message',
        event: 'none'
      }, ['new message'])
      assertLines(lines['new message'], echo)
      assert.match(lines['new message'][0].id, /^hi from \d #\d+$/, 'known by the string the server wrapped')
      const { joins, emits } = result.scenario ?? {}
      assert.deepEqual([joins?.event, joins?.sent, joins?.acked], ['join', CLIENTS, CLIENTS])
      assert.equal(emits?.event, 'new message')
      assert.ok(emits && emits.sent > 0)
      assert.equal(emits.acked + emits.timedOut + emits.failed, emits.sent, `every emit accounted for: ${JSON.stringify(emits)}`)
    })

    test(`${engine}, ${relay === 'others' ? 'socket.broadcast.emit' : 'io.emit'}: a hook's emit and emitWithAck of strings relayed unchanged`, async (t) => {
      const url = await startChatServer(t, relay)
      const scenario = hooksFile(t, `
        export function onConnect (socket, ctx) {
          let n = 0
          socket.every(100, () => ++n % 2 ? socket.emit('shout', 'shout ' + ctx.i + ' #' + n) : socket.emitWithAck('shout', 'shout ' + ctx.i + ' #' + n))
        }
      `)
      const { result, lines } = await linesAfterConnect(t, { url, engine, scenario, event: 'shout' }, ['shout'])
      assertLines(lines.shout, echo)
      assert.match(lines.shout[0].id, /^content:/, 'known by the hash of its content')
      assert.deepEqual(result.scenario?.hooks?.errors, {})
    })
  }
}

test('python-socketio 5: "new message" to everyone but the sender (skip_sid), ' +
  'chat lines to everyone: no line missing at its sender, echoes counted', { concurrency: 2 }, async (t) => {
  await Promise.all(['sio', 'lean'].map((engine) => t.test(engine, async (t) => {
    const peer = await startPythonAppPeer(t)
    if (!peer) return
    const scenario = hooksFile(t, `
      export function onConnect (socket, ctx) {
        let n = 0
        socket.every(100, () => {
          n++
          socket.emitWithAck('new message', 'py ' + ctx.i + ' #' + n)
          socket.emit('chat', { text: 'py ' + ctx.i + ' #' + n })
        })
      }
    `)
    const { result, lines } = await linesAfterConnect(t, { url: peer.url, engine, scenario, idField: 'message', event: ['new message', 'chat'] }, [
      'new message',
      'chat'
    ])
    assertLines(lines['new message'], 0)
    assertLines(lines.chat, 1)
    assert.deepEqual(result.scenario?.hooks?.errors, {})
  })))
})

test('--emit and --join as JSON arrays: bad input exits 2 naming the flag', async (t) => {
  const cases = [
    [['--emit', '["new message", "hi"'], /--emit must be a JSON template/],
    [['--emit', '[]'], /--emit must be a JSON array, the event name first/],
    [['--join', '[{"room": "a"}]'], /--join must be a JSON array, the event name first, then its arguments.*: the event name is a plain string/],
    [['--emit', '["{{i}}", "hi"]'], /--emit must be a JSON array.*the event name is a plain string \(no placeholder\)/]
  ]
  for (const [flags, message] of /** @type {[string[], RegExp][]} */ (cases)) {
    const { code, stderr } = await runCli(t, ['bin/ioswarm.js', 'simulate', '--url', 'http://127.0.0.1:9', '-c', '1', ...flags])
    assert.equal(code, 2, `${flags.join(' ')}: ${stderr}`)
    assert.match(stderr, message)
  }
})
