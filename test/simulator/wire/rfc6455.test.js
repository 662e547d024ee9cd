import { test } from 'node:test'
import assert from 'node:assert/strict'
import { OPCODE, newKey, handshakeRequest, checkHandshakeResponse, encodeFrame, encodeTextFrame, readFrameHeader } from '../../../simulator/wire/rfc6455.js'

test('the handshake request carries the headers ws sends', () => {
  const key = newKey()
  assert.equal(Buffer.from(key, 'base64').length, 16)
  assert.notEqual(newKey(), key)
  assert.equal(handshakeRequest('/socket.io/?EIO=4&transport=websocket', 'h:1', 'k'),
    'GET /socket.io/?EIO=4&transport=websocket HTTP/1.1\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: k\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nHost: h:1\r\n\r\n')
})

test('checkHandshakeResponse accepts the RFC 6455 example and refuses the rest', () => {
  // RFC 6455 §1.3: key dGhlIHNhbXBsZSBub25jZQ== → accept s3pPLMBiTxaQ9kYGzzhZRbK+xOo=
  const key = 'dGhlIHNhbXBsZSBub25jZQ=='
  const ok = 'HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo='
  assert.equal(checkHandshakeResponse(ok, key), null)
  assert.match(String(checkHandshakeResponse(ok.replace('xOo=', 'xOp='), key)), /Accept/)
  assert.match(String(checkHandshakeResponse(ok.replace('Upgrade: websocket', 'Upgrade: h2c'), key)), /Upgrade/)
  assert.match(String(checkHandshakeResponse(`${ok}\r\nSec-WebSocket-Extensions: permessage-deflate`, key)), /extension/)
  assert.match(String(checkHandshakeResponse('HTTP/1.1 400 Bad Request', key)), /400/)
})

test('encodeFrame masks and sizes frames; readFrameHeader reads server frames', () => {
  for (const length of [0, 5, 125, 126, 65535, 65536]) {
    const payload = Buffer.alloc(length, 'a')
    const bytes = encodeFrame(OPCODE.TEXT, payload)
    const lengthBytes = length < 126 ? 0 : length < 65536 ? 2 : 8
    assert.equal(bytes.length, 2 + lengthBytes + 4 + length)
    assert.equal(bytes[0], 0x81)
    assert.equal(bytes[1] & 0x80, 0x80, 'masked')
    const mask = bytes.subarray(2 + lengthBytes, 6 + lengthBytes)
    const unmasked = bytes.subarray(6 + lengthBytes).map((b, k) => b ^ mask[k & 3])
    assert.ok(Buffer.from(unmasked).equals(payload))
    // The same header without the mask bit is a valid server frame header.
    const server = Buffer.from(bytes.subarray(0, 2 + lengthBytes))
    server[1] &= 0x7f
    assert.deepEqual(readFrameHeader(server, 0, server.length), { fin: true, opcode: 1, length, headerBytes: 2 + lengthBytes })
    if (lengthBytes > 0) assert.equal(readFrameHeader(server, 0, server.length - 1), null, 'incomplete length')
  }
  // encodeTextFrame: the same frame from a string (UTF-8, every length class, every tail length of the mask).
  // Both ways of writing it: through the 16 KiB scratch buffer (up to 5,461 UTF-16 units) and into the frame.
  const around = ['z'.repeat(5461), 'é'.repeat(5461), '\u{1F600}'.repeat(2730) + '☃', 'w'.repeat(5462), 'é'.repeat(5462), '☃'.repeat(6000)]
  for (const text of ['', 'a', 'ab', 'abc', 'abcd', '42["chat",{"text":"hé ☃"}]', '\u{1F600}', 'x'.repeat(126), ...around, 'y'.repeat(65537)]) {
    const bytes = encodeTextFrame(text)
    const length = Buffer.byteLength(text)
    const lengthBytes = length < 126 ? 0 : length < 65536 ? 2 : 8
    assert.equal(bytes.length, 2 + lengthBytes + 4 + length)
    const server = Buffer.from(bytes.subarray(0, 2 + lengthBytes))
    server[1] &= 0x7f
    assert.deepEqual(readFrameHeader(server, 0, server.length), { fin: true, opcode: 1, length, headerBytes: 2 + lengthBytes })
    const mask = bytes.subarray(2 + lengthBytes, 6 + lengthBytes)
    assert.equal(Buffer.from(bytes.subarray(6 + lengthBytes).map((b, k) => b ^ mask[k & 3])).toString(), text)
  }
  assert.equal(readFrameHeader(Buffer.from([0x81]), 0, 1), null)
  assert.match(String(readFrameHeader(Buffer.from([0x81, 0x81]), 0, 2)), /mask/)
  assert.match(String(readFrameHeader(Buffer.from([0xc1, 0x01]), 0, 2)), /RSV/)
  assert.match(String(readFrameHeader(Buffer.from([0x89, 126, 0, 200]), 0, 4)), /control/)
  assert.match(String(readFrameHeader(Buffer.from([0x8b, 0]), 0, 2)), /opcode/)
  assert.match(String(readFrameHeader(Buffer.from([0x82, 127, 255, 255, 255, 255, 0, 0, 0, 0]), 0, 10)), /2\^53/)
})
