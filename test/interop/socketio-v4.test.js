/**
 * socket.io 4.8 (pinned in test/peers): JSON and msgpack, allowEIO3, a custom path, a namespace;
 * both engines, every transport.
 */
import { test } from 'node:test'
import { startSocketIoPeer } from '../helpers/peers.js'
import { MATRIX, measureAgainst } from './measure.js'

test('socket.io 4, default JSON parser', { concurrency: 3 }, async (t) => {
  await Promise.all(MATRIX.map((c) => t.test(`${c.engine} ${c.transport}`, async (t) => { await measureAgainst(t, await startSocketIoPeer(t, { version: '4' }), c) })))
})

test('socket.io 4 with allowEIO3, a custom path and a namespace', { concurrency: 3 }, async (t) => {
  await Promise.all(MATRIX.map((c) => t.test(`${c.engine} ${c.transport}`, async (t) => {
    const peer = await startSocketIoPeer(t, { version: '4', allowEIO3: true, path: '/rt', namespaces: ['/', '/scores'] })
    await measureAgainst(t, peer, { ...c, url: `${peer.url}/scores`, namespace: '/scores', args: ['--path', '/rt'] })
  })))
})

test('socket.io 4 with the msgpack parser', { concurrency: 3 }, async (t) => {
  await Promise.all(MATRIX.filter((c) => c.engine === 'sio').map((c) => t.test(`${c.engine} ${c.transport}`, async (t) => {
    await measureAgainst(t, await startSocketIoPeer(t, { version: '4', parser: 'msgpack' }), { ...c, args: ['--parser', 'msgpack'] })
  })))
})
