import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { capacityStepsCsv } from '../../../results/files/capacity-csv.js'

test('steps.csv: a header and one row per step with its figures and verdict, spreadsheet-safe', () => {
  /** @type {import('../../../lib/schema/capacity-schema.js').CapacityResult} */
  const result = JSON.parse(readFileSync(new URL('../../fixtures/capacity-small.json', import.meta.url), 'utf8'))
  const rows = capacityStepsCsv(result).trimEnd().split('\r\n')
  assert.equal(rows.length, 1 + result.steps.length)
  const header = rows[0].split(',')
  assert.deepEqual(header.slice(0, 4), ['step', 'phase', 'clients', 'connected'])
  const first = rows[1].split(',')
  assert.equal(first[header.indexOf('clients')], String(result.steps[0].clients))
  assert.equal(first[header.indexOf('verdict')], 'pass')
  const failing = rows.find((r) => r.includes(',fail,'))
  assert.ok(failing?.includes('p99<200ms'), 'the failed SLO is named')
  const hostile = capacityStepsCsv({ ...result, steps: [{ ...result.steps[0], why: '=HYPERLINK("x")' }] })
  assert.match(hostile, /,"'=HYPERLINK\(""x""\)"\r\n$/)
})
