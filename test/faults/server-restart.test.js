/**
 * Fault: the server under test is killed (SIGKILL: no goodbye packet) mid-run and started
 * again on the same port. Every client must reconnect on its own, the result must count the
 * disconnects with their reason and the reconnects, and the run must go on measuring.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { forkChild } from '../../lib/child.js'
import { BIN } from '../helpers/cli.js'
import { runSwarm } from '../../simulator/swarm/swarm.js'
import { waitFor } from '../helpers/wait.js'
import { listensOn } from '../helpers/ports.js'

const CLIENTS = 6
const TOKEN = 'restart-token'

/**
 * `ioswarm serve`, killed by pid after the test: first on port 0 (it says on stderr which port it got), then, for a
 * restart, on the port the first one had (just closed by the kill: the clients reconnect to it). Ready once it
 * answers and is the process listening there.
 * @param {import('node:test').TestContext} t
 * @param {number} port 0 for any, or the port to restart on
 * @param {string[]} [args] more `serve` flags
 */
async function serve (t, port, args = []) {
  const child = forkChild(BIN, ['serve', '--port', String(port), '--host', '127.0.0.1', '--json', ...args], { env: { IOSWARM_TOKEN: TOKEN } })
  t.after(() => child.stop(3000))
  const at = port || Number(/** @type {RegExpExecArray} */ (await waitFor(() => /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(child.stderr()), {
    timeoutMs: 10000, message: () => `serve to say its port (stderr: ${child.stderr()})`
  }))[1])
  await waitFor(async () => {
    if (!child.running()) throw new Error(`serve on port ${at} exited: ${child.stderr()}`)
    const res = await fetch(`http://127.0.0.1:${at}/`).catch(() => null)
    return res?.ok && listensOn(child.pid, at)
  }, { timeoutMs: 10000, intervalMs: 100, message: `the server on port ${at}` })
  return { ...child, port: at }
}

/**
 * Explicit ids: a restarted server counts its default ids (s1, s2…) from the start again,
 * and a repeated id is, rightly, a late copy of a closed message.
 * @param {number} port
 * @param {string} id
 */
async function broadcast (port, id) {
  const res = await fetch(`http://127.0.0.1:${port}/broadcast`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ id })
  })
  assert.equal(res.status, 200)
}

// Each case's two engines side by side (servers on ports of their own): most of a case is
// waiting for reconnects and restarts, not work.
const ENGINES = ['lean', 'sio']

test('after the server is killed and restarted every client reconnects and the run goes on', { concurrency: 2 }, async (t) => {
  await Promise.all(ENGINES.map((engine) => t.test(engine, async (t) => {
    const first = await serve(t, 0)
    const port = first.port
    let connected = 0
    /** @type {import('../../lib/schema/result-schema.js').MessageReport[]} */
    const closed = []
    const controller = new AbortController()
    t.after(() => controller.abort())
    const result = runSwarm({ url: `http://127.0.0.1:${port}`, clients: CLIENTS, engine, ramp: 0, messageTimeout: '3s', duration: 60 }, {
      signal: controller.signal,
      onProgress: (p) => { connected = p.connected },
      onMessage: (report) => closed.push(report)
    })
    const allConnected = () => waitFor(() => connected === CLIENTS, { timeoutMs: 15000, message: () => `${CLIENTS} connected (have ${connected})` })
    await allConnected()
    await broadcast(port, 'before')
    await waitFor(() => closed.length === 1, { message: 'the first message closed' })

    first.process.kill('SIGKILL')
    await waitFor(() => connected === 0, { timeoutMs: 5000, message: () => `every client to notice the kill (connected ${connected})` })
    await serve(t, port)
    await allConnected()
    await broadcast(port, 'after-1')
    await broadcast(port, 'after-2')
    await waitFor(() => closed.length === 3, { message: 'the messages after the restart closed' })

    controller.abort()
    const { clients, messages } = await result
    assert.equal(clients.reconnects, CLIENTS, 'each client reconnected once')
    assert.deepEqual(clients.disconnects, { 'transport close': CLIENTS }, 'one disconnect per client, with its reason')
    assert.ok(clients.attempts >= 2 * CLIENTS, `a first attempt and at least one reconnect attempt each (attempts ${clients.attempts})`)
    assert.equal(clients.connected, CLIENTS)
    assert.equal(messages.length, 3)
    for (const m of messages) {
      // Sent only while every client was connected: each was expected by all and got it.
      assert.deepEqual({ expected: m.expected, received: m.received, missing: m.missing }, { expected: CLIENTS, received: CLIENTS, missing: 0 }, m.key)
    }
  })))
})

