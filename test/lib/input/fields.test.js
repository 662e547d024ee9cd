import { test } from 'node:test'
import assert from 'node:assert/strict'
import { fieldGetter, parseFieldPath, setField, toEpochMs } from '../../../lib/input/fields.js'

test('dot paths read nested fields and array items; missing ones are undefined', () => {
  const message = { id: 1, meta: { id: 'm1', items: [{ ts: 5 }] } }
  assert.equal(fieldGetter('id')(message), 1)
  assert.equal(fieldGetter('meta.id')(message), 'm1')
  assert.equal(fieldGetter('meta.items.0.ts')(message), 5)
  assert.equal(fieldGetter('meta.nope.x')(message), undefined)
  assert.equal(fieldGetter('id')('a string'), undefined)
  assert.equal(fieldGetter('id')(null), undefined)
})

test('setField makes the objects on the way', () => {
  const target = { a: 1 }
  setField(target, 'meta.sent.at', 9)
  assert.deepEqual(target, { a: 1, meta: { sent: { at: 9 } } })
})

test('bad paths are usage errors naming the flag', () => {
  assert.throws(() => parseFieldPath('a..b', '--id-field'), /^IoswarmError: --id-field must be a dot path/)
  assert.throws(() => parseFieldPath('a b', '--room-field'), /--room-field must be a dot path/)
  assert.equal(parseFieldPath('data.id', '--id-field'), 'data.id')
})

test('send times: seconds, ms, µs and ns told apart by size; ISO strings; anything else is no time', () => {
  const ms = 1764000000123
  assert.equal(toEpochMs(ms), ms)
  assert.equal(toEpochMs(ms / 1000), ms)
  assert.equal(toEpochMs(ms * 1000), ms)
  assert.equal(toEpochMs(ms * 1e6), ms)
  assert.equal(toEpochMs(String(ms)), ms)
  assert.equal(toEpochMs(new Date(ms).toISOString()), ms)
  assert.equal(toEpochMs(5), null)
  assert.equal(toEpochMs('soon'), null)
  assert.equal(toEpochMs(NaN), null)
  assert.equal(toEpochMs({}), null)
})

test('setField copies the objects on its way: a shared constant part of a template stays as it was', () => {
  const shared = { text: 'hi' }
  const target = { meta: shared }
  setField(target, 'meta.id', 'e1')
  assert.deepEqual(target, { meta: { text: 'hi', id: 'e1' } })
  assert.deepEqual(shared, { text: 'hi' })
})
