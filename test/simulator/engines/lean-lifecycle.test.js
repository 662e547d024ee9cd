/**
 * The lean engine's connection life against a real socket.io server: heartbeats, a dead
 * server noticed by its missing pings, server and client disconnects, refusal by middleware,
 * reconnection after a restart, connection state recovery.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { leanEngine } from '../../../simulator/engines/lean.js'
import { recorder, engineOptions, messagesOf, VARIANTS } from './lean/helpers.js'
import { startIoServer } from '../../helpers/io-server.js'
import { waitFor } from '../../helpers/wait.js'
import { startFakePeer } from './lean/fake-peer.js'

/** Short deterministic reconnection delays: a reconnect that should happen does within 50 ms. */
const FAST_RECONNECT = { reconnectionDelayMs: 50, reconnectionDelayMaxMs: 100, randomizationFactor: 0 }

/**
 * @param {import('node:test').TestContext} t
 * @param {string} url
 * @param {Partial<import('../../../simulator/engines/lean/config.js').LeanOptions>} [extra]
 */
function openPool (t, url, extra) {
  const { log, events } = recorder()
  const pool = leanEngine.createPool(engineOptions(url, { ...FAST_RECONNECT, ...extra }), events)
  t.after(() => pool.close())
  return { pool, log }
}

/**
 * A window in which a retry of a client that must not reconnect would have happened: client `i` of the same pool (with
 * the same fixed reconnection delay) connects, its connection is closed by the server, and it reconnects. Ends when it
 * has: a retry due earlier would have started by then.
 * @param {{ io: import('socket.io').Server }} server
 * @param {import('../../../simulator/engines/types.js').EnginePool} pool
 * @param {ReturnType<typeof recorder>['log']} log
 * @param {number} i
 */
async function reconnectWindow (server, pool, log, i) {
  const reconnected = log.reconnected
  const earlier = new Set(server.io.of('/').sockets.keys())
  pool.connect(i, 'websocket')
  await waitFor(() => log.connected.has(i), { message: `control client ${i} to connect` })
  for (const [id, socket] of server.io.of('/').sockets) if (!earlier.has(id)) socket.conn.close()
  await waitFor(() => log.reconnected > reconnected && log.connected.has(i), { message: `control client ${i} to reconnect` })
}

/**
 * How many attempts client i started.
 * @param {ReturnType<typeof recorder>['log']} log
 * @param {number} i
 */
function attemptsOf (log, i) {
  return log.attemptsAt.filter((a) => a.i === i).length
}

test('heartbeat: clients answer pings and stay connected across several ping cycles', async (t) => {
  // Pings every 300 ms; a pong may take 2 s on a busy host (a client that never answers is dropped then, and its socket
  // never reaches 4 pongs).
  const server = await startIoServer(t, { pingInterval: 300, pingTimeout: 2000 })
  /** @type {Map<string, number>} */
  const pongs = new Map()
  server.io.engine.on('connection', (socket) => {
    socket.on('heartbeat', () => pongs.set(socket.id, (pongs.get(socket.id) ?? 0) + 1))
  })
  const { pool, log } = openPool(t, server.url)
  const other = openPool(t, server.url, { wsClient: 'ws' })
  pool.connect(0, 'websocket')
  pool.connect(1, 'polling')
  pool.connect(2, 'upgrade')
  other.pool.connect(0, 'websocket')
  other.pool.connect(1, 'upgrade')
  await waitFor(() => log.connected.size === 3 && other.log.connected.size === 2, { message: '5 clients to connect' })
  await waitFor(() => pongs.size === 5 && [...pongs.values()].every((n) => n >= 4), { message: '4 answered pings per client' })
  assert.deepEqual([...log.disconnects, ...other.log.disconnects], [])
  assert.equal(server.io.engine.clientsCount, 5)
})

