import { test } from 'node:test'
import assert from 'node:assert/strict'
import { partitionSwarm, pickEmitters } from '../../../simulator/processes/partition.js'
import { compileIdentities } from '../../../simulator/sessions/identity.js'
import { normalizeSimOptions } from '../../../simulator/sim-options.js'

/**
 * What a split swarm does, client by client in run order: whether each client emits and its
 * room, read the way each part's own process reads them (its pick and its identities).
 * @param {import('../../../simulator/processes/partition.js').SwarmPart[]} parts
 */
function clientsOf (parts) {
  return parts.flatMap((p) => {
    const room = Math.max(p.clients, p.maxClients ?? 0)
    const emits = pickEmitters(room, p.clientOffset, p.emitters)
    const identities = compileIdentities({ rooms: p.rooms, clientOffset: p.clientOffset }, { simId: `part${p.index}` })
    return Array.from({ length: room }, (_, i) => ({ index: p.clientOffset + i, emits: emits[i] === 1, room: identities.roomOf(i) }))
  })
}

/** @type {import('../../../simulator/processes/partition.js').SwarmWhole[]} */
const WHOLES = [
  { clients: 6, emitters: { share: 0.5 }, rooms: 4 },
  { clients: 101, clientOffset: 40, emitters: { share: 0.1 }, rooms: 3 },
  { clients: 1000, emitters: { share: 0.25 }, rooms: null },
  { clients: 7, clientOffset: 3, emitters: { share: 1 / 3 }, rooms: 2 },
  { clients: 50, emitters: { count: 9 }, rooms: 5 },
  { clients: 20, emitters: { count: 25 }, rooms: 2 },
  // capacity: room to grow to maxClients; the emitters are picked over all of it
  { clients: 30, maxClients: 95, emitters: { share: 0.2 }, rooms: 4 },
  // a part of a part: --workers inside a run's simulator
  { clients: 64, clientOffset: 128, emitters: { count: 10 }, rooms: 8, sourcePortSlice: { index: 1, count: 3 } }
]

test('the same swarm split 1, 2, 3 and 7 ways picks the same emitters and rooms, client by client', () => {
  for (const whole of WHOLES) {
    const one = clientsOf(partitionSwarm(whole, 1))
    const span = Math.max(whole.clients, whole.maxClients ?? 0)
    const wanted = 'share' in whole.emitters ? Math.round(whole.emitters.share * span) : Math.min(whole.emitters.count, span)
    assert.equal(one.filter((c) => c.emits).length, wanted, `${JSON.stringify(whole)}: a share is exact over the whole, a count is the whole's`)
    for (const n of [2, 3, 7]) {
      assert.deepEqual(clientsOf(partitionSwarm(whole, n)), one, `${JSON.stringify(whole)} in ${n} parts`)
    }
  }
  // Rounding each half on its own would give 2 + 2 of 6 at 50 %.
  assert.deepEqual(partitionSwarm({ clients: 6, emitters: { share: 0.5 } }, 2).map((p) => p.emitters.count), [2, 1])
})

test('the parts add up: clients and room to grow, contiguous client indices, disjoint source-port slices', () => {
  for (const whole of WHOLES) {
    for (const n of [1, 2, 3, 7]) {
      const parts = partitionSwarm(whole, n)
      const label = `${JSON.stringify(whole)} in ${n} parts`
      assert.equal(parts.reduce((sum, p) => sum + p.clients, 0), whole.clients, label)
      assert.ok(Math.max(...parts.map((p) => p.clients)) - Math.min(...parts.map((p) => p.clients)) <= 1, `${label}: as even as it gets`)
      if (whole.maxClients !== undefined) assert.equal(parts.reduce((sum, p) => sum + (p.maxClients ?? NaN), 0), whole.maxClients, label)
      else assert.ok(parts.every((p) => !('maxClients' in p)), `${label}: no room to grow unless the whole has it`)
      let next = whole.clientOffset ?? 0
      for (const p of parts) {
        assert.equal(p.clientOffset, next, `${label}: part ${p.index} starts where the one before ends`)
        next += Math.max(p.clients, p.maxClients ?? 0)
      }
      const parent = whole.sourcePortSlice ?? { index: 0, count: 1 }
      // Slice (index, count) of the port range is [index / count, (index + 1) / count).
      const ranges = parts.map(({ sourcePortSlice: { index, count } }) => [index / count, (index + 1) / count]).sort((a, b) => a[0] - b[0])
      for (let k = 1; k < ranges.length; k++) assert.ok(ranges[k][0] >= ranges[k - 1][1] - 1e-12, `${label}: slices overlap`)
      assert.ok(
        Math.abs(ranges[0][0] - parent.index / parent.count) < 1e-12 && Math.abs(ranges[ranges.length - 1][1] - (parent.index + 1) / parent.count) < 1e-12,
        `${label}: within the whole's slice`
      )
    }
  }
  assert.throws(() => partitionSwarm(WHOLES[0], 0), RangeError)
})

test('simulate --part K/N --phases: the profile is the whole swarm\'s, each part follows its slice of every step', () => {
  const input = { url: 'http://127.0.0.1:3000', phases: 'ramp 10s to 10, hold 1m, ramp 5s to 3', emitters: 4, clientOffset: 100 }
  const parts = [0, 1, 2, 3].map((k) => normalizeSimOptions({ ...input, part: `${k}/4` }))
  assert.deepEqual(parts.map((p) => p.clients), [3, 3, 2, 2], 'the peak of 10 split 4 ways')
  assert.deepEqual(parts.map((p) => p.phases?.map((s) => s.to)), [[3, undefined, 1], [3, undefined, 1], [2, undefined, 1], [2, undefined, 0]])
  assert.deepEqual(parts.map((p) => p.clientOffset), [100, 103, 106, 108], 'contiguous indices from --client-offset')
  assert.equal(parts.reduce((sum, p) => sum + ('count' in p.emitters ? p.emitters.count : 0), 0), 4, 'the whole\'s 4 emitters, once')
  assert.throws(() => normalizeSimOptions({ ...input, part: '10/11' }), /--part 10\/11 has no client of --phases' peak of 10 to run/)
})

test('simulate --part K/N: part K of N equal parts, the same clients and emitters as the whole split N ways', () => {
  const input = { url: 'http://127.0.0.1:3000', clients: 40, emitters: '15%', rooms: 3, clientOffset: 1000 }
  const whole = partitionSwarm({ clients: 4 * 40, clientOffset: 1000, emitters: { share: 0.15 }, rooms: 3 }, 4)
  for (let k = 0; k < 4; k++) {
    const own = normalizeSimOptions({ ...input, part: `${k}/4` })
    assert.deepEqual([own.clients, own.clientOffset, own.emitters], [40, whole[k].clientOffset, whole[k].emitters], `part ${k}`)
  }
  assert.equal(whole.reduce((sum, p) => sum + p.emitters.count, 0), 24, '15 % of 160')
  const alone = normalizeSimOptions({ url: 'http://127.0.0.1:3000', clients: 40, emitters: '15%' })
  assert.deepEqual([alone.clientOffset, alone.emitters], [0, { share: 0.15 }], 'without --part: the whole swarm')
  for (const bad of ['4/4', '1', 'a/b', '-1/3', '0/0']) {
    assert.throws(() => normalizeSimOptions({ ...input, part: bad }), /--part must be K\/N/, bad)
  }
})
