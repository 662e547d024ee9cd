/**
 * A Chromium session of socket.io-client 2 (Engine.IO v3, long-polling then upgraded) against
 * a socket.io 2 app (the pinned peer; the token in the query, binary data, acks, a room):
 * recorded as a HAR, turned into a scenario and replayed by 50 clients, which the app's ledger
 * sees as it saw the browser (browser-case.js).
 */
import { test } from 'node:test'
import { recordAndReplay } from './browser-case.js'

test('a Chromium session of socket.io 2 (EIO3, polling then upgraded) replays as 50 clients the app cannot tell from it', { timeout: 90000 }, async (t) => {
  await recordAndReplay(t, { transports: ['polling', 'websocket'], replayTransport: 'upgrade', version: '2' })
})
