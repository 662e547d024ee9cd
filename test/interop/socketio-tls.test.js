/**
 * socket.io 2.5, 3.1 and 4.8 (pinned in test/peers) over https and wss:// with a certificate
 * made for the test and trusted with --ca: the lean engine on both its WebSocket clients (the
 * built-in one, its default, and ws), WebSocket and upgrade (polling first); every client
 * connected as the server counts them, every broadcast measured, its TLS handshakes timed.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { makeCertificate } from '../helpers/https-server.js'
import { startSocketIoPeer } from '../helpers/peers.js'
import { measureAgainst } from './measure.js'

const CASES = (/** @type {const} */ (['2', '3', '4'])).flatMap((version) => (/** @type {const} */ (['builtin', 'ws'])).flatMap((wsClient) =>
  (/** @type {const} */ (['websocket', 'upgrade'])).map((transport) => ({ version, wsClient, transport }))))

test('socket.io 2, 3 and 4 over wss://: the lean engine on both WebSocket clients', { concurrency: 3 }, async (t) => {
  const files = makeCertificate(t)
  if (files === null) return
  await Promise.all(CASES.map(({ version, wsClient, transport }) => t.test(`socket.io ${version}, ${wsClient}, ${transport}`, async (t) => {
    const peer = await startSocketIoPeer(t, { version, pingIntervalMs: 1000, tls: files })
    assert.match(peer.url, /^https:/)
    const args = ['--ca', files.cert, ...(wsClient === 'ws' ? ['--ws-client', 'ws'] : [])]
    const result = await measureAgainst(t, peer, { engine: 'lean', transport, args })
    assert.equal(result.options.wsClient, wsClient)
    assert.ok(result.clients.tlsTime.count >= 5, `TLS handshakes timed: ${JSON.stringify(result.clients.tlsTime)}`)
  })))
})
