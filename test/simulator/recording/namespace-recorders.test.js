import { test } from 'node:test'
import assert from 'node:assert/strict'
import { startAppServer } from '../../helpers/app-server.js'
import { startTestSwarm } from '../../helpers/swarm.js'
import { waitFor } from '../../helpers/wait.js'
import { runSwarm } from '../../../simulator/swarm/swarm.js'

/**
 * Waits until the swarm has closed a report for each of `ids` (on namespace `nsp`).
 * @param {{ closed: import('../../../lib/schema/result-schema.js').MessageReport[] }} swarm
 * @param {string[]} ids
 * @param {string} [nsp]
 */
const closedAll = (swarm, ids, nsp = '/') =>
  waitFor(() => ids.every((id) => swarm.closed.some((m) => m.id === id && (m.namespace ?? '/') === nsp)), {
    timeoutMs: 15000,
    message: `reports of ${ids.join(', ')}`
  })

for (const engine of ['sio', 'lean']) {
  for (const transport of ['websocket', 'polling']) {
    test(`${engine} ${transport}: room messages are expected by their room only; wrong rooms and second copies are counted exactly`, async (t) => {
      const server = await startAppServer(t)
      const swarm = startTestSwarm(t, { url: server.url, engine, transport, clients: 6, rooms: 3, join: 'join {"room":"{{room}}"}', messageTimeout: '3s' })
      await waitFor(() => ['room-0', 'room-1', 'room-2'].every((r) => server.roomSize(r) === 2), {
        timeoutMs: 15000,
        message: 'two clients joined in each of three rooms'
      })
      await server.joinsSettled()
      const now = Date.now()
      // Right: each room gets its own message.
      for (const room of ['room-0', 'room-1', 'room-2']) server.io.to(room).emit('broadcast', { id: `right-${room}`, sentAt: now, room })
      // Wrong: a message for room-1 also reaches room-0; a message for room-2 is sent twice.
      server.io.to('room-0').to('room-1').emit('broadcast', { id: 'wrong-room', sentAt: now, room: 'room-1' })
      const twice = { id: 'twice', sentAt: now, room: 'room-2' }
      server.io.to('room-2').emit('broadcast', twice)
      server.io.to('room-2').emit('broadcast', twice)
      // A message without a room is for everyone.
      server.io.emit('broadcast', { id: 'all', sentAt: now })
      await closedAll(swarm, ['right-room-0', 'right-room-1', 'right-room-2', 'wrong-room', 'twice', 'all'])
      const result = await swarm.stop()
      const byId = Object.fromEntries(result.messages.map((m) => [m.id, m]))
      for (const room of ['room-0', 'room-1', 'room-2']) {
        const m = byId[`right-${room}`]
        assert.deepEqual([m.room, m.expected, m.received, m.missing, m.misdelivered, m.duplicates], [room, 2, 2, 0, 0, 0], `right-${room}`)
        assert.equal(m.relative.count, 2)
      }
      const wrong = byId['wrong-room']
      assert.deepEqual([wrong.expected, wrong.received, wrong.missing, wrong.misdelivered], [2, 2, 0, 2], 'room-0\'s two clients got room-1\'s message')
      assert.equal(wrong.relative.count, 2, 'misdelivered copies are not timed')
      assert.deepEqual([byId.twice.received, byId.twice.duplicates, byId.twice.misdelivered], [2, 2, 0])
      assert.deepEqual([byId.all.room, byId.all.expected, byId.all.received, byId.all.misdelivered], [null, 6, 6, 0])
      assert.equal(result.scenario?.joins?.sent, 6)
      assert.equal(result.scenario?.joins?.acked, 6)
      assert.equal(result.scenario?.joins?.time.count, 6, 'join time recorded')
    })
  }

  test(`${engine}: each client joins several namespaces over one connection; each is counted and measured on its own, a refusing one too`, async (t) => {
    const server = await startAppServer(t, { namespaces: ['/', '/news'], refuse: ['/private', '/secret'] })
    const swarm = startTestSwarm(t, { url: server.url, engine, transport: 'websocket', clients: 4, namespace: ['/', '/news'] })
    await waitFor(() => server.io.of('/news').sockets.size === 4 && server.io.of('/').sockets.size === 4, {
      timeoutMs: 15000,
      message: '4 clients on / and /news'
    })
    assert.equal(server.io.engine.clientsCount, 4, 'one Engine.IO connection per client, both namespaces multiplexed on it')
    server.io.of('/news').emit('broadcast', { id: 'n1', sentAt: Date.now() })
    server.io.of('/').emit('broadcast', { id: 'r1', sentAt: Date.now() })
    await closedAll(swarm, ['n1'], '/news')
    await closedAll(swarm, ['r1'], '/')
    const result = await swarm.stop()
    const news = result.messages.find((m) => m.id === 'n1')
    assert.deepEqual([news?.namespace, news?.key, news?.received, news?.missing], ['/news', '/news#broadcast:n1', 4, 0])
    assert.deepEqual(result.clients.namespaces?.map((n) => [n.name, n.connects]), [['/', 4], ['/news', 4]])
    assert.equal(result.clients.everConnected, 4)

    const stop = new AbortController()
    t.after(() => stop.abort())
    let errors = 0
    const refused = runSwarm(
      { url: server.url, engine, transport: 'websocket', clients: 3, namespace: ['/', '/private'], ramp: 0, duration: 30 },
      {
        signal: stop.signal,
        onProgress: (p) => {
          errors = p.errors
        }
      }
    )
    await waitFor(() => errors >= 3, { timeoutMs: 15000, message: () => `3 refusals counted by the swarm (have ${errors})` })
    stop.abort()
    const r = await refused
    assert.deepEqual(r.clients.namespaces?.map((n) => [n.name, n.connects, n.refused]), [['/', 3, {}], ['/private', 0, { unauthorized: 3 }]])
    assert.equal(r.clients.everConnected, 0, 'a client is connected while every one of its namespaces is')

    // Every namespace refuses: each refusal counted, the last one too (socket.io-client closes
    // its Manager before it tells that socket; the sio engine used to miss it).
    const both = new AbortController()
    t.after(() => both.abort())
    let bothErrors = 0
    // A query that differs per client: a refused first identity stops a swarm only when every client shares it.
    const refusedTwice = runSwarm({
      url: server.url, engine, transport: 'polling', clients: 3, namespace: ['/private', '/secret'], ramp: 0, duration: 30, query: 'client={{i}}'
    }, { signal: both.signal, onProgress: (p) => { bothErrors = p.errors } })
    await waitFor(() => bothErrors >= 6, { timeoutMs: 15000, message: () => `6 refusals counted by the swarm (have ${bothErrors})` })
    both.abort()
    const r2 = await refusedTwice
    assert.deepEqual(
      r2.clients.namespaces?.map((n) => [n.name, n.connects, n.refused]),
      [['/private', 0, { unauthorized: 3 }], ['/secret', 0, { unauthorized: 3 }]]
    )
    assert.deepEqual(r2.clients.errors, { unauthorized: 6 })
  })
}
