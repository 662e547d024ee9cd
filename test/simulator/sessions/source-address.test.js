/**
 * One source address per client (--source-address): every request of an Engine.IO session
 * (polling GETs and POSTs, the upgrade) leaves from the client's one address, as an
 * address-sticky balancer (nginx ip_hash) needs. A real socket.io server records the remote
 * address of every request per sid.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { engines } from '../../../simulator/engines/index.js'
import { createSourcePorts } from '../../../simulator/wire/source-ports.js'
import { waitFor } from '../../helpers/wait.js'
import { startIoServer } from '../../helpers/io-server.js'

const ADDRESSES = ['127.0.0.2', '127.0.0.3']
const CLIENTS = 6

/** @param {import('node:test').TestContext} t */
async function startRecordingServer (t) {
  const { io, port } = await startIoServer(t, { pingInterval: 200, pingTimeout: 2000 })
  /** Remote addresses per sid, and the requests that carried a sid. */
  const bySid = new Map()
  let requests = 0
  let upgraded = 0
  io.engine.on('headers', (/** @type {unknown} */ headers, /** @type {import('node:http').IncomingMessage} */ req) => {
    const sid = new URL(req.url ?? '/', 'http://x').searchParams.get('sid')
    if (sid === null) return
    requests++
    if (!bySid.has(sid)) bySid.set(sid, new Set())
    bySid.get(sid).add(req.socket.remoteAddress)
  })
  // The handshake has no sid yet: its address is the socket's, recorded when the session opens.
  io.engine.on('connection', (/** @type {any} */ socket) => {
    if (!bySid.has(socket.id)) bySid.set(socket.id, new Set())
    bySid.get(socket.id).add(socket.request.socket.remoteAddress)
    socket.once('upgrade', () => { upgraded++ })
  })
  return { bySid, get requests () { return requests }, get upgraded () { return upgraded }, url: `http://127.0.0.1:${port}` }
}

for (const engine of /** @type {const} */ (['lean', 'sio'])) {
  for (const transport of /** @type {const} */ (['polling', 'upgrade'])) {
    test(`${engine} ${transport} with two source addresses: one address per session`, async (t) => {
      const server = await startRecordingServer(t)
      let connected = 0
      const events = {
        attempt () {}, connected () { connected++ }, upgraded () {}, message () {}, unmeasured () {}, disconnected () {}, connectError () {}, reconnected () {}
      }
      const pool = engines[engine].createPool({
        url: server.url,
        path: '/socket.io/',
        namespace: '/',
        events: ['*'],
        keepAlive: true,
        reconnect: false,
        sourcePorts: /** @type {any} */ (createSourcePorts(ADDRESSES, null, 1))
      }, events)
      t.after(() => pool.close())
      for (let i = 0; i < CLIENTS; i++) pool.connect(i, transport)
      await waitFor(() => connected === CLIENTS, { message: () => `${CLIENTS} connected (have ${connected})` })
      // A few heartbeats (each pong is a POST on polling), or every upgrade done.
      const before = server.requests
      if (transport === 'polling') await waitFor(() => server.requests >= before + CLIENTS * 4, { message: 'more requests' })
      else await waitFor(() => server.upgraded === CLIENTS, { message: () => `${CLIENTS} upgraded (have ${server.upgraded})` })
      assert.equal(server.bySid.size, CLIENTS)
      for (const [sid, addresses] of server.bySid) assert.equal(addresses.size, 1, `session ${sid} came from ${[...addresses]}`)
      const used = new Set([...server.bySid.values()].flatMap((a) => [...a]))
      assert.deepEqual([...used].sort(), ADDRESSES, 'both addresses in use')
    })
  }
}