/**
 * A swarm against `port` whose connected count and reasons can be watched.
 * @param {import('node:test').TestContext} t
 * @param {number} port
 * @param {Record<string, unknown>} options
 */
function watchedSwarm (t, port, options) {
  const state = { connected: 0 }
  const controller = new AbortController()
  t.after(() => controller.abort())
  const result = runSwarm({ url: `http://127.0.0.1:${port}`, clients: CLIENTS, ramp: 0, duration: 60, ...options }, {
    signal: controller.signal,
    onProgress: (p) => { state.connected = p.connected }
  })
  return {
    state,
    all: () => waitFor(() => state.connected === CLIENTS, { timeoutMs: 15000, message: () => `${CLIENTS} connected (have ${state.connected})` }),
    none: () => waitFor(() => state.connected === 0, { timeoutMs: 5000, message: () => `every client gone (connected ${state.connected})` }),
    stop: () => { controller.abort(); return result }
  }
}

test('ioswarm serve stopped with SIGTERM (a deploy) closes like stock socket.io: clients come back to the next instance', { concurrency: 2 }, async (t) => {
  await Promise.all(ENGINES.map((engine) => t.test(engine, async (t) => {
    const first = await serve(t, 0)
    const port = first.port
    const swarm = watchedSwarm(t, port, { engine })
    await swarm.all()
    await first.stop()
    await swarm.none()
    await serve(t, port)
    await swarm.all()
    const { clients } = await swarm.stop()
    assert.equal(clients.reconnects, CLIENTS)
    assert.deepEqual(clients.disconnects, { 'transport close': CLIENTS })
    // Measured as a storm: every client dropped, all back, the times in order.
    const [storm, ...others] = clients.storms?.list ?? []
    assert.deepEqual(others, [])
    assert.deepEqual([storm.dropped, storm.back, storm.reasons], [CLIENTS, CLIENTS, { 'transport close': CLIENTS }])
    const { p50, p90, p99, p100 } = storm.backMs
    const ordered = p50 !== null && p90 !== null && p99 !== null && p100 !== null && p50 <= p90 && p90 <= p99 && p99 <= p100
    assert.ok(ordered && p100 === storm.endedMs, JSON.stringify(storm))
    assert.ok(storm.attempts >= CLIENTS, `reconnect attempts counted: ${storm.attempts}`)
  })))
})

test('serve --shutdown disconnect says "io server disconnect": ' +
  'honoured by default, reconnected with --reconnect-on-server-disconnect', { concurrency: 2 }, async (t) => {
  await Promise.all(ENGINES.map((engine) => t.test(engine, async (t) => {
    const first = await serve(t, 0, ['--shutdown', 'disconnect'])
    const port = first.port
    const stays = watchedSwarm(t, port, { engine })
    const returns = watchedSwarm(t, port, { engine, reconnectOnServerDisconnect: true })
    await stays.all()
    await returns.all()
    await first.stop()
    await stays.none()
    await returns.none()
    await serve(t, port)
    await returns.all()
    // The window for the other swarm ends when every returning client is back: both lost the server at once and draw
    // their first delay from the same backoff, so a retry of the 6 that stay would start before the last of the 6 that
    // return is back (all 6 drawing later: 1 chance in 924). They made no attempt after their first connect.
    assert.equal(stays.state.connected, 0)
    const [away, back] = await Promise.all([stays.stop(), returns.stop()])
    assert.deepEqual(away.clients.disconnects, { 'io server disconnect': CLIENTS })
    assert.equal(away.clients.attempts, CLIENTS, 'no attempt after the server disconnect')
    assert.equal(away.clients.reconnects, 0)
    assert.deepEqual(back.clients.disconnects, { 'io server disconnect': CLIENTS })
    assert.equal(back.clients.connected, CLIENTS)
  })))
})
