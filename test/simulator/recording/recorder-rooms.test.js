import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createRoomBook } from '../../../simulator/recording/recorder-rooms.js'

/** @param {number[]} clients @param {number} words */
const bitsOf = (clients, words = 2) => {
  const bits = new Uint32Array(words)
  for (const c of clients) bits[c >>> 5] |= 1 << (c & 31)
  return bits
}

test('no room until one is assigned; a room\'s message is for its joined clients that are connected', () => {
  const rooms = createRoomBook()
  assert.equal(rooms.active(), false, 'no rooms: a room field means nothing')
  for (const i of [1, 2, 33]) rooms.assign(i, 'a')
  rooms.assign(3, 'b')
  assert.equal(rooms.active(), true)
  for (const i of [1, 2, 33]) rooms.setJoined(i, 'a', true)
  // Client 2 joined but is not connected; client 40 joined without being assigned (a server that placed it).
  rooms.setJoined(40, 'a', true)
  const a = rooms.target('a', bitsOf([1, 3, 33, 40]))
  assert.equal(a.expected, 3)
  assert.deepEqual([...a.expectedBits], [...bitsOf([1, 33, 40])])
  assert.deepEqual([...a.members].sort((x, y) => x - y), [1, 2, 33], 'the clients meant to be in it')
  rooms.setJoined(33, 'a', false)
  assert.equal(rooms.target('a', bitsOf([1, 3, 33, 40])).expected, 2, 'a client that left (or dropped) is no longer expected')
  const unknown = rooms.target('nowhere', bitsOf([1, 3]))
  assert.deepEqual([unknown.expected, unknown.members.size, [...unknown.expectedBits]], [0, 0, [0, 0]], 'a room unknown here: no one')
})
