import { test } from 'node:test'
import assert from 'node:assert/strict'
import { CPU_READ_MS, createCpuReader, floorOf } from '../../../simulator/recording/recorder-cpu.js'

test('the floor\'s CPU reads: exact at the first receipt and at the one that drains the message, else at most CPU_READ_MS old', () => {
  let reads = 0
  const cpu = createCpuReader(() => 100 + 10 * ++reads)
  const marks = { firstMono: 1000, cpuFirstMs: cpu.first(1000), cpuEndMs: 0, cpuEndMono: 1000, drained: false }
  assert.equal(marks.cpuFirstMs, 110)
  cpu.receipt(marks, 1000 + CPU_READ_MS / 2, false)
  assert.deepEqual([reads, marks.cpuEndMs, marks.cpuEndMono], [1, 110, 1000], 'a read younger than CPU_READ_MS is reused')
  cpu.receipt(marks, 1000 + CPU_READ_MS, false)
  assert.deepEqual([reads, marks.cpuEndMs, marks.cpuEndMono], [2, 120, 1000 + CPU_READ_MS], 'an older one is read again')
  cpu.receipt(marks, 1000 + CPU_READ_MS + 0.1, true)
  assert.deepEqual([reads, marks.cpuEndMs, marks.drained], [3, 130, true], 'the receipt that drains it reads exactly')
  assert.deepEqual(floorOf(marks), { cpuMs: 20, spreadMs: 1.1 })
})

test('one reader serves every message of a recorder: a read made for one is reused by another within CPU_READ_MS', () => {
  let reads = 0
  const cpu = createCpuReader(() => ++reads)
  const a = { firstMono: 0, cpuFirstMs: cpu.first(0), cpuEndMs: 0, cpuEndMono: 0, drained: false }
  const b = { firstMono: 0, cpuFirstMs: 0, cpuEndMs: 0, cpuEndMono: 0, drained: false }
  cpu.receipt(b, 0.5, false)
  assert.deepEqual([reads, b.cpuEndMs, a.cpuFirstMs], [1, 1, 1])
})
