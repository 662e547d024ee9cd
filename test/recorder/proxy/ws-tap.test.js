/**
 * The recording proxy's WebSocket tap stamps each message with the time its bytes passed, not
 * the time its parser emitted it: a compressed emit is inflated on zlib's turn, and an ack the
 * server sent uncompressed right after it is emitted first. Read by emit time, the ack came
 * before the emit it answers and the recorder found no ack for it.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import zlib from 'node:zlib'
import { tapWebSocket } from '../../../recorder/proxy/ws-tap.js'
import { waitFor } from '../../helpers/wait.js'

/**
 * One text frame (short payload): from the client masked and compressed (RSV1), from the server plain.
 * @param {string} text
 * @param {boolean} fromClient
 */
function frame (text, fromClient) {
  if (!fromClient) return Buffer.concat([Buffer.from([0x81, Buffer.byteLength(text)]), Buffer.from(text)])
  // permessage-deflate: the message deflated and flushed, its last four bytes (00 00 ff ff) left off.
  const deflated = zlib.deflateRawSync(Buffer.from(text), { finishFlush: zlib.constants.Z_SYNC_FLUSH }).subarray(0, -4)
  const mask = randomBytes(4)
  const masked = Buffer.from(deflated.map((b, k) => b ^ mask[k % 4]))
  return Buffer.concat([Buffer.from([0xc1, 0x80 | masked.length]), mask, masked])
}

test('a compressed emit and the plain ack after it keep their order in time', async () => {
  /** @type {import('../../../recorder/har.js').WsFrame[]} */
  const frames = []
  const tap = tapWebSocket(frames, 'permessage-deflate; client_max_window_bits=15')
  tap.fromClient(frame('42/chat,1["chat",{"text":"hello there"}]', true))
  tap.fromServer(frame('43/chat,1[{"ok":true}]', false))
  await waitFor(() => frames.length === 2, { message: 'both messages read' })
  assert.equal(tap.failure(), null)
  const [first, second] = [...frames].sort((a, b) => a.atMs - b.atMs)
  assert.deepEqual([first.dir, first.data], ['send', '42/chat,1["chat",{"text":"hello there"}]'])
  assert.deepEqual([second.dir, second.data], ['receive', '43/chat,1[{"ok":true}]'])
  assert.ok(first.atMs < second.atMs, `the emit passed first: ${first.atMs} < ${second.atMs}`)
})
