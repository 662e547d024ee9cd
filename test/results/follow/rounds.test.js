import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { formatRoundLine } from '../../../results/follow/rounds.js'

/** @returns {import('../../../lib/schema/result-schema.js').RunResult} */
const fixture = () => JSON.parse(readFileSync(new URL('../../fixtures/run-small.json', import.meta.url), 'utf8'))

test('a round line has reach, relative and absolute delays, and the simulators\' floor next to them', () => {
  const [busy, calm] = fixture().distributions[0].rounds
  assert.equal(formatRoundLine(1, busy, { complete: true, simulators: 2 }),
    'round 1: 5 messages × 2 simulators, reached 5000, missing 0, relative p50 5.30ms p99 18.3ms max 31.4ms, absolute p50 8.30ms p99 21.3ms; ' +
    'simulator floor p50 24.1ms max 26.8ms (in a 28.3ms spread), busiest 95%')
  assert.match(formatRoundLine(2, calm, { complete: false, simulators: 2 }),
    /; simulator floor p50 1\.36ms max 1\.52ms \(in a 33\.7ms spread\), busiest 6% \(incomplete: some simulators had not reported every message in time\)$/)
})

test('a round from simulators without a floor (older versions) prints without one', () => {
  const [round] = fixture().distributions[0].rounds
  const line = formatRoundLine(1, { ...round, floor: null }, { complete: true, simulators: 2 })
  assert.doesNotMatch(line, /floor/)
  assert.match(line, /absolute p50 8\.30ms p99 21\.3ms$/)
  assert.equal(formatRoundLine(3, null, { complete: false, simulators: 2 }), 'round 3: no simulator reported a message yet (2 simulators)')
})

test('a round with copies to the wrong clients or twice says so in capitals; a clean one says nothing of them', () => {
  const [round] = fixture().distributions[0].rounds
  assert.doesNotMatch(formatRoundLine(1, round, { complete: true, simulators: 2 }), /MISDELIVERED|DUPLICATED/)
  const line = formatRoundLine(1, { ...round, misdelivered: 4, duplicates: 1 }, { complete: true, simulators: 2 })
  assert.match(
    line,
    /reached 5000, missing 0, relative p50 5\.30ms p99 18\.3ms max 31\.4ms, absolute p50 8\.30ms p99 21\.3ms, MISDELIVERED 4, DUPLICATED 1; simulator floor/
  )
})
