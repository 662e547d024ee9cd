import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createSizer } from '../../../simulator/swarm/resize.js'
import { startRamp } from '../../../simulator/swarm/ramp.js'
import { forkSimulator, normalizeSimOptions } from '../../../simulator/index.js'
import { runSwarm, startSwarm } from '../../../simulator/swarm/swarm.js'
import { startTestServer, waitForClients, waitForClientsReady } from '../../helpers/swarm.js'
import { waitFor } from '../../helpers/wait.js'

test('createSizer opens clients up to the target, closes the highest-indexed ones when it shrinks, and refuses more than its capacity', async () => {
  /** @type {string[]} */
  const log = []
  /** @type {number[]} */
  const targets = []
  const sizer = createSizer({
    clients: 3,
    capacity: 6,
    rampMs: 0,
    start: (i) => log.push(`+${i}`),
    stop: (i) => log.push(`-${i}`),
    onTarget: (n) => targets.push(n)
  })
  await sizer.done
  assert.deepEqual(log, ['+0', '+1', '+2'])
  sizer.resize(6, 0)
  await waitFor(() => log.length === 6, { message: 'three more started' })
  sizer.resize(2)
  assert.deepEqual(log.slice(6), ['-5', '-4', '-3', '-2'], 'the highest-indexed first, at once')
  sizer.resize(4, 0)
  await waitFor(() => log.length === 12, { message: 'two started again' })
  assert.deepEqual(log.slice(10), ['+2', '+3'], 'growing again reopens the same indexes')
  assert.deepEqual(targets, [6, 2, 4])
  assert.equal(sizer.target(), 4)
  assert.throws(() => sizer.resize(7), /clients of a resize must be a whole number from 0 to the swarm's capacity 6, got 7/)
  assert.throws(() => sizer.resize(1.5), /got 1\.5/)
  sizer.stop()
})

test('createSizer: a shrink during a ramp stops the ramp, and no client past the target is started later', async (t) => {
  /** @type {number[]} */
  const started = []
  /** @type {number[]} */
  const stopped = []
  const sizer = createSizer({ clients: 100, capacity: 100, rampMs: 2000, start: (i) => started.push(i), stop: (i) => stopped.push(i) })
  // A ramp of the same shape started just after: it ends after the last start the sizer's ramp would have made, had it
  // gone on, so its end bounds the window in which a late start would show.
  const control = startRamp({ count: 100, rampMs: 2000, onStart: () => {} })
  t.after(() => control.stop())
  await waitFor(() => started.length >= 2, { message: 'the ramp started a few' })
  sizer.resize(1)
  const after = started.length
  await sizer.done
  assert.equal(started.length, after, 'the ramp was stopped')
  await control.done
  assert.equal(started.length, after, 'no client started later, to the end the ramp would have had')
  assert.deepEqual(stopped, started.slice(1).reverse(), 'every started client past the target was closed')
})

test('a running swarm grows and shrinks (both engines): ' +
  'the server sees it, closing on purpose is no storm, missing counts only the clients wanted', async (t) => {
  const server = await startTestServer(t, { pingIntervalMs: 1000 })
  for (const engine of ['lean', 'sio']) {
    const controller = new AbortController()
    t.after(() => controller.abort())
    /** @type {import('../../../simulator/swarm/resize.js').Resize | null} */
    let resize = null
    /** @type {import('../../../lib/schema/result-schema.js').MessageReport[]} */
    const closed = []
    const running = runSwarm({ url: server.url, clients: 3, engine, ramp: 0, duration: 60, messageTimeout: '2s' }, {
      signal: controller.signal,
      onResizable: (fn) => { resize = fn },
      onMessage: (report) => closed.push(report)
    })
    await waitForClients(server, 3)
    assert.ok(resize, 'the swarm handed over its resize function')
    const grow = /** @type {import('../../../simulator/swarm/resize.js').Resize} */ (resize)
    assert.throws(() => grow(4), /capacity 3/, 'without maxClients there is no room to grow')
    controller.abort()
    await running

    const second = new AbortController()
    t.after(() => second.abort())
    await waitFor(() => server.io.of('/').sockets.size === 0, { message: 'the first swarm gone' })
    const options = normalizeSimOptions({ url: server.url, clients: 2, engine, ramp: 0, duration: 60, messageTimeout: '2s' })
    const growing = startSwarm({ ...options, maxClients: 8 }, {
      signal: second.signal,
      onResizable: (fn) => { resize = fn },
      onMessage: (report) => closed.push(report)
    })
    await waitForClients(server, 2)
    const sized = /** @type {import('../../../simulator/swarm/resize.js').Resize} */ (resize)
    sized(8, 200)
    // Each of the 8 has read its CONNECT ack (everConnected counts a client once its side saw
    // it): the shrink could otherwise close the 8th before it knew it was connected.
    await waitForClientsReady(server, 8)
    sized(5)
    await waitForClients(server, 5)
    // Wait for the simulator's own count too: a broadcast now expects exactly 5.
    await waitForClientsReady(server, 5)
    server.io.emit('broadcast', { id: `after-shrink-${engine}`, sentAt: Date.now() })
    await waitFor(() => closed.some((r) => r.id === `after-shrink-${engine}`), { message: 'the message closed' })
    second.abort()
    const result = await growing
    const report = closed.find((r) => r.id === `after-shrink-${engine}`)
    assert.equal(report?.expected, 5, `${engine}: ${JSON.stringify(report)}`)
    assert.equal(report?.missing, 0)
    assert.equal(result.clients.target, 5, 'the target is the size it ended at')
    assert.equal(result.clients.failed, 0)
    assert.equal(result.clients.everConnected, 8)
    assert.equal(
      result.clients.disconnects['io client disconnect'],
      3,
      `${engine}: three on the shrink (the counts are taken before the end closes the rest): ${JSON.stringify(result.clients.disconnects)}`
    )
    assert.deepEqual(result.clients.storms?.list, [], 'closing on purpose is no storm')
    assert.equal(Object.values(result.clients.byTransport).reduce((sum, m) => sum + m.target, 0), 5)
    await waitFor(() => server.io.of('/').sockets.size === 0, { message: 'clients gone' })
  }
})

test('a simulator child is resized over IPC and answers each resize; a resize past its room is refused with the reason', async (t) => {
  const server = await startTestServer(t, { pingIntervalMs: 1000 })
  const options = { ...normalizeSimOptions({ url: server.url, clients: 2, ramp: '0', engine: 'lean' }), maxClients: 6, id: 'resize-child' }
  const child = forkSimulator(options)
  t.after(() => child.stop(2000))
  await waitForClients(server, 2)
  await child.resize(6, 100)
  await waitForClients(server, 6)
  await child.resize(1)
  await waitForClients(server, 1)
  await assert.rejects(child.resize(7), /capacity 6, got 7/)
  await child.stop()
  const { result } = await child.outcome
  assert.equal(result?.clients.target, 1)
  assert.equal(result?.clients.everConnected, 6)
  await assert.rejects(child.resize(2), /resize-child is not running/)
})
