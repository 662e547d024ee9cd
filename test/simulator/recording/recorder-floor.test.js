import { test } from 'node:test'
import assert from 'node:assert/strict'
import { performance } from 'node:perf_hooks'
import { createRecorder } from '../../../simulator/recording/recorder.js'
import { messageFloor } from '../../../results/merge/aggregate.js'
import { busyShare } from '../../../lib/measure/process-sampler.js'
import { processCpuMs } from '../../../lib/measure/clock.js'
import { encodedDelay } from '../../results/make-reports.js'

/**
 * Keeps this process's main thread busy, allocating as it goes (so GC helper threads work beside
 * it), until it has used `cpuMs` of CPU; bounded by 5 s of wall time on a loaded machine.
 * @param {number} cpuMs
 */
function burn (cpuMs) {
  const start = processCpuMs()
  const deadline = Date.now() + 5000
  /** @type {unknown[]} */
  let garbage = []
  while (processCpuMs() - start < cpuMs && Date.now() < deadline) {
    garbage.push({ at: performance.now(), pad: new Array(64).fill(0) })
    if (garbage.length > 10_000) garbage = []
  }
  return garbage.length
}

test('busyShare: CPU over the wall time of the same interval, at most 100 % (helper threads run beside the main one)', () => {
  assert.equal(busyShare(5, 10), 0.5)
  assert.equal(busyShare(17.2, 10), 1, 'a process at 172 % of one core is busy all along, not 172 % busy')
  assert.equal(busyShare(0, 10), 0)
  assert.equal(busyShare(3, 0), null, 'no interval, no share')
  assert.equal(busyShare(Number.NaN, 10), null)
})

test('a saturated simulator (its loop busy for the whole drain) reads about 100 % busy, never more', () => {
  const rec = createRecorder({ clients: 4, messageTimeoutMs: 60000 })
  for (let i = 0; i < 4; i++) rec.setConnected(i, true)
  // What this process itself sees over the same drain: the recorder's share must match it.
  const wall0 = performance.now()
  const cpu0 = processCpuMs()
  rec.receive(0, 'e', [{ id: 'saturated' }])
  burn(40)
  rec.receive(1, 'e', [{ id: 'saturated' }])
  burn(40)
  for (let i = 2; i < 4; i++) rec.receive(i, 'e', [{ id: 'saturated' }])
  const ownShare = (processCpuMs() - cpu0) / (performance.now() - wall0)
  rec.closeAll()
  const [report] = rec.reports()
  assert.ok(report.floor && report.floor.spreadMs >= 40, `a drain as long as the burn: ${JSON.stringify(report.floor)}`)
  const share = /** @type {number} */ (busyShare(report.floor.cpuMs, report.floor.spreadMs))
  assert.ok(share <= 1, `busy ${share}: never above 100 %`)
  // On a quiet machine both are about 1; on a loaded one the burn gets less CPU than wall time,
  // and the recorder must say so as this process does.
  assert.ok(Math.abs(share - Math.min(1, ownShare)) <= 0.1, `busy ${share} vs ${ownShare} measured around the same drain`)
  const merged = messageFloor([{ simulator: 's1', report }])
  assert.ok(merged && merged.busyMax <= 1 && merged.busyMax === Math.round(share * 1000) / 1000)
})

test('floors whose CPU passed their wall time (helper threads, older simulators) read 100 % in the run\'s merge', () => {
  const report = {
    key: 'e:m1',
    id: 'm1',
    event: 'e',
    round: 1,
    seq: 1,
    sentAt: null,
    firstAt: 0,
    received: 4,
    expected: 4,
    missing: 0,
    duplicates: 0,
    late: 0,
    relative: encodedDelay([1, 2]),
    absolute: null,
    floor: { cpuMs: 1.72, spreadMs: 1 }
  }
  assert.equal(
    messageFloor([{ simulator: 's1', report: /** @type {any} */ (report) }])?.busyMax,
    1,
    'busiest 172 % was helper threads\' CPU counted as busy time'
  )
})
