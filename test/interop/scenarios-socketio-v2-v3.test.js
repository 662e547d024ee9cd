/**
 * The scenario features (rooms, emits, templates, feeders) against socket.io 2.5 and 3.1 (pinned in test/peers; the app is
 * test/peers/node/server.js, each version's own API doing the work): identity per client by
 * query and header (and handshake auth on 3; socket.io 2 has none), two namespaces on one
 * connection (on 2, beside the '/' the server connects by itself), rooms joined with acks,
 * room broadcasts, emits with acks relayed to the room; both engines, every transport.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { startSocketIoPeer } from '../helpers/peers.js'
import { startTestSwarm } from '../helpers/swarm.js'
import { waitFor } from '../helpers/wait.js'
import { APP_MATRIX, PING_INTERVAL_MS, TOKEN, WAIT_MS, appCase, feederFile } from './app-case.js'
import { inspectServer, normalizeSimOptions } from '../../simulator/index.js'

/** @type {{ version: '2' | '3', namespaces: string[], rows: import('./app-case.js').Carrier[] }[]} */
const VERSIONS = [
  // Not '/': socket.io 2 connects every client to it anyway (Engine.IO v3's implicit '/'), which the clients must ignore.
  { version: '2', namespaces: ['/a', '/b'], rows: ['query', 'header', 'wrong'] },
  { version: '3', namespaces: ['/', '/chat'], rows: ['auth', 'query', 'header', 'wrong'] }
]

for (const { version, namespaces, rows } of VERSIONS) {
  test(`socket.io ${version}: identity, two namespaces, rooms, joins, emits with acks`, { concurrency: 3 }, async (t) => {
    await Promise.all(APP_MATRIX.map((c) => t.test(`${c.engine} ${c.transport}`, async (t) => {
      const peer = await startSocketIoPeer(t, { version, namespaces, authToken: TOKEN, pingIntervalMs: PING_INTERVAL_MS })
      const send = {
        toEveryone: () => peer.emit(1, 'broadcast'),
        toRooms: (/** @type {number} */ count, /** @type {number} */ rooms) => peer.emit(count, 'broadcast', rooms)
      }
      await appCase(t, peer, send, { ...c, namespaces, rows })
    })))
  })
}

test('socket.io 2 with a middleware on \'/\': ' +
  'a client of /a and /b that \'/\' refuses is refused on both (the server connects nothing else before \'/\')', { concurrency: 3 }, async (t) => {
  await Promise.all(APP_MATRIX.filter((c) => c.transport !== 'upgrade').map((c) => t.test(`${c.engine} ${c.transport}`, async (t) => {
    const peer = await startSocketIoPeer(t, { version: '2', namespaces: ['/', '/a', '/b'], authToken: TOKEN, pingIntervalMs: PING_INTERVAL_MS })
    // Client 1 of 3 has a wrong token.
    const swarm = startTestSwarm(t, {
      ...c,
      url: peer.url,
      clients: 3,
      namespace: ['/a', '/b'],
      feeder: feederFile(t, ['query', 'wrong', 'header']),
      query: 'token={{row.query}}',
      header: ['Authorization: Bearer {{row.header}}']
    })
    await waitFor(async () => {
      const count = await peer.count()
      return count.byNamespace['/a'] === 2 && count.byNamespace['/b'] === 2 && count.refused === 1 && (swarm.progress?.errors ?? 0) >= 2
    }, {
      timeoutMs: WAIT_MS,
      intervalMs: 100,
      message: () => `2 clients on /a and /b, 1 refused on '/' and its 2 refusals counted by the swarm (${JSON.stringify(swarm.progress?.errors)})`
    })
    const result = await swarm.stop()
    assert.equal(result.clients.everConnected, 2)
    assert.deepEqual(result.clients.errors, { unauthorized: 2 })
    assert.deepEqual(result.clients.namespaces?.map((n) => [n.name, n.connects, n.refused]), [['/a', 2, { unauthorized: 1 }], ['/b', 2, { unauthorized: 1 }]])
  })))
})

test('socket.io 2 and --auth: the first contact says it is not sent, and how to carry the token, and stops', async (t) => {
  const peer = await startSocketIoPeer(t, { version: '2', namespaces: ['/', '/a'], authToken: TOKEN })
  // Every client would send the same auth, which v2 never carries: no client can connect.
  await assert.rejects(inspectServer(normalizeSimOptions({ url: `${peer.url}/a`, engine: 'lean', auth: `{"token":"${TOKEN}"}` })), (error) => {
    assert.equal(/** @type {import('../../lib/errors.js').IoswarmError} */ (error).exitCode, 2)
    assert.match(
      /** @type {Error} */ (error).message,
      new RegExp(/^the server speaks Socket\.IO v2 \(socket\.io 2\.x\), which has no handshake auth: --auth .* is not sent; /.source +
        /carry the token with --query or --header; the server refused namespace \/a: unauthorized: every client sends this same identity, /.source +
        /so none can connect and nothing was started/.source)
    )
    return true
  })
})
