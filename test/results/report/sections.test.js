import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { caveats, header, overview } from '../../../results/report/sections.js'

/** @param {string} name @returns {import('../../../lib/schema/result-schema.js').RunResult} */
const fixture = (name) => JSON.parse(readFileSync(new URL(`../../fixtures/${name}`, import.meta.url), 'utf8'))

test('caveats name saturated and stale simulators, missing deliveries, failed clients and silent distributions', () => {
  assert.deepEqual(caveats(fixture('run-sparse.json')), [
    '2x500: simulator 2x500-sim-1 was saturated for 3 s; the delays it measured then may be its own, not the server\'s',
    '2x500: 1 delivery missing (clients connected when a message came that never got it)',
    '2x500: 2x500-sim-1: storm at 10:00:12 UTC: 20 clients dropped (transport close: 20); back: 50 % in 1500ms, 90 % in 1900ms, 99 % in 2000ms, all in 2000ms; 23 attempts, failed: xhr poll error: 3; sessions recovered: 0, gap messages replayed: 0, lost: 20',
    '2x500: 3 copies misdelivered (to clients not in the message\'s room)',
    '2x500: 2 copies duplicated (a second copy to one client)',
    '2x500: namespace /chat refused 4 connects',
    '2x500: 4 of 1000 joins (join) failed',
    '2x500: 8 of 2400 emits (chat) were never acked, 2 failed',
    '2x500: the scenario\'s hooks threw 3 errors',
    '4x250: simulator 4x250-sim-4 stopped reporting before the end (stale)',
    '4x250: 1000 of 1000 clients never connected',
    '4x250: no message reached any simulator'
  ])
})

test('a clean run says it has no caveats', () => {
  const run = fixture('run-small.json')
  const clean = {
    ...run,
    distributions: [{
      ...run.distributions[1],
      simulatorList: run.distributions[1].simulatorList.map((s) => ({ ...s, health: null, stale: false })),
      clients: { ...run.distributions[1].clients, failed: 0, storms: [] }
    }]
  }
  assert.deepEqual(caveats(clean), [])
  assert.match(overview(clean), /No caveats/)
})

test('the header shows name, id, date, target and a link per distribution', () => {
  const html = header(fixture('run-small.json'), undefined)
  assert.match(html, /<h1>fixture small<\/h1>/)
  assert.match(html, /ioswarm run run-fixture-small · 2024-06-01 10:00:00 UTC · 53 s/)
  assert.match(html, /<dt>target<\/dt><dd>http:\/\/127\.0\.0\.1:3000 \(reference server\)<\/dd>/)
  assert.match(html, /<a href="#dist-2">Distribution 4x250<\/a>/)
  assert.doesNotMatch(html, /report generated/)
})
