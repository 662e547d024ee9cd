import { test } from 'node:test'
import assert from 'node:assert/strict'
import net from 'node:net'
import { connectFrom, readPortRange, sliceRange, SourcePorts } from '../../../simulator/wire/source-ports.js'
import { startTestServer, startTestSwarm, waitForClients } from '../../helpers/swarm.js'
import { waitFor } from '../../helpers/wait.js'
import { leanEngine } from '../../../simulator/engines/lean.js'
import { formatSimSummary } from '../../../simulator/reporting/summary-text.js'
import { normalizeSimOptions } from '../../../simulator/sim-options.js'
import { runWorkers } from '../../../simulator/processes/workers.js'
import { recorder, engineOptions } from '../engines/lean/helpers.js'
import { startIoServer } from '../../helpers/io-server.js'

test('a port is never handed out twice while held; released ports come round after the rest of the range', () => {
  const ports = new SourcePorts({ addresses: ['127.0.0.2', '127.0.0.3'], range: { low: 40000, high: 40003 } })
  assert.deepEqual([ports.acquire(0), ports.acquire(0), ports.acquire(0)], [40000, 40001, 40002])
  assert.equal(ports.acquire(1), 40000, 'each address has its own ports')
  ports.release(0, 40001)
  assert.equal(ports.acquire(0), 40003)
  assert.equal(ports.acquire(0), 40001, 'the released one, once the cursor wrapped')
  assert.equal(ports.acquire(0), 0, 'every port held')
  ports.release(0, 40001)
  ports.release(0, 40001)
  assert.deepEqual(ports.stats().map((s) => s.inUse), [3, 1], 'a double release counts once')
})

test('client i uses address floor(i / destinations) % addresses; slices of the range are disjoint', () => {
  const ports = new SourcePorts({ addresses: ['a', 'b', 'c'], range: { low: 1, high: 9 }, stride: 2 })
  assert.deepEqual([0, 1, 2, 3, 4, 5, 6].map((i) => ports.addressOf(i)), [0, 0, 1, 1, 2, 2, 0])
  const range = { low: 32768, high: 60999 }
  assert.deepEqual([0, 1, 2].map((index) => sliceRange(range, { index, count: 3 })), [
    { low: 32768, high: 42177 }, { low: 42178, high: 51587 }, { low: 51588, high: 60999 }
  ])
  assert.deepEqual(sliceRange(range, null), range)
  const read = readPortRange()
  assert.ok(read.low >= 1 && read.high <= 65535 && read.low <= read.high)
  assert.deepEqual(readPortRange('/nonexistent/ip_local_port_range'), { low: 32768, high: 60999 })
})

test('a port the kernel refuses (another socket listens on it) is skipped: the connection takes the next', async (t) => {
  const target = net.createServer((s) => s.end()).listen(0, '127.0.0.1')
  await new Promise((resolve) => target.once('listening', resolve))
  t.after(() => target.close())
  const low = await blockedPort(t)
  const ports = new SourcePorts({ addresses: ['127.0.0.2'], range: { low, high: low + 3 } })
  const address = /** @type {net.AddressInfo} */ (target.address())
  const socket = await new Promise((resolve, reject) =>
    connectFrom(ports, 0, { host: '127.0.0.1', port: address.port }, (error, s) => (error ? reject(error) : resolve(s)))
  )
  assert.equal(socket.localAddress, '127.0.0.2')
  assert.equal(socket.localPort, low + 1)
  assert.deepEqual(ports.stats(), [{ address: '127.0.0.2', inUse: 1, refused: 1, exhausted: 0 }], 'the refused port was let go at once')
  socket.destroy()
  await waitFor(() => ports.stats()[0].inUse === 0, { message: 'both ports released once their sockets closed' })

  // A caller that gives up ends the connect in flight through `pending`; its port comes back.
  /** @type {{ socket: net.Socket | null }} */
  const pending = { socket: null }
  connectFrom(ports, 0, { host: '127.0.0.1', port: address.port }, () => assert.fail('no callback for an attempt its caller ended'), { pending })
  assert.ok(pending.socket, 'held while it connects')
  pending.socket.destroy()
  await waitFor(() => ports.stats()[0].inUse === 0, { message: 'the abandoned connect\'s port released' })
})

/**
 * A port on 127.0.0.2 that another socket listens on, so the kernel refuses it to a connection from there: the low end
 * of a test's source port range. Listened on 0, so the system picks one free (the ports after it are taken only by
 * connections of these tests, which skip any the kernel refuses).
 * @param {import('node:test').TestContext} t
 * @returns {Promise<number>}
 */
async function blockedPort (t) {
  const blocker = net.createServer().listen(0, '127.0.0.2')
  await new Promise((resolve, reject) => { blocker.once('listening', resolve); blocker.once('error', reject) })
  t.after(() => blocker.close())
  return /** @type {net.AddressInfo} */ (blocker.address()).port
}

const CASES = [
  { engine: 'lean', transport: 'websocket' },
  { engine: 'lean', transport: 'websocket', wsClient: 'builtin' },
  { engine: 'lean', transport: 'polling' },
  { engine: 'lean', transport: 'polling', httpClient: 'undici' },
  { engine: 'sio', transport: 'websocket' },
  { engine: 'sio', transport: 'polling' }
]

