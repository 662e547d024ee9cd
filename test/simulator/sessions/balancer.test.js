/**
 * Behind a cookie-sticky balancer (HAProxy, `cookie SERVERID insert`, round-robin over
 * several socket.io 4 nodes): every client of both engines holds its session on every
 * transport because it keeps the balancer's cookie, and without the jar it does not (each
 * request of a polling client lands on another node: "Session ID unknown"). Each client reads
 * its node from the header HAProxy adds to its answers (--node-from header:X-Served-By, engine
 * option nodeHeader), on every transport, as the nodes count their sockets.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { engines } from '../../../simulator/engines/index.js'
import { startSocketIoPeer } from '../../helpers/peers.js'
import { HAPROXY, hasTool, startHaproxy } from '../../helpers/balancer.js'
import { waitFor } from '../../helpers/wait.js'

const CLIENTS = 12

/**
 * Opens `CLIENTS` clients of one engine through the balancer, counting what they report.
 * @param {import('node:test').TestContext} t
 * @param {'sio' | 'lean'} engine
 * @param {string} url
 * @param {import('../../../lib/values/parsers.js').Transport} transport
 * @param {boolean} cookieJar
 * @param {3 | 4} [eio]
 * @param {'ws' | 'builtin'} [wsClient] the lean engine's WebSocket client
 */
function openPool (t, engine, url, transport, cookieJar, eio = 4, wsClient = 'ws') {
  const connected = new Set()
  /** @type {string[]} */
  const errors = []
  /** @type {string[]} */
  const drops = []
  const received = new Array(CLIENTS).fill(0)
  let upgraded = 0
  /** @type {(string | undefined)[]} each client's node, from the header of its handshake's answers */
  const nodeOf = new Array(CLIENTS)
  const events = {
    node (/** @type {number} */ i, /** @type {string} */ value) { nodeOf[i] = value },
    attempt () {},
    connected (/** @type {number} */ i) { connected.add(i) },
    upgraded () { upgraded++ },
    message (/** @type {number} */ i) { received[i]++ },
    unmeasured () {},
    disconnected (/** @type {number} */ i, /** @type {string} */ reason) { connected.delete(i); drops.push(reason) },
    connectError (/** @type {number} */ i, /** @type {string} */ reason) { errors.push(reason) },
    reconnected () {}
  }
  const pool = engines[engine].createPool({
    url,
    path: '/socket.io/',
    namespace: '/',
    events: ['news'],
    keepAlive: true,
    reconnect: true,
    cookieJar,
    eio,
    backoff: { minMs: 50, maxMs: 200, jitter: 0 },
    nodeHeader: 'X-Served-By',
    wsClient
  }, events)
  t.after(() => pool.close())
  for (let i = 0; i < CLIENTS; i++) pool.connect(i, transport)
  return { connected, errors, drops, received, nodeOf, get upgraded () { return upgraded } }
}

/**
 * Both engines × every transport through the balancer: all connected, each on one node, no error.
 * @param {import('node:test').TestContext} t
 * @param {import('../../helpers/peers.js').Peer[]} nodes
 * @param {string} url the balancer
 * @param {3 | 4} eio
 */
