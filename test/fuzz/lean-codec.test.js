/**
 * Property-based fuzzing of the lean engine's decoding, bounded for CI: a fixed number of
 * runs per property and a time limit. bench/fuzz.js runs the same properties for minutes.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import fc from 'fast-check'
import { createHarness, leanProperties } from './lean-properties.js'

const RUNS = 400
const TIME_LIMIT_MS = 1000

test('the lean decoding survives random, mutated and truncated input', async (t) => {
  const harness = { all: createHarness(false), filtered: createHarness(true) }
  t.after(() => { harness.all.close(); harness.filtered.close() })
  for (const [name, property] of Object.entries(leanProperties(harness))) {
    await t.test(name, () => {
      const details = fc.check(property, { numRuns: RUNS, interruptAfterTimeLimit: TIME_LIMIT_MS })
      assert.equal(details.failed, false, `${name}: ${fc.defaultReportMessage(details)}`)
      assert.ok(details.numRuns > 0, `${name} ran`)
    })
  }
})
