import { test } from 'node:test'
import assert from 'node:assert/strict'
import { parseLifetime } from '../../../simulator/sim-options.js'
import { runSwarm } from '../../../simulator/swarm/swarm.js'
import { startTestServer, waitForClients } from '../../helpers/swarm.js'
import { waitFor } from '../../helpers/wait.js'

test('--session-lifetime: sessions close and reopen at the stated rate, the target count holds (both engines)', async (t) => {
  const server = await startTestServer(t)
  for (const engine of ['lean', 'sio']) {
    const controller = new AbortController()
    t.after(() => controller.abort())
    let sessions = 0
    const count = () => { sessions++ }
    server.io.on('connection', count)
    t.after(() => server.io.off('connection', count))
    const running = runSwarm({ url: server.url, clients: 4, engine, ramp: 0, sessionLifetime: '1s..1.5s', duration: 60 }, { signal: controller.signal })
    // The first contact's session, every client's first session and at least two more each,
    // as the server sees them.
    await waitFor(() => sessions >= 13, { timeoutMs: 15000, intervalMs: 50, message: () => `13 sessions on the server (have ${sessions})` })
    await waitForClients(server, 4)
    controller.abort()
    const result = await running
    assert.ok(result.churn && result.churn.sessionsClosed >= 8, `${engine}: ${JSON.stringify(result.churn)}`)
    // The rate is the closes over the run's time (a slow host closes fewer, so no floor on it), and 4 clients living at
    // least 1 s each close at most 4 a second.
    const seconds = Math.max(1, (result.endedAt - result.startedAt) / 1000)
    assert.ok(Math.abs(result.churn.perSecond * seconds - result.churn.sessionsClosed) <= 0.01 * seconds, `${JSON.stringify(result.churn)} over ${seconds} s`)
    assert.ok(result.churn.perSecond <= 4, JSON.stringify(result.churn))
    assert.ok((result.clients.disconnects['io client disconnect'] ?? 0) >= 8, JSON.stringify(result.clients.disconnects))
    assert.equal(result.clients.everConnected, 4)
    assert.deepEqual(result.clients.storms?.list, [], 'closing on purpose is no storm')
    await waitFor(() => server.io.of('/').sockets.size === 0, { message: 'clients gone' })
  }
})

test('--session-lifetime takes a duration or a range, and refuses what is not', () => {
  assert.deepEqual(parseLifetime('5m', '--session-lifetime'), { minMs: 300000, maxMs: 300000 })
  assert.deepEqual(parseLifetime('2m..8m', '--session-lifetime'), { minMs: 120000, maxMs: 480000 })
  assert.equal(parseLifetime(undefined, '--session-lifetime'), null)
  assert.throws(() => parseLifetime('8m..2m', '--session-lifetime'), /--session-lifetime must be at least 1s, low\.\.high with low ≤ high/)
  assert.throws(() => parseLifetime('1m..2m..3m', '--session-lifetime'), /--session-lifetime must be a duration or a range/)
  assert.throws(() => parseLifetime('soon', '--session-lifetime'), /--session-lifetime must be a duration/)
})

test('--session-lifetime: acks a session still awaits when its lifetime closes it count as closed, not failed (both engines)', async (t) => {
  const server = await startTestServer(t)
  // 'talk': an event the reference server neither relays nor acks, so every ack is pending when its session closes.
  let lines = 0
  let sessions = 0
  const listen = (/** @type {import('socket.io').Socket} */ socket) => {
    sessions++
    socket.on('talk', () => { lines++ })
  }
  server.io.on('connection', listen)
  t.after(() => server.io.off('connection', listen))
  for (const engine of ['lean', 'sio']) {
    const controller = new AbortController()
    t.after(() => controller.abort())
    const before = { lines, sessions }
    const options = { url: server.url, clients: 2, engine, ramp: 0, sessionLifetime: '1s', duration: 60 }
    const emit = { emit: 'talk {"text":"hi"}', emitRate: '20/s', emitTiming: 'fixed', emitAck: true, ackTimeout: '60s' }
    const running = runSwarm({ ...options, ...emit }, { signal: controller.signal })
    // Each client's first session and at least one more after a lifetime ended, with lines sent by the first ones.
    await waitFor(() => sessions - before.sessions >= 5 && lines - before.lines >= 4, {
      timeoutMs: 15000, intervalMs: 50, message: () => `${engine}: 5 sessions and 4 lines (have ${sessions - before.sessions}, ${lines - before.lines})`
    })
    controller.abort()
    const result = await running
    assert.ok(result.churn && result.churn.sessionsClosed >= 2, `${engine}: ${JSON.stringify(result.churn)}`)
    const emits = /** @type {NonNullable<NonNullable<typeof result.scenario>['emits']>} */ (result.scenario?.emits)
    assert.ok(emits.sent > 0, `${engine}: ${JSON.stringify(emits)}`)
    assert.deepEqual(
      [emits.acked, emits.timedOut, emits.failed, emits.closed],
      [0, 0, 0, emits.sent],
      `${engine}: closed on purpose, not failed: ${JSON.stringify(emits)}`
    )
  }
})
