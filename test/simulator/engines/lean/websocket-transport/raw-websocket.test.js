/**
 * The built-in WebSocket client at the byte level, against a raw RFC 6455 peer: frames cut
 * across reads, 16- and 64-bit lengths, fragmentation with a ping in between, close frames,
 * protocol violations and a refused handshake.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { leanEngine } from '../../../../../simulator/engines/lean.js'
import { recorder, engineOptions } from '../helpers.js'
import { waitFor } from '../../../../helpers/wait.js'
import { startFramePeer, frame, writeInPieces } from '../frame-peer.js'

/**
 * @param {import('node:test').TestContext} t
 * @param {string} url
 */
function connectOne (t, url) {
  const { log, events } = recorder()
  // This file tests the built-in client byte by byte (the engine's default, named so that it stays so here).
  const pool = leanEngine.createPool(engineOptions(url, { reconnect: false, events: ['*'], wsClient: 'builtin' }), events)
  t.after(() => pool.close())
  pool.connect(0, 'websocket')
  return log
}

test('frames cut anywhere across reads arrive whole (7-, 16- and 64-bit lengths)', async (t) => {
  const small = '42["small",1]'
  const medium = `42["medium","${'m'.repeat(300)}"]`
  const large = `42["large","${'l'.repeat(70000)}"]`
  const peer = await startFramePeer(t, {
    afterConnect: (socket) => {
      const bytes = Buffer.concat([frame(1, small), frame(1, medium), frame(1, large), frame(1, small)])
      const mediumAt = frame(1, small).length
      // Cut inside the first header, inside the 16-bit length, inside the 64-bit length, in payloads.
      writeInPieces(socket, bytes, [1, mediumAt + 1, mediumAt + 3, mediumAt + 200, bytes.length - 70000, bytes.length - 30000, bytes.length - 3])
    }
  })
  const log = connectOne(t, peer.url)
  await waitFor(() => log.messages.length === 4, { message: '4 messages' })
  assert.deepEqual(log.messages.map((m) => m.event), ['small', 'medium', 'large', 'small'])
  assert.equal(/** @type {string} */ (log.messages[2].args[0]).length, 70000)
  assert.equal(log.messages[0].args, log.messages[3].args, 'the repeated frame came from the cache')
})

test('a fragmented message with a ping inside is reassembled, and the ping answered', async (t) => {
  const peer = await startFramePeer(t, {
    afterConnect: (socket) => writeInPieces(socket, Buffer.concat([
      frame(1, '42["frag",', { fin: false }),
      frame(9, 'are you there'),
      frame(0, '"mented"', { fin: false }),
      frame(0, ']'),
      frame(2, Buffer.from([1, 2, 3]), { fin: false }),
      frame(0, Buffer.from([4]))
    ]), [5, 20])
  })
  const log = connectOne(t, peer.url)
  await waitFor(() => log.messages.length === 1 && log.disconnects.length === 1, { message: 'the message, then the end' })
  assert.deepEqual(log.messages[0], { i: 0, event: 'frag', args: ['mented'] })
  // The binary message had no BINARY_EVENT header: the client refuses it.
  assert.deepEqual(log.disconnects, [{ i: 0, reason: 'parse error' }])
  const pong = peer.received.find((f) => f.opcode === 10)
  assert.equal(pong?.payload.toString(), 'are you there')
})

test('binary attachments in split frames are kept (copied out of the shared read buffer)', async (t) => {
  const peer = await startFramePeer(t, {
    afterConnect: (socket) => {
      const bytes = Buffer.concat([frame(1, '451-["bin",{"_placeholder":true,"num":0}]'), frame(2, Buffer.alloc(1000, 7)), frame(1, '42["after"]')])
      writeInPieces(socket, bytes, [bytes.length - 500])
    }
  })
  const log = connectOne(t, peer.url)
  await waitFor(() => log.messages.length === 2, { message: 'the binary event and the next one' })
  assert.deepEqual(log.messages[0].args, [Buffer.alloc(1000, 7)])
  assert.equal(log.messages[1].event, 'after')
})

test("a server close frame is echoed and reported as 'transport close'", async (t) => {
  const peer = await startFramePeer(t, {
    afterConnect: (socket) => { socket.write(frame(8, Buffer.from([0x03, 0xe8]))) }
  })
  const log = connectOne(t, peer.url)
  await waitFor(() => log.disconnects.length === 1, { message: 'the close' })
  assert.deepEqual(log.disconnects, [{ i: 0, reason: 'transport close' }])
  await waitFor(() => peer.received.some((f) => f.opcode === 8), { message: 'the echoed close frame' })
  assert.deepEqual(peer.received.find((f) => f.opcode === 8)?.payload, Buffer.from([0x03, 0xe8]))
})

for (const [name, bytes] of /** @type {const} */ ([
  ['a masked server frame', frame(1, '42["x"]', { mask: true })],
  ['a reserved bit', frame(1, '42["x"]', { rsv: 0x40 })],
  ['an unknown opcode', frame(3, 'x')],
  ['a fragmented control frame', frame(9, 'x', { fin: false })],
  ['a continuation without a start', frame(0, 'x')]
])) {
  test(`${name} is a protocol error: 'transport error'`, async (t) => {
    const peer = await startFramePeer(t, { afterConnect: (socket) => { socket.write(bytes) } })
    const log = connectOne(t, peer.url)
    await waitFor(() => log.disconnects.length === 1, { message: 'the end of the client' })
    assert.deepEqual(log.disconnects, [{ i: 0, reason: 'transport error' }])
  })
}

test("a refused handshake is a connect error 'websocket error (HTTP 400)', as on ws", async (t) => {
  const peer = await startFramePeer(t, { response: 'HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n' })
  for (const wsClient of /** @type {const} */ (['builtin', 'ws'])) {
    const { log, events } = recorder()
    const pool = leanEngine.createPool(engineOptions(peer.url, { reconnect: false, events: ['*'], wsClient }), events)
    t.after(() => pool.close())
    pool.connect(0, 'websocket')
    await waitFor(() => log.errors.length === 1, { message: `the connect error (${wsClient})` })
    assert.deepEqual(log.errors, [{ i: 0, reason: 'websocket error (HTTP 400)' }], wsClient)
    assert.equal(log.connected.size, 0)
  }
})
