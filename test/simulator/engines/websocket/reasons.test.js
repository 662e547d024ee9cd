import { test } from 'node:test'
import assert from 'node:assert/strict'
import { endReason, errorText } from '../../../../simulator/engines/websocket/reasons.js'
import { PAYLOAD_TOO_LARGE } from '../../../../simulator/wire/limits.js'

const none = { closeCode: 0, closeReason: '', error: '', tooLarge: false }

test('a close frame is counted by its code, its name and the server\'s reason; before the first round trip it is a refusal', () => {
  assert.equal(endReason({ ...none, closeCode: 1008, closeReason: 'bad token' }, false), 'refused: close 1008 policy violation: bad token')
  assert.equal(endReason({ ...none, closeCode: 1008, closeReason: 'bad token' }, true), 'close 1008 policy violation: bad token')
  assert.equal(endReason({ ...none, closeCode: 1001 }, true), 'close 1001 going away')
  assert.equal(endReason({ ...none, closeCode: 1005 }, true), 'close 1005 no status')
  assert.equal(endReason({ ...none, closeCode: 4403, closeReason: 'Forbidden' }, false), 'refused: close 4403: Forbidden')
})

test('no close frame: the handshake\'s HTTP status, the socket error, or a lost connection', () => {
  assert.equal(endReason({ ...none, error: 'Unexpected server response: 401' }, false), 'handshake refused: HTTP 401')
  assert.equal(endReason({ ...none, error: 'ECONNREFUSED' }, false), 'ECONNREFUSED')
  assert.equal(endReason(none, true), 'connection lost (no close frame)')
  assert.equal(endReason(none, false), 'closed before the first round trip (no close frame)')
  assert.equal(endReason({ ...none, tooLarge: true, closeCode: 1009 }, true), PAYLOAD_TOO_LARGE)
  assert.equal(errorText(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' })), 'ECONNREFUSED')
  assert.equal(errorText(Object.assign(new Error('Invalid WebSocket frame'), { code: 'WS_ERR_INVALID_OPCODE' })), 'Invalid WebSocket frame')
})