for (const { label, transport, extra } of VARIANTS) {
  test(`${label}: a server whose pings stop is noticed after pingInterval + pingTimeout`, async (t) => {
    const peer = await startFakePeer(t)
    const { pool, log } = openPool(t, peer.url, { reconnect: false, ...extra })
    pool.connect(0, transport)
    // The peer announced 300 + 200 ms; the shared sweeper ticks every 100 ms and never fires early. The window is
    // measured from the peer writing its open packet to the disconnect being told, both taken at the event.
    await waitFor(() => log.disconnects.length === 1, { message: 'the ping timeout' })
    assert.deepEqual(log.disconnects, [{ i: 0, reason: 'ping timeout' }])
    const silentMs = log.disconnectedAt[0] - peer.stats.openedAt
    assert.ok(silentMs >= 450, `not before the announced window: ${silentMs} ms`)
  })

  test(`${label}: server-side socket.disconnect() is 'io server disconnect', without reconnection`, async (t) => {
    const server = await startIoServer(t)
    const { pool, log } = openPool(t, server.url, extra)
    pool.connect(0, transport)
    await waitFor(() => log.connected.size === 1, { message: 'the client to connect' })
    for (const socket of server.io.of('/').sockets.values()) socket.disconnect()
    await waitFor(() => log.disconnects.length === 1, { message: 'the disconnect' })
    assert.deepEqual(log.disconnects, [{ i: 0, reason: 'io server disconnect' }])
    // The client closes its Engine.IO session too, as socket.io-client does.
    await waitFor(() => server.io.engine.clientsCount === 0, { message: 'the engine session to close' })
    await reconnectWindow(server, pool, log, 1)
    assert.equal(attemptsOf(log, 0), 1, 'client 0 did not try again')
  })

  test(`${label}: middleware refusal is a connect error with the server's message`, async (t) => {
    const server = await startIoServer(t)
    // Client 0 is refused; client 1 (k=1) is let in, to bound the window below.
    server.io.use((socket, next) => next(socket.handshake.query.k === '1' ? undefined : new Error('nope')))
    const { pool, log } = openPool(t, server.url, { identity: (i) => ({ query: { k: String(i) } }), ...extra })
    pool.connect(0, transport)
    await waitFor(() => log.errors.length === 1, { message: 'the connect error' })
    assert.deepEqual(log.errors, [{ i: 0, reason: 'nope' }])
    await waitFor(() => server.io.engine.clientsCount === 0, { message: 'the engine session to close' })
    assert.equal(log.connected.size + log.disconnects.length, 0)
    await reconnectWindow(server, pool, log, 1)
    assert.equal(attemptsOf(log, 0), 1, 'socket.io-client does not retry a refused namespace')
  })

  test(`${label}: pool.disconnect(i) leaves on purpose: 'io client disconnect' on both sides`, async (t) => {
    const server = await startIoServer(t)
    /** @type {string[]} */
    const serverReasons = []
    server.io.on('connection', (socket) => socket.on('disconnect', (reason) => serverReasons.push(reason)))
    const { pool, log } = openPool(t, server.url, extra)
    pool.connect(0, transport)
    await waitFor(() => log.connected.size === 1, { message: 'the client to connect' })
    pool.disconnect(0)
    assert.deepEqual(log.disconnects, [{ i: 0, reason: 'io client disconnect' }])
    await waitFor(() => serverReasons.length === 1, { message: 'the server to see the disconnect' })
    assert.deepEqual(serverReasons, ['client namespace disconnect'])
    await waitFor(() => server.io.engine.clientsCount === 0, { message: 'the engine session to close' })
    pool.connect(0, transport)
    await waitFor(() => log.connected.size === 1, { message: 'the client to connect again' })
  })
}

for (const wsClient of /** @type {const} */ (['builtin', 'ws'])) {
  test(`server restart (${wsClient} client): clients see transport close, reconnect and are counted`, async (t) => {
    const first = await startIoServer(t)
    const { pool, log } = openPool(t, first.url, { wsClient })
    const modes = /** @type {const} */ (['websocket', 'websocket', 'polling', 'polling', 'upgrade'])
    modes.forEach((mode, i) => pool.connect(i, mode))
    await waitFor(() => log.connected.size === 5 && log.upgraded.length === 1, { message: '5 clients connected, 1 upgraded' })
    await first.close()
    await waitFor(() => log.disconnects.length === 5, { message: '5 disconnects' })
    assert.ok(log.disconnects.every((d) => d.reason === 'transport close'), JSON.stringify(log.disconnects))
    const second = await startIoServer(t, {}, { port: first.port })
    await waitFor(() => log.reconnected === 5 && log.connected.size === 5, { message: '5 reconnections' })
    assert.equal(second.io.engine.clientsCount, 5)
    assert.ok(log.attempts >= 10)
    second.io.emit('broadcast', { id: 'after' })
    await waitFor(() => log.messages.length === 5, { message: 'a broadcast after the restart' })
  })
}

