/**
 * socket.io 4.8 (pinned in test/peers): JSON and msgpack, allowEIO3, a custom path, a namespace;
 * both engines, every transport.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { runCli } from '../helpers/cli.js'
import { startSocketIoPeer } from '../helpers/peers.js'
import { MATRIX, caseName, measureAgainst } from './measure.js'

test('socket.io 4, default JSON parser', { concurrency: 3 }, async (t) => {
  await Promise.all(MATRIX.map((c) => t.test(caseName(c), async (t) => { await measureAgainst(t, await startSocketIoPeer(t, { version: '4' }), c) })))
})

test('socket.io 4 with allowEIO3, a custom path and a namespace', { concurrency: 3 }, async (t) => {
  await Promise.all(MATRIX.map((c) => t.test(caseName(c), async (t) => {
    const peer = await startSocketIoPeer(t, { version: '4', allowEIO3: true, path: '/rt', namespaces: ['/', '/scores'] })
    await measureAgainst(t, peer, { ...c, url: `${peer.url}/scores`, namespace: '/scores', args: [...c.args ?? [], '--path', '/rt'] })
  })))
})

test('socket.io 4 with the msgpack parser', { concurrency: 3 }, async (t) => {
  await Promise.all(MATRIX.filter((c) => c.engine === 'sio').map((c) => t.test(caseName(c), async (t) => {
    await measureAgainst(t, await startSocketIoPeer(t, { version: '4', parser: 'msgpack' }), { ...c, args: [...c.args ?? [], '--parser', 'msgpack'] })
  })))
})

test('socket.io 4 with msgpack, tested without --parser msgpack: the first contact says so', async (t) => {
  const peer = await startSocketIoPeer(t, { version: '4', parser: 'msgpack' })
  const { code, stdout, stderr } = await runCli(t, [
    'bin/ioswarm.js', 'simulate', '-c', '2', '--url', peer.url, '--ramp', '0', '--duration', '2', '--json',
    '--no-reconnect'
  ])
  assert.equal(code, 1, stderr)
  assert.match(
    stderr,
    /warning: the server closed the connection on a JSON CONNECT and accepted a msgpack one: it speaks socket\.io-msgpack-parser; add --parser msgpack/
  )
  assert.match(stderr, /FIRST CONTACT: the server closed/)
  assert.match(JSON.parse(stdout).server.diagnosis, /add --parser msgpack/)
})
