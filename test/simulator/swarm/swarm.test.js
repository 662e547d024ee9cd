import { test } from 'node:test'
import assert from 'node:assert/strict'
import diagnostics from 'node:diagnostics_channel'
import { startTestServer, startTestSwarm, waitForClients, waitForClientsReady } from '../../helpers/swarm.js'
import { waitFor } from '../../helpers/wait.js'
import { runSwarm } from '../../../simulator/swarm/swarm.js'
import { processCpuMs } from '../../../lib/measure/clock.js'
import { setTimeout as sleep } from 'node:timers/promises'

/**
 * @param {import('../../../lib/schema/result-schema.js').SimResult} result
 * @param {number} clients
 * @param {number} messages
 * @param {number} cpuSpentMs the CPU this process spent from before the swarm started until its result
 */
function assertEveryoneGotEverything (result, clients, messages, cpuSpentMs) {
  assert.equal(result.clients.target, clients)
  assert.equal(result.clients.everConnected, clients)
  assert.equal(result.clients.failed, 0)
  assert.equal(result.messages.length, messages)
  for (const m of result.messages) {
    assert.equal(m.received, clients, `message ${m.id} received`)
    assert.equal(m.missing, 0, `message ${m.id} missing`)
    assert.equal(m.relative.count, clients)
    assert.equal(m.relative.min, 0, 'the first receipt has delay 0')
    assert.ok(m.relative.max >= 0 && m.relative.p99 >= m.relative.p50)
    assert.ok(m.absolute && m.absolute.count === clients && m.absolute.min >= 0, 'absolute latency from sentAt')
    assert.ok(m.relative.histogram.length > 0)
    assertFloor(m, cpuSpentMs)
  }
}

/**
 * The simulator's floor is there and lies inside what it measures: its CPU is a part of what
 * this process (server, swarm and test in one) spent around the message, read from the same
 * clock, and its spread ends by the last receipt. No bound against wall time: the CPU a process
 * gets in a wall interval is the host's to decide.
 * @param {import('../../../lib/schema/result-schema.js').MessageReport} m
 * @param {number} cpuSpentMs the CPU this process spent over an interval holding the message's whole drain
 */
function assertFloor (m, cpuSpentMs) {
  assert.ok(m.floor, `message ${m.id} has a floor`)
  const { cpuMs, spreadMs } = m.floor
  assert.ok(cpuMs >= 0 && spreadMs >= 0, `message ${m.id}: floor ${JSON.stringify(m.floor)}`)
  // Both are rounded to the microsecond.
  assert.ok(cpuMs <= cpuSpentMs + 0.002, `message ${m.id}: floor CPU ${cpuMs} ms within the ${cpuSpentMs} ms the process spent around it`)
  assert.ok(spreadMs <= m.relative.max + 0.001, `message ${m.id}: the floor's spread ${spreadMs} ms ends by the last receipt (${m.relative.max} ms)`)
}

/**
 * CPU spent by this process from now until `done()` is called.
 */
function cpuFromNow () {
  const from = processCpuMs()
  return { done: () => processCpuMs() - from }
}

for (const engine of ['sio', 'lean']) {
  for (const transport of ['websocket', 'polling', 'upgrade', 'websocket:2,polling:1,upgrade:1']) {
    test(`${engine} ${transport}: every client connects and receives every broadcast`, (t) => everyoneGetsEverything(t, engine, transport))
  }
}

/**
 * @param {import('node:test').TestContext} t
 * @param {string} engine
 * @param {string} transport
 */
async function everyoneGetsEverything (t, engine, transport) {
  const server = await startTestServer(t)
  const cpu = cpuFromNow()
  const swarm = startTestSwarm(t, { url: server.url, clients: 24, transport, engine })
  await waitForClients(server, 24)
  if (transport === 'upgrade') {
    await waitFor(() => [...server.io.of('/').sockets.values()].every((s) => s.conn.transport.name === 'websocket'), {
      message: 'every upgrade client on websocket'
    })
  }
  await server.broadcast({ round: 1, count: 3, size: 64 })
  await waitFor(() => swarm.closed.length === 3, { message: () => `3 messages closed (have ${swarm.closed.length})` })
  const result = await swarm.stop()
  assertEveryoneGotEverything(result, 24, 3, cpu.done())
  assert.deepEqual(result.messages.map((m) => m.id), ['1.1', '1.2', '1.3'])
  assert.equal(result.agent.keepAlive, true)
  const modes = Object.keys(result.clients.byTransport).sort()
  assert.deepEqual(modes, transport.split(',').map((p) => p.split(':')[0]).sort())
  if (transport === 'upgrade') assert.equal(result.clients.byTransport.upgrade.upgraded, 24)
  if (transport === 'polling') {
    assert.equal(result.timeline.at(-1)?.byTransport.polling, 24, 'polling clients never upgrade')
  }
  assert.equal(result.engine, engine)
}