async function everyClientHolds (t, nodes, url, eio) {
  const cases = [
    ...(/** @type {const} */ (['sio', 'lean'])).flatMap((engine) =>
      (/** @type {const} */ (['polling', 'upgrade', 'websocket'])).map((transport) => ({ engine, transport, wsClient: 'ws' }))),
    { engine: 'lean', transport: 'websocket', wsClient: 'builtin' }
  ]
  /** @typedef {{ engine: 'sio' | 'lean', transport: 'polling' | 'upgrade' | 'websocket', wsClient: 'ws' | 'builtin' }} Case */
  for (const { engine, transport, wsClient } of /** @type {Case[]} */ (cases)) {
    await t.test(`${engine} ${transport}${wsClient === 'builtin' ? ' (builtin WebSocket client)' : ''}`, async (t) => {
      const pool = openPool(t, engine, url, transport, true, eio, wsClient)
      await waitFor(() => pool.connected.size === CLIENTS && (transport !== 'upgrade' || pool.upgraded === CLIENTS), {
        timeoutMs: 20000, message: () => `${CLIENTS} connected (have ${pool.connected.size}, upgraded ${pool.upgraded}; errors ${pool.errors.join(', ')})`
      })
      // Their sessions live on: each node (no adapter between them) broadcasts once, and each
      // client gets the one of its own node, over polls that came after the handshake.
      for (const node of nodes) await node.emit(1, 'news')
      await waitFor(() => pool.received.every((n) => n === 1), {
        timeoutMs: 20000,
        message: () => `every client got its node's broadcast (have ${pool.received})`
      })
      const counts = await Promise.all(nodes.map((node) => node.count()))
      assert.equal(counts.reduce((sum, c) => sum + c.connected, 0), CLIENTS, 'each client is on exactly one node')
      assert.ok(counts.filter((c) => c.connected > 0).length > 1, `the balancer spread the clients: ${counts.map((c) => c.connected)}`)
      // The header HAProxy adds names each client's node: as many on each as the node says it holds.
      const byHeader = nodes.map((_, k) => pool.nodeOf.filter((name) => name === `n${k}`).length)
      assert.deepEqual(byHeader, counts.map((c) => c.connected), `clients by X-Served-By (${pool.nodeOf}) as the nodes count them`)
      assert.deepEqual(pool.errors, [], 'no connect error')
      assert.deepEqual(pool.drops, [], 'no drop')
    })
  }
}

/**
 * Polling clients without a jar lose their session behind the balancer: what the jar fixes.
 * @param {import('node:test').TestContext} t
 * @param {'sio' | 'lean'} engine
 * @param {string} url
 * @param {3 | 4} eio
 */
async function failsWithoutJar (t, engine, url, eio) {
  await t.test(`${engine} polling without a cookie jar fails behind the balancer`, async (t) => {
    const pool = openPool(t, engine, url, 'polling', false, eio)
    await waitFor(() => pool.errors.length + pool.drops.length >= CLIENTS, {
      timeoutMs: 20000,
      message: () => `clients failing (errors ${pool.errors.length}, drops ${pool.drops.length})`
    })
    assert.match([...pool.errors, ...pool.drops].join('\n'), /HTTP 400|transport error|xhr (poll|post) error/)
  })
}

test('socket.io 2 nodes (Engine.IO v3: socket.io-client 2 and lean) behind a cookie-sticky balancer', async (t) => {
  if (!hasTool(t, HAPROXY, 'haproxy')) return
  const nodes = await Promise.all([0, 1, 2].map(() => startSocketIoPeer(t, { version: '2', pingIntervalMs: 2000 })))
  const balancer = /** @type {import('../../helpers/balancer.js').Balancer} */ (
    await startHaproxy(
      t,
      nodes.map((node, k) => ({ name: `n${k}`, port: Number(new URL(node.url).port) }))
    )
  )
  await everyClientHolds(t, nodes, balancer.url, 3)
  await failsWithoutJar(t, 'sio', balancer.url, 3)
})

test('behind a cookie-sticky balancer every client keeps its node: both engines, every transport', async (t) => {
  if (!hasTool(t, HAPROXY, 'haproxy')) return
  const nodes = await Promise.all([0, 1, 2].map(() => startSocketIoPeer(t, { version: '4', pingIntervalMs: 2000 })))
  const balancer = /** @type {import('../../helpers/balancer.js').Balancer} */ (
    await startHaproxy(
      t,
      nodes.map((node, k) => ({ name: `n${k}`, port: Number(new URL(node.url).port) }))
    )
  )
  await everyClientHolds(t, nodes, balancer.url, 4)
  // The same without the jar: polling clients lose their session (the test above would catch a jar that stops working).
  for (const engine of /** @type {const} */ (['sio', 'lean'])) await failsWithoutJar(t, engine, balancer.url, 4)
})
