/**
 * Late joiners (test/simulator/recording/late-joiners.test.js) against servers other people wrote:
 * python-socketio 5 (the app peer, test/peers/python/app_server.py) and socket.io 2.5, 3.1 and
 * 4.8 (test/peers/node/server.js), both engines, websocket, polling and upgrade. Each peer app, in its own
 * library's API (late.py, late.js), takes a relayed line and a broadcast `tick` at once, lets
 * the late clients connect only then, and delivers both, to everyone, once those have spoken:
 * a client that connected after a message was sent does not expect it, and the copy it gets is
 * received, not expected. The sender's own copy of its line (these apps relay to the sender
 * too) is an echo. Not here: the plain python-socketio peer (server.py relays no lines and sends
 * its broadcasts at once: it cannot make a late joiner), a load balancer.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { startPythonAppPeer, startSocketIoPeer } from '../helpers/peers.js'
import { startTestSwarm } from '../helpers/swarm.js'
import { waitFor } from '../helpers/wait.js'
import { APP_MATRIX, WAIT_MS } from './app-case.js'

const FIRST = 3
const LATE = 2

/** @type {{ name: string, start: (t: import('node:test').TestContext) => Promise<{ url: string } | null> }[]} */
const PEERS = [
  { name: 'python-socketio 5 app', start: (t) => startPythonAppPeer(t, { late: { first: FIRST, count: LATE } }) },
  { name: 'socket.io 2', start: (t) => startSocketIoPeer(t, { version: '2', late: { first: FIRST, count: LATE } }) },
  { name: 'socket.io 3', start: (t) => startSocketIoPeer(t, { version: '3', late: { first: FIRST, count: LATE } }) },
  { name: 'socket.io 4', start: (t) => startSocketIoPeer(t, { version: '4', late: { first: FIRST, count: LATE } }) }
]

for (const peerSpec of PEERS) {
  test(`${peerSpec.name}: clients that connected after a line or a broadcast was sent do not expect it`, { concurrency: 3 }, async (t) => {
    await Promise.all(APP_MATRIX.map((c) => t.test(`${c.engine} ${c.transport}`, async (t) => {
      const peer = await peerSpec.start(t)
      if (!peer) return
      const swarm = startTestSwarm(t, {
        url: peer.url,
        ...c,
        clients: FIRST + LATE,
        emit: 'chat {"text":"hi {{i}}"}',
        emitRate: '20/s',
        event: 'tick',
        // A send time older than the message timeout is not trusted (every client connected is
        // then expected): on a loaded host a held line can take seconds to come back.
        messageTimeout: '20s'
      })
      /** @type {{ line?: string, tick?: string }} */
      let sent = {}
      await waitFor(async () => {
        sent = /** @type {any} */ (await (await fetch(`${peer.url}/late`)).json())
        return sent.line !== undefined
      }, { timeoutMs: WAIT_MS, intervalMs: 100, message: () => `the held line and tick sent (swarm ${JSON.stringify(swarm.progress)})` })
      const ids = [sent.line, sent.tick]
      await waitFor(() => ids.every((id) => swarm.closed.some((m) => m.id === id)), {
        timeoutMs: WAIT_MS, message: () => `both messages closed (have ${swarm.closed.length}: ${swarm.closed.slice(-5).map((m) => m.id)})`
      })
      const result = await swarm.stop()
      const byId = Object.fromEntries(result.messages.filter((m) => ids.includes(m.id)).map((m) => [m.id, m]))
      const counts = (/** @type {import('../../lib/schema/result-schema.js').MessageReport} */ m) =>
        ({ expected: m.expected, received: m.received, missing: m.missing, misdelivered: m.misdelivered ?? 0, duplicates: m.duplicates, echo: m.echo ?? 0 })
      // Before the fix (bd28a2b): every client connected at the first receipt was expected (line 4, tick 5).
      const clean = { missing: 0, misdelivered: 0, duplicates: 0 }
      assert.deepEqual(counts(byId[/** @type {string} */ (sent.line)]), { expected: FIRST - 1, received: FIRST + LATE - 1, ...clean, echo: 1 },
        'the line: its sender\'s two peers expected; the late clients\' copies received, not expected; the sender\'s an echo')
      assert.deepEqual(counts(byId[/** @type {string} */ (sent.tick)]), { expected: FIRST, received: FIRST + LATE, ...clean, echo: 0 },
        'the broadcast: the three connected at its send expected; the late clients\' copies received, not expected')
    })))
  })
}
