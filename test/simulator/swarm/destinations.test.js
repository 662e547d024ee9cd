import { test } from 'node:test'
import assert from 'node:assert/strict'
import { IoswarmError } from '../../../lib/errors.js'
import { createDestinationPool, expandDestinations } from '../../../simulator/swarm/destinations.js'
import { leanEngine } from '../../../simulator/engines/lean.js'
import { engineOptions, recorder } from '../engines/lean/helpers.js'
import { startIoServer } from '../../helpers/io-server.js'
import { normalizeSimOptions } from '../../../simulator/sim-options.js'
import { startTestServer, startTestSwarm, waitForClients } from '../../helpers/swarm.js'
import { waitFor } from '../../helpers/wait.js'

test('an address range expands to one URL per address; several --url values add up', () => {
  assert.deepEqual(expandDestinations('http://127.0.0.1-127.0.0.3:3000/chat'), [
    'http://127.0.0.1:3000/chat', 'http://127.0.0.2:3000/chat', 'http://127.0.0.3:3000/chat'
  ])
  assert.deepEqual(expandDestinations(['http://a:1', 'http://127.0.0.9-127.0.0.10:2']), ['http://a:1', 'http://127.0.0.9:2', 'http://127.0.0.10:2'])
  assert.deepEqual(expandDestinations(undefined), ['http://localhost:3000'])
  assert.throws(() => expandDestinations('http://127.0.0.5-127.0.0.2:3000'), /--url address range must vary only the last number/)
  assert.throws(() => expandDestinations('http://127.0.0.1-127.0.1.2:3000'), IoswarmError)
})

test('the options keep every destination; they must share one namespace', () => {
  const options = normalizeSimOptions({ url: ['http://127.0.0.1-127.0.0.2:3000/chat', 'http://localhost:4000/chat'] })
  assert.deepEqual(options.urls, ['http://127.0.0.1:3000', 'http://127.0.0.2:3000', 'http://localhost:4000'])
  assert.equal(options.url, 'http://127.0.0.1:3000')
  assert.equal(options.namespace, '/chat')
  assert.throws(() => normalizeSimOptions({ url: ['http://a:1/x', 'http://a:1/y'] }), /same path/)
})

for (const engine of ['lean', 'sio']) {
  test(`${engine}: clients spread round-robin over 3 loopback addresses of a server on 0.0.0.0; all get every broadcast`, async (t) => {
    const server = await startTestServer(t, { host: '0.0.0.0' })
    const port = new URL(server.url).port
    const seen = new Set()
    server.io.on('connection', (socket) => seen.add(socket.conn.request.socket.localAddress))
    const swarm = startTestSwarm(t, { url: `http://127.0.0.1-127.0.0.3:${port}`, clients: 10, engine })
    await waitForClients(server, 10)
    await server.broadcast({ round: 1, count: 2, size: 16 })
    await waitFor(() => swarm.closed.length === 2, { message: () => `2 messages closed (have ${swarm.closed.length})` })
    const result = await swarm.stop()
    assert.deepEqual([...seen].map((a) => a.replace(/^::ffff:/, '')).sort(), ['127.0.0.1', '127.0.0.2', '127.0.0.3'])
    assert.deepEqual(result.destinations?.map((d) => [d.url, d.target, d.everConnected]), [
      [`http://127.0.0.1:${port}`, 4, 4], [`http://127.0.0.2:${port}`, 3, 3], [`http://127.0.0.3:${port}`, 3, 3]
    ])
    for (const m of result.messages) {
      assert.equal(m.received, 10)
      assert.equal(m.missing, 0)
      assert.equal(m.relative.min, 0, 'relative to the first receipt in this process')
    }
  })
}

test('the pool over several destinations hands each emit to its engine whole: an ack nobody reads is not decoded', async (t) => {
  // Two servers, one a destination: client i goes to the pool of destination i % 2.
  const servers = [await startIoServer(t), await startIoServer(t)]
  for (const server of servers) server.io.on('connection', (socket) => socket.on('chat', (_line, ack) => ack({ ok: true })))
  const { log, events } = recorder()
  const urls = servers.map((server) => server.url)
  const pool = createDestinationPool(leanEngine, engineOptions(urls[0], { wsClient: 'builtin' }), urls, 2, events)
  t.after(() => pool.close())
  pool.connect(0, 'websocket')
  pool.connect(1, 'websocket')
  await waitFor(() => log.connected.size === 2, { message: '2 clients connected' })
  /** @type {{ i: number, wants: boolean, error: Error | null, args: unknown[] }[]} */
  const answers = []
  for (const i of [0, 1]) {
    for (const wants of [false, true]) {
      assert.ok(pool.emit(i, '/', 'chat', [{ text: 'hi' }], (error, args) => answers.push({ i, wants, error, args }), 5000, wants))
    }
  }
  await waitFor(() => answers.length === 4, { message: '4 acks' })
  assert.ok(answers.every((a) => a.error === null))
  assert.deepEqual(answers.filter((a) => !a.wants).map((a) => a.args), [[], []], 'wantsArgs false reached the engine: not decoded')
  assert.deepEqual(answers.filter((a) => a.wants).map((a) => a.args), [[{ ok: true }], [{ ok: true }]])
})
