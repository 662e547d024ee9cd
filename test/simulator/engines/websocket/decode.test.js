import { test } from 'node:test'
import assert from 'node:assert/strict'
import { compileMatcher, decodeBinary, decodeText } from '../../../../simulator/engines/websocket/decode.js'

test('text: a JSON object or array is its value, anything else the text itself', () => {
  assert.deepEqual(decodeText('{"id":"a","sentAt":1}', null), { event: 'message', args: [{ id: 'a', sentAt: 1 }] })
  assert.deepEqual(decodeText('  [1,2]', null), { event: 'message', args: [[1, 2]] })
  assert.deepEqual(decodeText('tick 3', null), { event: 'message', args: ['tick 3'] })
  assert.deepEqual(decodeText('{not json', null), { event: 'message', args: ['{not json'] })
  assert.deepEqual(decodeText('42', null), { event: 'message', args: ['42'] }, 'a bare JSON number stays text: told apart by content')
})

test('binary: the bytes, or their value when they are JSON', () => {
  const bytes = Buffer.from([1, 2, 3])
  assert.equal(decodeBinary(bytes, null).args?.[0], bytes)
  assert.deepEqual(decodeBinary(Buffer.from('{"id":7}'), null).args, [{ id: 7 }])
  const notJson = Buffer.from('{\x00\xff')
  assert.equal(decodeBinary(notJson, null).args?.[0], notJson)
})

test('--match: values of one field are alternatives, different fields must all match', () => {
  const match = compileMatcher([['type', 'score'], ['type', 'goal'], ['league.id', '7']])
  assert.ok(match)
  assert.equal(match({ type: 'score', league: { id: 7 } }), null, 'numbers compare as text')
  assert.equal(match({ type: 'goal', league: { id: '7' } }), null)
  assert.equal(match({ type: 'heartbeat', league: { id: 7 } }), 'type=heartbeat')
  assert.equal(match({ type: 'score', league: { id: 8 } }), 'league.id=8')
  assert.equal(match({ league: { id: 7 } }), 'type=(none)')
  assert.equal(match({ type: { nested: true } }), 'type={"nested":true}')
  assert.equal(String(match({ type: 'x'.repeat(100) })).length, 'type='.length + 60, 'labels are bounded')
  assert.equal(compileMatcher([]), null)
  assert.equal(compileMatcher(undefined), null)
})

test('a message --match leaves out is labelled with what it was', () => {
  const match = compileMatcher([['type', 'score']])
  assert.deepEqual(decodeText('{"type":"score","id":1}', match), { event: 'message', args: [{ type: 'score', id: 1 }] })
  assert.deepEqual(decodeText('{"type":"ping"}', match), { event: 'type=ping', args: null })
  assert.deepEqual(decodeText('hello', match), { event: 'text', args: null })
  assert.deepEqual(decodeBinary(Buffer.from([0]), match), { event: 'binary', args: null })
  assert.deepEqual(decodeBinary(Buffer.from('{"type":"score"}'), match), { event: 'message', args: [{ type: 'score' }] })
})
