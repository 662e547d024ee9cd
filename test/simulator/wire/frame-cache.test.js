import { test } from 'node:test'
import assert from 'node:assert/strict'
import { FrameCache } from '../../../simulator/wire/frame-cache.js'

test('finds a frame by bytes or text and shares its decoded args', () => {
  const cache = new FrameCache()
  const text = '42["broadcast",{"id":"é"}]'
  const decoded = { event: 'broadcast', args: [{ id: 'é' }] }
  assert.equal(cache.findBytes(Buffer.from(text)), null)
  cache.add(text, decoded)
  assert.equal(cache.findBytes(Buffer.from(text))?.args, decoded.args)
  assert.equal(cache.findText(text)?.args, decoded.args)
  assert.equal(cache.findText(`${text} `), null)
  assert.equal(cache.findBytes(Buffer.from('42["broadcast",{"id":"e"}]')), null)
  assert.equal(cache.hits, 2)
})

test('is bounded in entries and frame size', () => {
  const cache = new FrameCache({ entries: 3, maxFrameBytes: 10 })
  for (let k = 0; k < 5; k++) cache.add(`42[${k}]`, { event: String(k), args: [] })
  assert.equal(cache.ring.length, 3)
  assert.deepEqual(cache.ring.map((e) => e?.event).sort(), ['2', '3', '4'])
  assert.equal(cache.findText('42[0]'), null, 'the oldest was evicted')
  cache.add('42["0123456789"]', { event: 'big', args: [] })
  assert.equal(cache.findText('42["0123456789"]'), null, 'too large to keep')
  cache.add('42["éééé"]', { event: 'wide', args: [] })
  assert.equal(cache.findText('42["éééé"]'), null, 'bytes count, not characters')
})

test('keeps its own copy of a text sliced from a larger response', () => {
  const cache = new FrameCache()
  const body = `42["a"]\x1e${'x'.repeat(1000)}`
  cache.add(body.slice(0, 7), { event: 'a', args: [] })
  assert.equal(cache.findBytes(Buffer.from('42["a"]'))?.event, 'a')
})
