/**
 * Plain WebSocket servers written by other people (--protocol websocket): the ws library
 * (pinned in test/peers) and Python websockets (Debian python3-websockets), each pushing JSON
 * with an id and a send time, plain text with no id, binary and fragmented messages; a close
 * 1008 and an HTTP 401 on a bad token; subprotocols; the server's pings. Both WebSocket
 * clients (ws and builtin), through the real binary.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { runCli } from '../helpers/cli.js'
import { endWhenMeasured, endWhenRefused } from '../helpers/measured-end.js'
import { startWebSocketPeer } from '../helpers/peers.js'
import { waitFor } from '../helpers/wait.js'

const CLIENTS = 5
/**
 * The most a measured run lasts: room for a slow start on a busy machine (clients connect in
 * well under a second when it is idle, in 5–9 s at a load of 14); it ends as soon as its
 * messages are measured, so the bound costs nothing in a healthy run.
 */
const DURATION_S = 20
const CLIENTS_OF = /** @type {const} */ (['ws', 'builtin'])
const KINDS = /** @type {const} */ (['node', 'python'])

/**
 * `ioswarm simulate --protocol websocket` against a peer: every client connected as the server
 * counts them, `messages` pushes measured by every client with none missing, a clean exit by
 * itself after its end (SIGTERM once its metrics count them, or its duration; runCli's bound kills
 * it otherwise, and the exit code is not 0).
 * @param {import('node:test').TestContext} t
 * @param {import('../helpers/peers.js').WebSocketPeer} peer
 * @param {{ client: string, args?: string[], messages?: number, measured?: number }} spec measured: messages expected in the result (default: messages)
 * @returns {Promise<any>} the result
 */
async function measure (t, peer, { client, args = [], messages = 2, measured = messages }) {
  const run = runCli(t, ['bin/ioswarm.js', 'simulate', '--protocol', 'websocket', '-c', String(CLIENTS), '--ws-client', client, '--url', peer.url,
    '--ramp', '0', '--duration', `${DURATION_S}s`, '--json', '--metrics-port', '0', ...args], { timeoutMs: (DURATION_S + 20) * 1000 })
  await waitFor(async () => (await peer.count()).connected === CLIENTS, {
    timeoutMs: DURATION_S * 1000,
    intervalMs: 50,
    message: `${CLIENTS} clients as the server counts them`
  })
  await peer.emit(messages)
  await endWhenMeasured(run, { messages: measured, clients: CLIENTS })
  const { code, stdout, stderr } = await run
  assert.equal(code, 0, `exit code; stderr: ${stderr.slice(-2000)}`)
  assert.equal((await peer.count()).connected, 0, 'every client closed its connection at the end')
  const result = JSON.parse(stdout)
  assert.equal(result.options.protocol, 'websocket')
  assert.equal(result.clients.everConnected, CLIENTS, `connected: ${JSON.stringify(result.clients.errors)}`)
  assert.deepEqual(result.clients.disconnects, {}, 'no client lost its connection before the end')
  assert.equal(result.messages.length, measured, `messages measured: ${JSON.stringify(result.messages.map((/** @type {any} */ m) => m.id))}`)
  for (const m of result.messages) {
    assert.equal(m.received, CLIENTS, `${m.id} received`)
    assert.equal(m.missing, 0, `${m.id} missing`)
    assert.equal(m.duplicates, 0, `${m.id} duplicates`)
  }
  return result
}

/** Every peer kind × client. */
const MATRIX = KINDS.flatMap((kind) => CLIENTS_OF.map((client) => ({ kind, client })))
/** Each peer and each client once (for the cases whose client code paths the full matrix already covers). */
const PAIRS = [{ kind: /** @type {const} */ ('node'), client: 'builtin' }, { kind: /** @type {const} */ ('python'), client: 'ws' }]

