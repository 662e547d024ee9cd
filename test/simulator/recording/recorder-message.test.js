import { test } from 'node:test'
import assert from 'node:assert/strict'
import { closedReport, expectedOf, missingByClient, openMessage } from '../../../simulator/recording/recorder-message.js'
import { identify } from '../../../simulator/recording/recorder.js'
import { createConnectBook } from '../../../simulator/recording/recorder-connects.js'
import { recordMs } from '../../../lib/measure/histogram.js'

/** @param {number[]} clients @param {number} words */
const bitsOf = (clients, words = 2) => {
  const bits = new Uint32Array(words)
  for (const c of clients) bits[c >>> 5] |= 1 << (c & 31)
  return bits
}

test('who a message is for: the connected clients or the room\'s, never its sender; the connected set is not changed', () => {
  const connected = bitsOf([0, 5, 33, 40])
  const all = expectedOf(connected, null, -1)
  assert.equal(all.expected, 4)
  const bySender = expectedOf(connected, null, 33)
  assert.deepEqual([bySender.expected, [...bySender.expectedBits]], [3, [...bitsOf([0, 5, 40])]])
  assert.deepEqual([...connected], [...bitsOf([0, 5, 33, 40])], 'a copy')
  assert.equal(expectedOf(connected, null, 7).expected, 4, 'a sender that is not connected changes nothing')
  const room = expectedOf(connected, { expectedBits: bitsOf([5, 40]), expected: 2, members: new Set([5, 40, 41]) }, 40)
  assert.deepEqual([room.expected, [...room.expectedBits]], [1, [...bitsOf([5])]])
})

test('who a message is for, by its send time: not the clients that connected after it was sent; nor its sender; unknown time: everyone connected', () => {
  const connected = bitsOf([0, 5, 33, 40, 41])
  const connects = createConnectBook(64)
  for (const c of [0, 5, 33, 40]) connects.connected(c, 100)
  connects.connected(41, 250) // connected between the send (200) and the first receipt
  connects.connected(5, 260) // dropped and came back after the send: this session was never owed it
  const sent = expectedOf(connected, null, -1, connects, 200)
  assert.deepEqual([sent.expected, [...sent.expectedBits]], [3, [...bitsOf([0, 33, 40])]])
  assert.deepEqual([...connected], [...bitsOf([0, 5, 33, 40, 41])], 'the connected set is not changed')
  const bySender = expectedOf(connected, null, 5, connects, 200)
  assert.equal(bySender.expected, 3, 'a sender that reconnected since is cleared once, not twice')
  assert.equal(expectedOf(connected, null, 33, connects, 200).expected, 2)
  assert.equal(expectedOf(connected, null, -1, connects, NaN).expected, 5, 'no send time: everyone connected at the first receipt')
  assert.equal(expectedOf(connected, null, -1, null, 200).expected, 5, 'no connect times')
  assert.equal(expectedOf(connected, null, -1, connects, 300).expected, 5, 'sent after every connect')
  const room = expectedOf(connected, { expectedBits: bitsOf([5, 40, 41]), expected: 3, members: new Set([5, 40, 41]) }, -1, connects, 200)
  assert.deepEqual([room.expected, [...room.expectedBits]], [1, [...bitsOf([40])]], 'a room\'s clients too')
})

test('a message from its first receipt to its report: missing counted, floor, histograms summed up; missing clients named', () => {
  const identity = identify([{ id: 'm1', batch: 'b', round: 2, seq: 1, sentAt: Date.now(), room: 'r' }])
  const message = openMessage({
    key: 'tick:b/m1',
    event: 'tick',
    namespace: '/',
    identity,
    targeted: false,
    expecting: expectedOf(bitsOf([1, 2, 3]), null, -1),
    members: null,
    sender: -1,
    now: 50,
    cpuMs: 7,
    window: -1
  })
  assert.deepEqual([message.report.room, message.report.batch, message.report.expected, message.absolute !== null], [null, 'b', 3, true])
  message.receivedBits[0] |= 1 << 2
  message.receivedExpected = 1
  message.report.received = 1
  recordMs(message.relative, 4)
  Object.assign(message, { cpuEndMs: 9.5, cpuEndMono: 54 })
  const report = closedReport(message)
  assert.equal(report.missing, 2)
  assert.deepEqual(report.floor, { cpuMs: 2.5, spreadMs: 4 })
  assert.equal(report.relative.count, 1)
  assert.equal(report.absolute?.count, 0)
  /** @type {number[]} */
  const missing = []
  missingByClient(message, (i) => missing.push(i))
  assert.deepEqual(missing, [1, 3])
  const spec = { key: 'k', event: 'e', namespace: '/a', targeted: true, members: new Set([1]), sender: -1, now: 0, cpuMs: 0, window: 3 }
  const noSentAt = openMessage({ ...spec, identity: identify(['text']), expecting: { expectedBits: bitsOf([]), expected: 0 } })
  assert.deepEqual([noSentAt.absolute, closedReport(noSentAt).absolute, noSentAt.window], [null, null, 3])
})
