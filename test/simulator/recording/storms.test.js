import { test } from 'node:test'
import assert from 'node:assert/strict'
import { STORM_MIN_CLIENTS, createStormTracker } from '../../../simulator/recording/storms.js'
import { wallMs } from '../../../lib/measure/clock.js'

test('a wave of drops is one storm, from the first drop until the last dropped client is back', () => {
  const storms = createStormTracker(20)
  for (let i = 0; i < 10; i++) storms.dropped(i, i < 8 ? 'transport close' : 'ping timeout', 20 - i)
  storms.failed('xhr poll error')
  for (let i = 0; i < 12; i++) storms.attempt()
  for (let i = 0; i < 9; i++) storms.connected(i)
  const open = storms.record().list
  assert.equal(open.length, 1)
  assert.deepEqual([open[0].dropped, open[0].back, open[0].endedMs, open[0].backMs.p100], [10, 9, null, null], 'still open: the last one is not back')
  storms.connected(9)
  storms.connected(15) // never dropped: not counted
  const [storm] = storms.record().list
  assert.deepEqual([storm.dropped, storm.back, storm.attempts], [10, 10, 12])
  assert.deepEqual(storm.reasons, { 'transport close': 8, 'ping timeout': 2 })
  assert.deepEqual(storm.errors, { 'xhr poll error': 1 })
  assert.ok(storm.endedMs !== null && storm.backMs.p100 === storm.endedMs)
  assert.equal(storms.record().list.length, 1, 'closed once every dropped client was back')
})

test('a few clients dropping from a big swarm is no storm; every client of a small one is', () => {
  const big = createStormTracker(100)
  for (let i = 0; i < STORM_MIN_CLIENTS - 1; i++) big.dropped(i, 'transport close', 100)
  for (let i = 0; i < STORM_MIN_CLIENTS - 1; i++) big.connected(i)
  assert.deepEqual(big.record().list, [])
  const small = createStormTracker(2)
  small.dropped(0, 'transport close', 2)
  small.dropped(1, 'transport close', 1)
  small.connected(0)
  small.connected(1)
  assert.equal(small.record().list.length, 1)
})

test('the gap: deliveries owed to clients that were away when a message was sent, replayed or lost; recovered sessions', () => {
  const storms = createStormTracker(10)
  const t0 = Date.now()
  for (let i = 0; i < 6; i++) storms.dropped(i, 'transport close', 10 - i)
  assert.ok(storms.following())
  const sentAt = wallMs() // sent once they were all away (wall clock, ms)
  storms.message(8, 'gap', sentAt) // a client that stayed: owed to the 6 away
  storms.message(8, 'gap', sentAt)
  storms.message(9, 'before', t0 - 60000) // sent before the storm: owed to no one
  for (let i = 0; i < 4; i++) storms.connected(i, i < 3)
  storms.message(0, 'gap', sentAt) // replayed to a recovered client
  storms.message(0, 'gap', sentAt) // a duplicate is no second replay
  storms.message(1, 'before', t0 - 60000)
  let [storm] = storms.record().list
  assert.deepEqual([storm.recovered, storm.replayed, storm.lost], [3, 1, 5])
  storms.connected(4)
  storms.connected(5)
  storms.message(2, 'gap', sentAt) // after every client is back, a replay still counts
  storms.message(2, 'after', Date.now() + 60000) // sent after they were back: owed to no one
  ;[storm] = storms.record().list
  assert.deepEqual([storm.back, storm.recovered, storm.replayed, storm.lost], [6, 3, 2, 4])
})
