/**
 * The scenario features (rooms, emits, templates, feeders) against the chat-like app on python-socketio 5 (aiohttp), written apart
 * from ioswarm (test/peers/python/app_server.py): identity per client, two namespaces on one
 * connection, rooms joined with acks, room broadcasts, emits with acks relayed to the room;
 * both engines, every transport; and examples/chat.js run by the real binary.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { startPythonAppPeer } from '../helpers/peers.js'
import { APP_MATRIX, PING_INTERVAL_MS, TOKEN, appCase } from './app-case.js'
import { chatScenario } from './chat-scenario.js'

test('python-socketio 5 app: identity, two namespaces, rooms, joins, emits with acks', { concurrency: 3 }, async (t) => {
  await Promise.all(APP_MATRIX.map((c) => t.test(`${c.engine} ${c.transport}`, async (t) => {
    const peer = await startPythonAppPeer(t, { authToken: TOKEN, namespaces: ['/', '/chat'], pingIntervalMs: PING_INTERVAL_MS })
    if (!peer) return
    const send = {
      toEveryone: async () => { await peer.broadcast({ round: 9, seq: 1 }) },
      toRooms: async (/** @type {number} */ count, /** @type {number} */ rooms) => { await peer.broadcast({ rooms, count, round: 1 }) }
    }
    await appCase(t, peer, send, { ...c, namespaces: ['/', '/chat'], rows: ['auth', 'query', 'header', 'wrong'] })
  })))
})

test('examples/chat.js against the python-socketio 5 app (the real binary)', { concurrency: 3 }, async (t) => {
  await Promise.all(APP_MATRIX.filter((c) => c.transport !== 'upgrade').map((c) => t.test(`${c.engine} ${c.transport}`, async (t) => {
    const peer = await startPythonAppPeer(t, { authToken: TOKEN, pingIntervalMs: PING_INTERVAL_MS })
    if (!peer) return
    const result = await chatScenario(t, peer, c)
    for (const m of result.messages.filter((m) => m.event === 'chat')) {
      assert.deepEqual([m.missing, m.misdelivered, m.duplicates], [0, 0, 0], `line ${m.id} to ${m.room}`)
    }
  })))
})