for (const wsClient of /** @type {const} */ (['builtin', 'ws'])) {
  test(`lean --ws-client ${wsClient}: websocket and upgrade clients get every broadcast, ` +
    'and the ws library opens their sockets only when asked to', async (t) => {
    // The ws library opens a WebSocket with http.request (seen on Node's http client channel);
    // the built-in client writes its handshake on a plain net socket (not seen there).
    /** @type {string[]} */
    const wsLibraryHandshakes = []
    const onRequest = (/** @type {any} */ message) => {
      if (String(message.request.path).includes('transport=websocket')) wsLibraryHandshakes.push(message.request.path)
    }
    diagnostics.subscribe('http.client.request.start', onRequest)
    t.after(() => diagnostics.unsubscribe('http.client.request.start', onRequest))
    const server = await startTestServer(t)
    const cpu = cpuFromNow()
    const swarm = startTestSwarm(t, { url: server.url, clients: 12, transport: 'websocket:1,upgrade:1', engine: 'lean', wsClient })
    await waitForClients(server, 12)
    await waitFor(() => [...server.io.of('/').sockets.values()].every((s) => s.conn.transport.name === 'websocket'), { message: 'every client on websocket' })
    await server.broadcast({ round: 1, count: 2, size: 64 })
    await waitFor(() => swarm.closed.length === 2, { message: () => `2 messages closed (have ${swarm.closed.length})` })
    const result = await swarm.stop()
    assertEveryoneGotEverything(result, 12, 2, cpu.done())
    assert.equal(result.clients.byTransport.upgrade.upgraded, 6)
    assert.equal(result.options.wsClient, wsClient)
    assert.equal(wsLibraryHandshakes.length, wsClient === 'ws' ? 12 : 0, `WebSocket handshakes made by the ws library: ${wsLibraryHandshakes.length}`)
  })
}

test('clients connected but left out of a broadcast count as missing; a client gone before it does not', async (t) => {
  const server = await startTestServer(t)
  const swarm = startTestSwarm(t, { url: server.url, clients: 10, reconnect: false, messageTimeout: '1s' })
  await waitForClients(server, 10)
  await server.broadcast({ round: 1, count: 1 })
  await waitFor(() => swarm.closed.length === 1)
  swarm.pool.disconnect(3) // on purpose, before the next message: not expected, so not missing
  await waitForClients(server, 9)
  const [a, b] = [...server.io.of('/').sockets.values()]
  a.join('left-out')
  b.join('left-out')
  server.io.except('left-out').emit('broadcast', { id: '1.2', round: 1, seq: 2, sentAt: Date.now() })
  await waitFor(() => swarm.closed.length === 2, { message: 'the second message to close on its timeout' })
  const result = await swarm.stop()
  const [first, second] = result.messages
  assert.equal(first.received, 10)
  assert.equal(first.missing, 0)
  assert.equal(second.id, '1.2')
  assert.equal(second.expected, 9)
  assert.equal(second.received, 7)
  assert.equal(second.missing, 2)
  assert.equal(second.relative.count, 7, 'missing clients are not in the delay histogram')
  assert.equal(result.clients.disconnects['io client disconnect'], 1)
})

test('messages without an id are identified by their content', async (t) => {
  const server = await startTestServer(t)
  const swarm = startTestSwarm(t, { url: server.url, clients: 8, event: ['news', 'score'] })
  await waitForClients(server, 8)
  server.io.emit('news', { headline: 'polls close' })
  server.io.emit('score', 'A 52 - B 48')
  server.io.emit('news', { headline: 'polls close' }) // same content: the same message, duplicates
  server.io.emit('ignored', { headline: 'not listened to' })
  await waitFor(() => swarm.closed.length === 2)
  const result = await swarm.stop()
  assert.equal(result.messages.length, 2)
  const news = result.messages.find((m) => m.event === 'news')
  assert.ok(news)
  assert.match(news.id, /^content:[0-9a-f]{16}$/)
  assert.equal(news.received, 8)
  assert.equal(news.absolute, null, 'no sentAt, no absolute latency')
  assert.equal(result.messages.find((m) => m.event === 'score')?.received, 8)
})