test('JSON messages with an id and a send time: measured with absolute latency', { concurrency: 3 }, async (t) => {
  await Promise.all(MATRIX.map(({ kind, client }) => t.test(`${kind} ${client}`, async (t) => {
    const peer = await startWebSocketPeer(t, kind, { mode: 'json' })
    if (!peer) return
    const result = await measure(t, peer, { client })
    assert.match(result.server.protocol, /plain WebSocket/)
    for (const m of result.messages) {
      assert.match(m.id, kind === 'node' ? /^ws-\d+$/ : /^py-\d+$/)
      assert.equal(m.absolute?.count, CLIENTS, `${m.id}: absolute latency from its sentAt`)
    }
  })))
})

test('plain text with no id: told apart by content', { concurrency: 3 }, async (t) => {
  await Promise.all(PAIRS.map(({ kind, client }) => t.test(`${kind} ${client}`, async (t) => {
    const peer = await startWebSocketPeer(t, kind, { mode: 'text' })
    if (!peer) return
    const result = await measure(t, peer, { client, messages: 3 })
    for (const m of result.messages) {
      assert.match(m.id, /^content:[0-9a-f]{16}$/)
      assert.equal(m.absolute, null)
    }
  })))
})

test('binary and fragmented messages', { concurrency: 3 }, async (t) => {
  await Promise.all(MATRIX.map(({ kind, client }) => t.test(`${kind} ${client}: binary, fragmented`, async (t) => {
    const peer = await startWebSocketPeer(t, kind, { mode: 'binary', fragment: true })
    if (!peer) return
    const result = await measure(t, peer, { client, messages: 3 })
    for (const m of result.messages) assert.match(m.id, /^bytes:[0-9a-f]{16}$/)
  })))
  await t.test('node builtin: JSON text, fragmented', async (t) => {
    const peer = /** @type {import('../helpers/peers.js').WebSocketPeer} */ (await startWebSocketPeer(t, 'node', { mode: 'json', fragment: true }))
    const result = await measure(t, peer, { client: 'builtin' })
    for (const m of result.messages) assert.match(m.id, /^ws-\d+$/)
  })
})

test('a message shape of its own: --id-field, --sent-at-field (epoch seconds) and --match', { concurrency: 3 }, async (t) => {
  await Promise.all(CLIENTS_OF.map((client) => t.test(client, async (t) => {
    const peer = await startWebSocketPeer(t, 'python', { mode: 'nested' })
    if (!peer) return
    const result = await measure(t, peer, {
      client,
      args: ['--id-field', 'data.seq', '--sent-at-field', 'data.ts', '--match', 'type=score', '--match', 'type=goal']
    })
    assert.deepEqual(result.messages.map((/** @type {any} */ m) => m.id).sort(), ['1', '2'])
    for (const m of result.messages) assert.equal(m.absolute?.count, CLIENTS, 'absolute latency from a time in seconds')
    assert.deepEqual(result.clients.unmeasuredEvents, { 'type=heartbeat': 2 * CLIENTS }, 'heartbeats counted by what they were, not measured')
  })))
})

test('--send-on-open: each client\'s subscribe reaches the server, with its own {{i}}; a token in --query', { concurrency: 3 }, async (t) => {
  await Promise.all(PAIRS.map(({ kind, client }) => t.test(`${kind} ${client}`, async (t) => {
    const peer = await startWebSocketPeer(t, kind, { mode: 'json', token: 'secret' })
    if (!peer) return
    await measure(t, peer, { client, args: ['--query', 'token=secret', '--send-on-open', '{"op":"subscribe","user":"u{{i}}"}'] })
    assert.equal((await peer.count()).received, CLIENTS)
  })))
})

