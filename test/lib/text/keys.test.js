import { test } from 'node:test'
import assert from 'node:assert/strict'
import { KEY_SEPARATOR, joinKey } from '../../../lib/text/keys.js'

test('a key joins its parts by NUL, each printed as a template literal prints it', () => {
  assert.equal(KEY_SEPARATOR, '\u0000')
  assert.equal(joinKey('/chat', 'room-1'), '/chat\u0000room-1')
  assert.equal(joinKey('news', null), 'news\u0000null')
  assert.equal(joinKey(3, 'm'), `${3}\u0000${'m'}`)
  assert.notEqual(joinKey('a\u0001', 'b'), joinKey('a', '\u0001b'))
})