/** @typedef {{ engine: string, transport: import('../../../lib/transports.js').ClientMode, wsClient?: string, httpClient?: string }} SourceCase */
for (const { engine, transport, wsClient, httpClient } of /** @type {SourceCase[]} */ (CASES)) {
  test(`${engine} ${transport}${wsClient ? ` (${wsClient})` : ''}${httpClient ? ` (${httpClient})` : ''}: ` +
    'clients leave from 3 source addresses, each on a port the pool holds, and get every broadcast', async (t) => {
    const server = await startTestServer(t)
    /** @type {[string, number][]} */
    const seen = []
    server.io.on('connection', (socket) => {
      const s = socket.conn.request.socket
      seen.push([String(s.remoteAddress).replace(/^::ffff:/, ''), Number(s.remotePort)])
    })
    const swarm = startTestSwarm(t, {
      url: server.url,
      clients: 9,
      engine,
      transport,
      ...(wsClient ? { wsClient } : {}),
      ...(httpClient ? { httpClient } : {}),
      sourceAddress: '127.0.0.2-127.0.0.4'
    })
    await waitForClients(server, 9)
    await server.broadcast({ round: 1, count: 1, size: 16 })
    await waitFor(() => swarm.closed.length === 1, { message: () => `1 message closed (have ${swarm.closed.length})` })
    const ports = /** @type {any} */ (swarm.pool).sourcePorts()[0]
    // The swarm's look at the server, before any client, leaves from the first source address
    // (client 0's) on a port the kernel chose; the clients come after it.
    const [look, ...swarmSeen] = seen
    assert.equal(look[0], '127.0.0.2', `the look leaves from client 0's address: ${JSON.stringify(seen)}`)
    assert.deepEqual([...new Set(swarmSeen.map(([a]) => a))].sort(), ['127.0.0.2', '127.0.0.3', '127.0.0.4'])
    assert.equal(swarmSeen.length, 9)
    for (const [a, port] of swarmSeen) assert.equal(ports.held[ports.addresses.indexOf(a)][port - ports.low], 1, `${a}:${port} is a port the pool holds`)
    const result = await swarm.stop()
    assert.deepEqual(result.sourceAddresses?.map((a) => [a.address, a.exhausted]), [['127.0.0.2', 0], ['127.0.0.3', 0], ['127.0.0.4', 0]])
    assert.match(
      formatSimSummary(result),
      /source addresses: 3 \(127\.0\.0\.2, 127\.0\.0\.3, 127\.0\.0\.4\), source ports chosen by the simulator; \d+ refused by the kernel and skipped\n/
    )
    assert.equal(result.messages[0].received, 9)
    assert.equal(result.messages[0].missing, 0)
  })
}

/** @type {{ transport: import('../../../lib/transports.js').ClientMode, wsClient: 'ws' | 'builtin', httpClient?: 'builtin' | 'undici' }[]} */
const REFUSED_CASES = [
  { transport: 'websocket', wsClient: 'builtin' },
  { transport: 'websocket', wsClient: 'ws' },
  { transport: 'polling', wsClient: 'ws' },
  { transport: 'polling', wsClient: 'ws', httpClient: 'undici' }
]

for (const { transport, wsClient, httpClient } of REFUSED_CASES) {
  test(`lean ${transport} (${wsClient}${httpClient ? `, ${httpClient}` : ''}): ` +
    'a refused source port is skipped and the client connects from the next', async (t) => {
    const server = await startIoServer(t)
    const low = await blockedPort(t)
    const sourcePorts = new SourcePorts({ addresses: ['127.0.0.2'], range: { low, high: low + 7 } })
    const { log, events } = recorder()
    const pool = leanEngine.createPool(engineOptions(server.url, { sourcePorts, wsClient, httpClient }), events)
    t.after(() => pool.close())
    pool.connect(0, transport)
    await waitFor(() => log.connected.size === 1, { timeoutMs: 10000, message: 'the client to connect' })
    assert.ok(sourcePorts.refused[0] >= 1, 'the blocked port was refused')
    const socket = [...server.io.of('/').sockets.values()][0]
    assert.equal(String(socket.conn.request.socket.remoteAddress).replace(/^::ffff:/, ''), '127.0.0.2')
    assert.notEqual(socket.conn.request.socket.remotePort, low)
  })
}

test('--workers 2: each worker takes its own half of the port range; the result sums each address over both', async (t) => {
  const server = await startTestServer(t)
  /** @type {number[]} */
  const remotePorts = []
  server.io.on('connection', (socket) => {
    const s = socket.conn.request.socket
    if (String(s.remoteAddress).endsWith('127.0.0.2')) remotePorts.push(Number(s.remotePort))
  })
  const options = {
    ...normalizeSimOptions({ url: server.url, clients: 8, engine: 'lean', ramp: '0', duration: '20s', sourceAddress: '127.0.0.2' }),
    id: 'srcw'
  }
  const controller = new AbortController()
  t.after(() => controller.abort())
  let closed = 0
  const running = runWorkers(options, 2, { signal: controller.signal, onWorkerMessage: () => { closed++ } })
  await waitForClients(server, 8)
  await server.broadcast({ round: 1, count: 1, size: 8 })
  await waitFor(() => closed === 2, { timeoutMs: 15000, message: 'the message closed in both workers' })
  controller.abort()
  const result = await running
  const range = readPortRange()
  const middle = range.low + Math.floor((range.high - range.low + 1) / 2)
  // The parent's look at the server comes first, from the same address on a port the kernel chose.
  assert.equal(remotePorts.length, 9)
  const clientPorts = remotePorts.slice(1)
  assert.equal(clientPorts.filter((p) => p < middle).length, 4, `worker 1's clients in the lower half, worker 2's in the upper: ${remotePorts}`)
  // Refusals depend on what else holds ports here (a server on port 0 listens inside the range): counted, not fixed.
  assert.deepEqual(result.sourceAddresses?.map((a) => [a.address, a.exhausted, Number.isInteger(a.refused)]), [['127.0.0.2', 0, true]])
  assert.deepEqual(result.messages.map((m) => [m.received, m.missing]), [[8, 0]])
})