test('a close 1008 right after the handshake is a refusal, counted with its code and reason', { concurrency: 3 }, async (t) => {
  await Promise.all(MATRIX.map(({ kind, client }) => t.test(`${kind} ${client}`, async (t) => {
    const peer = await startWebSocketPeer(t, kind, { token: 'secret' })
    if (!peer) return
    const run = runCli(t, ['bin/ioswarm.js', 'simulate', '--protocol', 'websocket', '-c', String(CLIENTS), '--ws-client', client,
      '--url', `${peer.url}?token=wrong`, '--ramp', '0', '--duration', '5s', '--no-reconnect', '--json', '--metrics-port', '0'])
    await endWhenRefused(run, CLIENTS)
    const { code, stdout, stderr } = await run
    assert.equal(code, 1, stderr)
    assert.match(stderr, /no client ever connected/)
    const result = JSON.parse(stdout)
    assert.deepEqual(result.clients.errors, { 'refused: close 1008 policy violation: bad token': CLIENTS })
    assert.equal(result.clients.everConnected, 0)
    assert.equal(result.clients.failed, CLIENTS)
    assert.equal((await peer.count()).refused, CLIENTS)
  })))
})

test('an HTTP 401 answer to the handshake is a refusal too', { concurrency: 3 }, async (t) => {
  await Promise.all(CLIENTS_OF.map((client) => t.test(client, async (t) => {
    const peer = await startWebSocketPeer(t, 'python', { token: 'secret', refuse: 'http' })
    if (!peer) return
    const run = runCli(t, ['bin/ioswarm.js', 'simulate', '--protocol', 'websocket', '-c', String(CLIENTS), '--ws-client', client,
      '--url', peer.url, '--ramp', '0', '--duration', '5s', '--no-reconnect', '--json', '--metrics-port', '0'])
    await endWhenRefused(run, CLIENTS)
    assert.deepEqual(JSON.parse((await run).stdout).clients.errors, { 'handshake refused: HTTP 401': CLIENTS })
  })))
})

test('subprotocols: the one the server picks connects; a server that picks none fails the handshake', { concurrency: 3 }, async (t) => {
  await Promise.all(PAIRS.map(({ kind, client }) => t.test(`${kind} ${client}`, async (t) => {
    const peer = await startWebSocketPeer(t, kind, { mode: 'json', subprotocol: 'chat.v2' })
    if (!peer) return
    await measure(t, peer, { client, args: ['--subprotocol', 'other', '--subprotocol', 'chat.v2'] })
    const refused = runCli(t, ['bin/ioswarm.js', 'simulate', '--protocol', 'websocket', '-c', '2', '--ws-client', client,
      '--url', peer.url, '--subprotocol', 'other', '--ramp', '0', '--duration', '5s', '--no-reconnect', '--json', '--metrics-port', '0'])
    await endWhenRefused(refused, 2)
    // Both servers accept the handshake without a subprotocol; the client then fails it (RFC 6455 §4.1).
    assert.deepEqual(JSON.parse((await refused).stdout).clients.errors, { 'Server sent no subprotocol': 2 })
  })))
})

test('the server\'s pings are answered: no client is dropped by its heartbeat', { concurrency: 3 }, async (t) => {
  await Promise.all(CLIENTS_OF.map((client) => t.test(client, async (t) => {
    // The peer drops a client whose pong has not come by its next ping: an interval a loaded
    // host's scheduling does not reach (at 100 ms, two busy loops beside the suite dropped some).
    const peer = /** @type {import('../helpers/peers.js').WebSocketPeer} */ (await startWebSocketPeer(t, 'node', { mode: 'json', pingIntervalMs: 500 }))
    const run = runCli(t, ['bin/ioswarm.js', 'simulate', '--protocol', 'websocket', '-c', String(CLIENTS), '--ws-client', client,
      '--url', peer.url, '--ramp', '0', '--duration', '8s', '--json', '--quiet'])
    // Ten pongs each means ten pings answered.
    await waitFor(async () => ((await peer.count()).pongs ?? 0) >= 10 * CLIENTS, { timeoutMs: 20000, message: 'ten pongs from each client' })
    const result = JSON.parse((await run).stdout)
    assert.deepEqual(result.clients.disconnects, {})
    assert.equal(result.clients.attempts, CLIENTS)
  })))
})
