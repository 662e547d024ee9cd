/**
 * A Chromium session of socket.io-client 4 (long-polling, then upgraded) against the chat app on
 * python-socketio 5 and aiohttp (test/peers/python/recorded_app.py: a login that sets a session
 * cookie, the /chat namespace, a room joined with an ack, acked emits, binary data), opened
 * through `ioswarm record --proxy` while the HAR is taken from the DevTools Protocol too: the
 * proxy's scenario is the HAR's, and replayed by 50 clients the app's ledger (its GET /ledger)
 * sees each as it saw the browser (browser-case.js). Without python-socketio it skips loudly.
 */
import { test } from 'node:test'
import { recordAndReplay } from './browser-case.js'

const NAME = 'a Chromium session against python-socketio, recorded as a HAR and through the proxy, replays as 50 clients the app cannot tell from it'

test(NAME, { timeout: 90000 }, async (t) => {
  await recordAndReplay(t, { transports: ['polling', 'websocket'], replayTransport: 'upgrade', version: 'python', throughProxy: true })
})
