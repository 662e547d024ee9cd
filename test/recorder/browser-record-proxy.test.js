/**
 * A Chromium session polling then upgraded against socket.io 4, opened through
 * `ioswarm record --proxy` while the HAR is taken from the DevTools Protocol too: the proxy's
 * scenario is the HAR's (the same steps, acks, identity and measured events), and replayed by
 * 50 clients the app's ledger sees each as it saw the browser (browser-case.js).
 */
import { test } from 'node:test'
import { recordAndReplay } from './browser-case.js'

test('a Chromium session through the recording proxy writes the HAR\'s scenario, and replays as 50 clients', { timeout: 90000 }, async (t) => {
  await recordAndReplay(t, { transports: ['polling', 'websocket'], replayTransport: 'upgrade', throughProxy: true })
})