test('a server that is down: connect errors are counted and retried with backoff', async (t) => {
  const server = await startIoServer(t)
  const url = server.url
  await server.close()
  const { pool, log } = openPool(t, url)
  pool.connect(0, 'websocket')
  pool.connect(1, 'polling')
  await waitFor(() => attemptsOf(log, 0) >= 4 && attemptsOf(log, 1) >= 4, { message: 'four attempts per client' })
  // With what failed, as the sio engine reports socket.io-client's errors: the connection was refused.
  assert.deepEqual(new Set(log.errors.map((e) => e.reason)), new Set(['websocket error (ECONNREFUSED)', 'xhr poll error (ECONNREFUSED)']))
  // Each retry waits the backoff after the failure before it (50 ms, then doubled, capped at 100 ms; no jitter), so the
  // gaps between a client's attempts are at least those delays (the sweeper fires late, never early).
  for (const i of [0, 1]) {
    const at = log.attemptsAt.filter((a) => a.i === i).map((a) => a.ms)
    const gaps = at.slice(1, 4).map((ms, k) => Math.round(ms - at[k]))
    assert.ok(gaps[0] >= 50 && gaps[1] >= 100 && gaps[2] >= 100, `client ${i}: gaps between attempts ${gaps} ms, want >= 50, 100, 100`)
  }
})

test('connection state recovery: the client connects, receives, and gets missed packets back', async (t) => {
  const server = await startIoServer(t, { connectionStateRecovery: {} })
  /** @type {boolean[]} */
  const recovered = []
  server.io.on('connection', (socket) => recovered.push(socket.recovered))
  const { pool, log } = openPool(t, server.url)
  pool.connect(0, 'websocket')
  pool.connect(1, 'polling')
  await waitFor(() => log.connected.size === 2, { message: '2 clients to connect' })
  server.io.emit('broadcast', { id: 'first' })
  await waitFor(() => log.messages.length === 2, { message: 'the first broadcast' })
  for (const { args } of log.messages) {
    assert.deepEqual(args[0], { id: 'first' })
    assert.equal(typeof args[1], 'string', 'the server appends the offset')
  }
  for (const socket of server.io.of('/').sockets.values()) socket.conn.close()
  await waitFor(() => log.disconnects.length === 2, { message: 'the forced close' })
  server.io.emit('broadcast', { id: 'missed' })
  await waitFor(() => messagesOf(log, 0).length === 2 && messagesOf(log, 1).length === 2, { message: 'the missed broadcast' })
  assert.deepEqual(log.messages.slice(2).map((m) => m.args[0]), [{ id: 'missed' }, { id: 'missed' }])
  assert.deepEqual(recovered, [false, false, true, true])
})

test('close() disconnects every client and frees the agent', async (t) => {
  const server = await startIoServer(t)
  const { log, events } = recorder()
  const pool = leanEngine.createPool(engineOptions(server.url), events)
  pool.connect(0, 'websocket')
  pool.connect(1, 'polling')
  pool.connect(2, 'upgrade')
  // Every TCP connection the server has: the server keeps idle keep-alive ones for a minute, so only the client can
  // close them within the wait below.
  server.httpServer.keepAliveTimeout = 60000
  /** @type {Set<import('node:net').Socket>} */
  const open = new Set()
  server.httpServer.on('connection', (socket) => { open.add(socket); socket.once('close', () => open.delete(socket)) })
  await waitFor(() => log.connected.size === 3, { message: '3 clients to connect' })
  assert.ok(open.size >= 3, `${open.size} connections`)
  await pool.close()
  assert.equal(log.disconnects.length, 3)
  await waitFor(() => server.io.engine.clientsCount === 0, { message: 'every engine session to close' })
  await waitFor(() => open.size === 0, { message: () => `the client to close its keep-alive connections (${open.size} open)` })
})
