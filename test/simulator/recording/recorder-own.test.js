import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createOwnLines } from '../../../simulator/recording/recorder-own.js'
import { identify, messageFields } from '../../../simulator/recording/recorder.js'
import { ownId } from '../../../simulator/traffic/own-ids.js'
import { wallMs } from '../../../lib/measure/clock.js'

const fields = messageFields({ idField: 'id' })
const own = () => createOwnLines({ idOf: fields.id, contentIdOf: (args) => identify(args, fields).id, remembered: 8 })

test('a line is known by its id, a string by itself and its hash, anything else by its hash; each sender is told once', () => {
  const lines = own()
  lines.note(3, [{ id: 'm1', text: 'hi' }])
  lines.note(4, ['hello from 4'])
  lines.note(5, [[1, 2]])
  assert.equal(lines.take('m1'), 3)
  assert.equal(lines.take('m1'), undefined, 'forgotten once asked')
  assert.equal(lines.take('hello from 4'), 4, 'a server that wraps the string: read with --id-field message')
  assert.equal(lines.take(identify(['hello from 4'], fields).id), 4, 'relayed unchanged: its hash')
  assert.equal(lines.take(identify([[1, 2]], fields).id), 5)
  assert.equal(lines.take('never sent'), undefined)
})

test('each remembered line\'s send time on this clock; none for a stamped --emit id (its sentAt says) or a line not ours', () => {
  const lines = createOwnLines({ idOf: fields.id, contentIdOf: (args) => identify(args, fields).id, remembered: 8, clientOffset: 100, clients: 10 })
  const before = wallMs()
  lines.note(3, [{ id: 'm1' }])
  const after = wallMs()
  lines.note(4, [{ id: 'm2' }])
  assert.equal(lines.take('m1'), 3)
  const sentMs = lines.sentMs()
  assert.ok(sentMs >= before && sentMs <= after, `${before} <= ${sentMs} <= ${after}`)
  assert.equal(lines.take(ownId(105, 1)), 5, 'a stamped id names its sender')
  assert.ok(Number.isNaN(lines.sentMs()))
  assert.equal(lines.take('m2'), 4)
  assert.ok(lines.sentMs() >= after)
  assert.equal(lines.take('not ours'), undefined)
  assert.ok(Number.isNaN(lines.sentMs()))
  // Past the bound the rings are reused: a kept id still reads its own sender and time.
  for (let k = 0; k < 12; k++) lines.note(k % 10, [{ id: `n${k}` }])
  assert.deepEqual([lines.take('n3'), lines.take('n7'), lines.take('n11')], [undefined, 7, 1], 'n3 dropped with its generation')
  assert.ok(lines.sentMs() >= after)
})

test('bounded: two generations of half the bound, the older dropped whole when the newer is full', () => {
  const lines = own()
  for (let k = 0; k < 12; k++) lines.note(k, [{ id: `m${k}` }])
  // remembered 8: generations of 4; after 12 notes the newest 4 are current, the 4 before them the older generation.
  assert.deepEqual(Array.from({ length: 12 }, (_, k) => lines.take(`m${k}`) ?? null), [null, null, null, null, 4, 5, 6, 7, 8, 9, 10, 11])
})
