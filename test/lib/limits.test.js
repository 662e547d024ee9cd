import { test } from 'node:test'
import assert from 'node:assert/strict'
import { formatMiB, judgeLimits, readLimits, WARN_RATIO } from '../../lib/limits.js'

test('readLimits reads this machine\'s open files, port range and free memory', () => {
  const limits = readLimits()
  assert.ok(limits.fdSoft > 0 && limits.fdHard >= limits.fdSoft, JSON.stringify(limits))
  assert.ok(limits.ports > 0 && limits.freeBytes > 0)
  assert.match(limits.portRange, /^\d+ \d+$|^unknown$/)
})

test('judgeLimits: over a limit is an error with how to raise it, over 80 % a warning, else nothing', () => {
  const { errors, warnings } = judgeLimits([
    { text: 'fds: needs 120, limit 100', need: 120, limit: 100, how: 'raise it' },
    { text: 'ports: needs 90, limit 100', need: 90, limit: 100, how: 'spread' },
    { text: 'memory: needs 10, limit 100', need: 10, limit: 100, how: 'fewer' }
  ])
  assert.deepEqual(errors, ['fds: needs 120, limit 100; raise it'])
  assert.deepEqual(warnings, [`ports: needs 90, limit 100 (over ${WARN_RATIO * 100} %)`])
  assert.equal(formatMiB(3 * 1048576), '3 MiB')
})
