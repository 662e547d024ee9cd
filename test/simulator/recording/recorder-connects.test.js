import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createConnectBook } from '../../../simulator/recording/recorder-connects.js'

/** @param {number[]} clients @param {number} words */
const bitsOf = (clients, words) => {
  const bits = new Uint32Array(words)
  for (const c of clients) bits[c >>> 5] |= 1 << (c & 31)
  return bits
}
/** @param {Uint32Array} bits */
const clientsOf = (bits) => {
  const out = []
  for (let c = 0; c < bits.length * 32; c++) if (bits[c >>> 5] & (1 << (c & 31))) out.push(c)
  return out
}

test('clears the clients whose current session connected after the send time, each once; the rest stay', () => {
  const book = createConnectBook(70)
  for (let c = 0; c < 64; c++) book.connected(c, 1000 + c) // client c at 1000 + c
  book.connected(3, 2000) // client 3 connected again after the send
  book.connected(63, 2001)
  const bits = bitsOf([0, 3, 10, 40, 50, 63], 3)
  assert.equal(book.clearAfter(bits, 1045), 3, 'clients 50 and 63 connected after it, client 3 again')
  assert.deepEqual(clientsOf(bits), [0, 10, 40])
  assert.equal(book.clearAfter(bits, 5000), 0, 'sent after every connect: no one cleared')
  assert.deepEqual(clientsOf(bits), [0, 10, 40])
  const all = bitsOf([0, 1, 2, 31, 32], 3)
  assert.equal(book.clearAfter(all, 999), 5, 'sent before any connect')
  assert.deepEqual(clientsOf(all), [])
})

test('past the ring (more connects since the send than it holds): the expected set is scanned, and the ring grows', () => {
  const clients = 5000
  const book = createConnectBook(clients)
  // 3,000 connects after time 0: more than the ring's first 1,024 entries.
  for (let c = 0; c < 3000; c++) book.connected(c, 10 + c)
  const expected = bitsOf(Array.from({ length: clients }, (_, c) => c), Math.ceil(clients / 32))
  assert.equal(book.clearAfter(expected, 500), 3000 - 491, 'clients 491 … 2999 connected after 500, found by the scan')
  assert.deepEqual(clientsOf(expected).slice(0, 3), [0, 1, 2])
  assert.equal(clientsOf(expected).length, clients - (3000 - 491))
  // The ring grew and kept its newest entries in time order: later walks find them.
  for (let c = 3000; c < 3100; c++) book.connected(c, 10 + c)
  const some = bitsOf([5, 2500, 3050, 3099, 4000], Math.ceil(clients / 32))
  assert.equal(book.clearAfter(some, 3040), 2, 'clients 3050 and 3099')
  assert.deepEqual(clientsOf(some), [5, 2500, 4000])
  const again = bitsOf([5, 2500, 3050], Math.ceil(clients / 32))
  assert.equal(book.clearAfter(again, 2400), 2, 'client 2500 (an entry the grown ring kept) and 3050')
  assert.deepEqual(clientsOf(again), [5])
})

test('a ring as large as the clients still answers when reconnects overwrite it', () => {
  const book = createConnectBook(4)
  for (let k = 0; k < 20; k++) book.connected(k % 4, k) // four clients reconnecting in turn
  const bits = bitsOf([0, 1, 2, 3], 1)
  assert.equal(book.clearAfter(bits, 17.5), 2, 'clients 2 (at 18) and 3 (at 19)')
  assert.deepEqual(clientsOf(bits), [0, 1])
  const older = bitsOf([0, 1, 2, 3], 1)
  assert.equal(book.clearAfter(older, 3), 4, 'every current session began after 3: the scan says so')
})
