import { test } from 'node:test'
import assert from 'node:assert/strict'
import {
  parseOpen, parseSioHeader, peekEventName, decodeEvent, fillPlaceholders, encodeConnect, encodeDisconnect, encodeEvent, encodeEventText, connectErrorMessage
} from '../../../../simulator/engines/lean/codec.js'

test('parseOpen reads the handshake and refuses what is not one', () => {
  assert.deepEqual(parseOpen('0{"sid":"a","upgrades":["websocket"],"pingInterval":25000,"pingTimeout":20000,"maxPayload":1000000}'),
    { sid: 'a', upgrades: ['websocket'], pingIntervalMs: 25000, pingTimeoutMs: 20000 })
  assert.equal(parseOpen('0{"sid":"a"}'), null)
  assert.equal(parseOpen('0{"sid":"a","pingInterval":"x","pingTimeout":1}'), null)
  assert.equal(parseOpen('0not json'), null)
  assert.equal(parseOpen('0null'), null)
})

test('parseSioHeader reads type, attachments, namespace and ack id', () => {
  assert.deepEqual(parseSioHeader('42["e",1]'), { type: 2, attachments: 0, nsp: '/', ackId: -1, dataStart: 2 })
  assert.deepEqual(parseSioHeader('42/chat,17["e"]'), { type: 2, attachments: 0, nsp: '/chat', ackId: 17, dataStart: 10 })
  assert.deepEqual(parseSioHeader('452-/chat,["e"]'), { type: 5, attachments: 2, nsp: '/chat', ackId: -1, dataStart: 10 })
  assert.deepEqual(parseSioHeader('40/chat,'), { type: 0, attachments: 0, nsp: '/chat', ackId: -1, dataStart: 8 })
  assert.deepEqual(parseSioHeader('41/chat'), { type: 1, attachments: 0, nsp: '/chat', ackId: -1, dataStart: 7 })
  assert.deepEqual(parseSioHeader('41'), { type: 1, attachments: 0, nsp: '/', ackId: -1, dataStart: 2 })
  for (const bad of ['4', '47[]', '4x', '45-["e"]', '450-["e"]', '4511-["e"]', '45a-["e"]', '452["e"]', '421234567890123456["e"]']) {
    assert.equal(parseSioHeader(bad), null, bad)
  }
})

test('peekEventName reads plain names and declines the rest', () => {
  assert.equal(peekEventName('42["broadcast",{}]', 2), 'broadcast')
  assert.equal(peekEventName('42["a\\"b",1]', 2), null)
  assert.equal(peekEventName('42[1,2]', 2), null)
  assert.equal(peekEventName('42["open', 2), null)
})

test('decodeEvent decodes, filters before parsing, and refuses invalid payloads', () => {
  assert.deepEqual(decodeEvent('42["e",{"a":1},2]', 2, null), { event: 'e', args: [{ a: 1 }, 2] })
  assert.deepEqual(decodeEvent('42[7,"x"]', 2, null), { event: '7', args: ['x'] })
  // Not measured: kept by name only (counted), never parsed.
  assert.deepEqual(decodeEvent('42["other",{broken', 2, new Set(['e'])), { event: 'other', args: null }, 'filtered out without parsing')
  assert.deepEqual(decodeEvent('42["a\\"b",1]', 2, new Set(['e'])), { event: 'a"b', args: null }, 'filtered after parsing an escaped name')
  for (const bad of ['42{"e":1}', '42[]', '42[null]', '42["connect"]', '42["e"', '42']) {
    assert.equal(decodeEvent(bad, 2, null), null, bad)
  }
  assert.equal(decodeEvent('42["disconnect"]', 2, new Set(['e'])), null, 'reserved names are invalid even when filtered')
})

test('fillPlaceholders puts attachments in place and refuses unknown ones', () => {
  const a = Buffer.from('a')
  const b = Buffer.from('b')
  const data = [{ x: { _placeholder: true, num: 1 }, list: [{ _placeholder: true, num: 0 }, 3] }, { _placeholder: true, num: 0 }]
  assert.deepEqual(fillPlaceholders(data, [a, b]), [{ x: b, list: [a, 3] }, a])
  assert.throws(() => fillPlaceholders([{ _placeholder: true, num: 2 }], [a, b]), RangeError)
  assert.throws(() => fillPlaceholders([{ _placeholder: true, num: '0' }], [a]), RangeError)
})

test('CONNECT, DISCONNECT and CONNECT_ERROR encodings', () => {
  assert.equal(encodeConnect('/', undefined), '40')
  assert.equal(encodeConnect('/chat', { token: 'x' }), '40/chat,{"token":"x"}')
  assert.equal(encodeDisconnect('/'), '41')
  assert.equal(encodeDisconnect('/chat'), '41/chat,')
  assert.equal(connectErrorMessage('{"message":"nope","data":{"a":1}}'), 'nope')
  assert.equal(connectErrorMessage('"v4 style"'), 'v4 style')
  assert.equal(connectErrorMessage('{"oops":1}'), null)
  assert.equal(connectErrorMessage('{'), null)
})

test('encodeEvent writes what JSON.stringify([event, ...args]) would, after the header', () => {
  const date = new Date(0)
  const cases = [[], [{ text: 'hi' }], ['a', 1, null, undefined, () => {}, Symbol('s'), { toJSON: () => 'j' }, date, [undefined]], ['é\u2028"']]
  for (const args of cases) {
    assert.equal(encodeEvent('/', 'chat', args, -1), `42${JSON.stringify(['chat', ...args])}`)
    assert.equal(encodeEvent('/a', 'new "x"', args, 7), `42/a,7${JSON.stringify(['new "x"', ...args])}`)
  }
})

test('encodeEventText writes the packet encodeEvent writes, from arguments that are JSON already', () => {
  for (const args of [[], [{ id: 'e1.1', sentAt: 1733433600123.456 }], [{ text: 'hi' }, 2, 'é']]) {
    const argsJson = JSON.stringify(args).slice(1, -1)
    // The last event name is kept between calls: alternate names to see it change.
    /** @type {[string, string, number][]} */
    const heads = [['/', 'chat', -1], ['/a', 'new "x"', 7], ['/', 'chat', 12]]
    for (const [nsp, event, ackId] of heads) {
      assert.equal(encodeEventText(nsp, event, argsJson, ackId), encodeEvent(nsp, event, args, ackId))
    }
  }
})
