/**
 * A Chromium session over WebSocket only against socket.io 4 (a login, a namespace, a room,
 * acked emits, binary data), recorded as a HAR built from the DevTools Protocol, turned into a
 * scenario and replayed by 50 clients: the app's ledger sees each as it saw the browser
 * (test/recorder/browser-case.js).
 */
import { test } from 'node:test'
import { recordAndReplay } from './browser-case.js'

test('a Chromium session over WebSocket, recorded as a HAR, replays as 50 clients the app cannot tell from it', { timeout: 60000 }, async (t) => {
  await recordAndReplay(t, { transports: ['websocket'], replayTransport: 'websocket' })
})