test('--ramp 2s with 200 clients: the swarm starts connections evenly over the window, and all connect', async (t) => {
  const server = await startTestServer(t)
  /** @type {number[]} */
  const startedAt = []
  /** When the swarm was about to start its ramp (before it): no client is due before it. */
  let rampFrom = Infinity
  /** The swarm's own count: a client the server has seen may not have had its connect answer yet. */
  let swarmConnected = 0
  const controller = new AbortController()
  t.after(() => controller.abort())
  const result = runSwarm({ url: server.url, clients: 200, ramp: '2s', duration: 60 }, {
    signal: controller.signal,
    onStart: () => { rampFrom = performance.now() },
    onProgress: (progress) => { swarmConnected = progress.connected },
    // What the ramp decides is when each connection starts; when the server sees it also
    // depends on the machine's load, which this test must not measure.
    onPool: (pool) => {
      const connect = pool.connect
      pool.connect = (i, transport) => {
        startedAt.push(performance.now())
        connect(i, transport)
      }
    }
  })
  await waitForClients(server, 200)
  await waitFor(() => swarmConnected === 200)
  controller.abort()
  assert.equal((await result).clients.everConnected, 200)
  const first = startedAt[0]
  const bins = [0, 0, 0, 0]
  for (const at of startedAt) bins[Math.min(3, Math.floor((at - first) / 500))]++
  // Client i is due i × 10 ms after the first: never started early; a loaded machine can only
  // make starts late (a stalled loop catches up in a burst), so evenness is checked loosely.
  // Measured from the ramp's start: a first start that came late (a loop held up) moves the first, not the schedule.
  for (const [i, at] of startedAt.entries()) {
    assert.ok(at - rampFrom >= i * 10 - 5, `client ${i} started ${at - rampFrom} ms after the ramp began, before its ${i * 10} ms`)
  }
  assert.ok(bins.filter((n) => n >= 20).length >= 3, `starts per 500 ms window: ${bins}`)
  assert.ok(startedAt[199] - first >= 1800, `the last start came ${startedAt[199] - first} ms after the first`)
})

test('a gap the server makes shows in the spread, not in the simulator\'s floor', async (t) => {
  const server = await startTestServer(t)
  const swarm = startTestSwarm(t, { url: server.url, clients: 20, engine: 'lean', transport: 'websocket' })
  await waitForClients(server, 20)
  const sockets = [...server.io.of('/').sockets.values()]
  const message = { id: 'gap', round: 1, seq: 1, sentAt: Date.now() }
  const cpu = cpuFromNow()
  for (const socket of sockets.slice(0, 10)) socket.emit('broadcast', message)
  await sleep(GAP_MS) // the server holds the second half back: the process waits, idle
  for (const socket of sockets.slice(10)) socket.emit('broadcast', message)
  await waitFor(() => swarm.closed.length === 1, { message: 'the message to close' })
  const cpuSpentMs = cpu.done()
  const [m] = (await swarm.stop()).messages
  assert.equal(m.received, 20)
  // The floor is within what the process spent around the message: a floor that counted the idle gap (wall time)
  // would pass it.
  assertFloor(m, cpuSpentMs)
  // Most of the gap: a busy host can read the first half late (93.8 ms of 100 seen at load 13).
  assert.ok(m.floor && m.floor.spreadMs >= GAP_MS / 2, `spread ${m.floor?.spreadMs} ms covers the ${GAP_MS} ms gap`)
})

const GAP_MS = 200

test('a message on its way to some clients when the run ends is waited for (bounded), not counted missing', async (t) => {
  const server = await startTestServer(t, { pingIntervalMs: 1000 })
  const swarm = startTestSwarm(t, { url: server.url, clients: 6, engine: 'lean', transport: 'websocket', messageTimeout: '10s' })
  await waitForClientsReady(server, 6)
  const sockets = [...server.io.of('/').sockets.values()]
  const message = { id: 'at-the-end', round: 1, seq: 1, sentAt: Date.now() }
  // An app's own message (no emits in this swarm): half of the clients get it now...
  for (const socket of sockets.slice(0, 3)) socket.emit('broadcast', message)
  await waitFor(() => (swarm.progress?.messages ?? 0) >= 1, { message: 'the swarm has the message open' })
  // ...and the others 300 ms after the run was told to end.
  const rest = setTimeout(() => { for (const socket of sockets.slice(3)) socket.emit('broadcast', message) }, 300)
  t.after(() => clearTimeout(rest))
  const result = await swarm.stop()
  const m = result.messages.find((r) => r.id === 'at-the-end')
  assert.deepEqual([m?.expected, m?.received, m?.missing], [6, 6, 0], JSON.stringify(m))
})
