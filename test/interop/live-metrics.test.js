/**
 * Live metrics (simulate --metrics-port) against servers other people wrote: the python-socketio
 * 5 app (test/peers/python/app_server.py) and socket.io 2.5 and 3.1 (test/peers/node/server.js)
 * ack each chat line, and the plain python-socketio peer (test/peers/python/server.py) answers
 * each `move` with a `state` event; on both engines, two scrapes during the run see the acks (the
 * replies) grow, and the end equals the result's emits (and replies) (test/helpers/live-emits.js,
 * as test/simulator/reporting/live-metrics.test.js checks against ioswarm's own app). A scenario's own figures
 * (ctx.count, ctx.timing) are not run against these peers.
 */
import { test } from 'node:test'
import { startPythonAppPeer, startPythonPeer, startSocketIoPeer } from '../helpers/peers.js'
import { checkLiveEmits } from '../helpers/live-emits.js'

/** @type {{ name: string, start: (t: import('node:test').TestContext) => Promise<{ url: string } | null> }[]} */
const PEERS = [
  { name: 'python-socketio 5 app', start: (t) => startPythonAppPeer(t) },
  { name: 'socket.io 2', start: (t) => startSocketIoPeer(t, { version: '2' }) },
  { name: 'socket.io 3', start: (t) => startSocketIoPeer(t, { version: '3' }) }
]

for (const peerSpec of PEERS) {
  test(`${peerSpec.name}: live emits and acks move during the run, and end as the result has them`, { concurrency: 2, timeout: 120000 }, async (t) => {
    await Promise.all(['sio', 'lean'].map((engine) => t.test(engine, async (t) => {
      const peer = await peerSpec.start(t)
      if (peer) await checkLiveEmits(t, peer.url, ['--engine', engine])
    })))
  })
}

test('python-socketio 5: live replies (a state event per move) ' +
  'move during the run, and end as the result has them', { concurrency: 2, timeout: 120000 }, async (t) => {
  await Promise.all(['sio', 'lean'].map((engine) => t.test(engine, async (t) => {
    const peer = await startPythonPeer(t)
    if (peer) await checkLiveEmits(t, peer.url, ['--engine', engine], { replies: true })
  })))
})
