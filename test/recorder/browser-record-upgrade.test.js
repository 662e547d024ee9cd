/**
 * A Chromium session with socket.io-client's default transports (long-polling, then the upgrade
 * to WebSocket) against socket.io 4: the HAR holds the polling requests with their bodies and
 * the WebSocket's frames of one Engine.IO session; the scenario replays it as 50 clients with
 * --transport upgrade, and the app's ledger sees each as it saw the browser (browser-case.js).
 */
import { test } from 'node:test'
import { recordAndReplay } from './browser-case.js'

test('a Chromium session polling then upgraded, recorded as a HAR, replays as 50 clients the app cannot tell from it', { timeout: 60000 }, async (t) => {
  await recordAndReplay(t, { transports: ['polling', 'websocket'], replayTransport: 'upgrade' })
})
