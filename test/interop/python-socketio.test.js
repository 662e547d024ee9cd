/**
 * python-socketio 5 on aiohttp (Debian's python3-socketio): both engines, every transport,
 * and a namespace. It holds long-polls open for a whole ping interval: the simulator must
 * still exit by itself when its run ends.
 */
import { test } from 'node:test'
import { startPythonPeer } from '../helpers/peers.js'
import { MATRIX, caseName, measureAgainst } from './measure.js'

test('python-socketio 5', { concurrency: 3 }, async (t) => {
  await Promise.all(MATRIX.map((c) => t.test(caseName(c), async (t) => {
    const peer = await startPythonPeer(t)
    if (peer) await measureAgainst(t, peer, c)
  })))
})

test('python-socketio 5, a namespace', { concurrency: 3 }, async (t) => {
  await Promise.all(MATRIX.filter((c) => c.transport !== 'upgrade').map((c) => t.test(caseName(c), async (t) => {
    const peer = await startPythonPeer(t, { namespaces: ['/', '/live'] })
    if (peer) await measureAgainst(t, peer, { ...c, url: `${peer.url}/live`, namespace: '/live' })
  })))
})
