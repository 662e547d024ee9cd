/**
 * socket.io 2.5 (Engine.IO v3, Socket.IO v2; pinned in test/peers): both engines, every
 * transport, the protocol detected from the handshake; and socket.io 4 with allowEIO3 spoken
 * to in v3 on request (--eio 3), with a namespace; the look before a swarm on '/'.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { inspectServer } from '../../simulator/index.js'
import { normalizeSimOptions } from '../../simulator/sim-options.js'
import { startSocketIoPeer } from '../helpers/peers.js'
import { MATRIX, caseName, measureAgainst } from './measure.js'

test('socket.io 2: the protocol is detected, and every broadcast is measured', { concurrency: 3 }, async (t) => {
  await Promise.all(MATRIX.map((c) => t.test(caseName(c), async (t) => {
    const result = await measureAgainst(t, await startSocketIoPeer(t, { version: '2', pingIntervalMs: 1000 }), c)
    assert.equal(result.server.eio, 3)
    assert.equal(result.server.eioSource, 'handshake')
  })))
})

test('socket.io 2, a namespace', { concurrency: 3 }, async (t) => {
  await Promise.all(MATRIX.filter((c) => c.transport !== 'upgrade').map((c) => t.test(caseName(c), async (t) => {
    const peer = await startSocketIoPeer(t, { version: '2', namespaces: ['/', '/live'] })
    await measureAgainst(t, peer, { ...c, url: `${peer.url}/live`, namespace: '/live' })
  })))
})

test('socket.io 4 with allowEIO3, spoken to in Engine.IO v3 (--eio 3)', { concurrency: 3 }, async (t) => {
  await Promise.all(MATRIX.map((c) => t.test(caseName(c), async (t) => {
    const peer = await startSocketIoPeer(t, { version: '4', allowEIO3: true, pingIntervalMs: 1000 })
    const result = await measureAgainst(t, peer, { ...c, args: [...c.args ?? [], '--eio', '3'] })
    assert.deepEqual([result.server.eio, result.server.eioSource], [3, '--eio'])
  })))
})

test('socket.io 2, \'/\' with and without a middleware: the look before a swarm reads the server\'s answer and closes its session', async (t) => {
  const TOKEN = 'v2-s3cret'
  const plain = await startSocketIoPeer(t, { version: '2' })
  assert.equal((await inspectServer(normalizeSimOptions({ url: plain.url }))).diagnosis, null)
  // Before: the first contact left its polling session open, a client the server counted until its ping timeout (30 s).
  assert.equal((await plain.count()).connected, 0, 'no client left on the server')
  const guarded = await startSocketIoPeer(t, { version: '2', authToken: TOKEN })
  // Before: past a middleware on '/' the answer comes with a later poll, unread: a refusal read as connected.
  // A wrong token that differs per client: the look says why (one shared by every client would stop it).
  assert.equal(
    (await inspectServer(normalizeSimOptions({ url: guarded.url, query: 'token=wrong-{{i}}' }))).diagnosis,
    'the server refused namespace /: unauthorized'
  )
  assert.equal((await inspectServer(normalizeSimOptions({ url: guarded.url, query: `token=${TOKEN}` }))).diagnosis, null)
  // socket.io 2 connects '/' at every Engine.IO session: the tokenless look's handshake and its first contact were refused each.
  const { connected, refused } = await guarded.count()
  assert.deepEqual([connected, refused], [0, 2], 'no client left on the server; the tokenless look\'s two sessions refused')
})
