import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import {
  distributionsTable, messagesTable, roundsTable, optionLabel, optionValue, runDetailsTables, simulatorsTable,
  thresholdsTable
} from '../../../results/report/tables.js'

/** @param {string} name @returns {import('../../../lib/schema/result-schema.js').RunResult} */
const fixture = (name) => JSON.parse(readFileSync(new URL(`../../fixtures/${name}`, import.meta.url), 'utf8'))
/** Rows of a table as arrays of cell texts. @param {string} html */
const rows = (html) => [...html.matchAll(/<tr[^>]*>(.*?)<\/tr>/g)].slice(1).map((r) => [...r[1].matchAll(/<td[^>]*>(.*?)<\/td>/g)].map((c) => c[1]))

test('the distributions table has the worst round and the health of each distribution', () => {
  const [first, second] = rows(distributionsTable(fixture('run-small.json')))
  assert.deepEqual(first, [
    '2x500', '2 × 500', '1000/1000 (100%)', '0', '10', '1/10000 (0.01%)', '3', '2', '22.8ms', '37.4ms', '25.8ms',
    '7.33ms', '26.8ms', '95%', '28.5ms (TLS p50 1.90ms, p99 6.40ms)', '3 s', '0'
  ])
  assert.deepEqual(second.slice(6, 8), ['0', '0'])
  assert.deepEqual(second.slice(12, 14), ['1.64ms', '6%'])
  assert.equal(second[16], '1')
})

test('the rounds table has plan, reach and delays, and marks rounds with missing deliveries', () => {
  const html = roundsTable(fixture('run-small.json').distributions[0])
  assert.deepEqual(rows(html)[1], [
    '2', '5 × 500 ms', '5/5', '4999/5000 (99.98%)', '1', '6.80ms', '15.2ms', '22.8ms', '37.4ms', '9.80ms', '25.8ms',
    '7.33ms', '10.3ms', '1.36ms', '1.52ms', '6%'
  ])
  assert.match(html, /<tr class="warn"><td class="num">2<\/td>/)
  assert.deepEqual(rows(roundsTable(fixture('run-sparse.json').distributions[1]))[0].slice(5), ['-', '-', '-', '-', '-', '-', '-', '-', '-', '-', '-'])
})

test('the simulators table has clock offset ± uncertainty, health, and marks stale simulators', () => {
  const d = fixture('run-small.json').distributions[1]
  const table = rows(simulatorsTable(d))
  assert.deepEqual(table[1].slice(0, 10), [
    '4x250-sim-2', 'loadgen-1', '4141', 'lean', 'websocket:70,polling:30', '250', '248', '2', 'no',
    '+1.25 ms ± 0.30 ms (redis)'
  ])
  assert.equal(table[3][8], 'STALE')
  assert.match(table[0][10], /^loop p99 max 7\.00ms, CPU max 35%, RSS max .* MiB, saturated 0 s$/)
  assert.equal(rows(simulatorsTable(fixture('run-sparse.json').distributions[1]))[0][10], 'not reported')
})

test('messages, thresholds and run details', () => {
  const run = fixture('run-small.json')
  const messages = rows(messagesTable(run.distributions[0]))
  assert.equal(messages.length, 10)
  assert.deepEqual(messages[2].slice(14), ['24.1ms in 25.4ms (2x500-sim-1)', '95%'], 'the floor, its spread and its simulator')
  assert.match(thresholdsTable([{ expression: 'p99<1ms', ok: false, actual: 'p99 2ms' }]), /<tr class="fail"><td>FAIL<\/td>/)
  const details = runDetailsTables(run)
  assert.ok(rows(details.options).some((r) => r[0] === 'rounds' && r[1] === '5x1000,5x500'))
  assert.ok(rows(details.facts).some((r) => r[0] === 'host' && /^loadgen-1: linux 6\.1\.0 x64, 2 CPUs, 8\.00 GiB, Node v20\.20\.2$/.test(r[1])))
})

test('the options table shows set options under readable names with their units, and leaves unset ones out', () => {
  const run = fixture('run-small.json')
  const { options } = runDetailsTables({
    ...run,
    options: { target: null, wsClient: null, rampMs: 2000, maxPayloadBytes: 1_000_000, messageTimeoutMs: 250, engine: 'lean', assert: [] }
  })
  assert.doesNotMatch(options, /null|wsClient|rampMs|>assert</)
  assert.match(options, /<td>ramp<\/td><td[^>]*>2 s<\/td>/)
  assert.match(options, /<td>message timeout<\/td><td[^>]*>250 ms<\/td>/)
  assert.match(options, /<td>max payload<\/td><td[^>]*>1 MB<\/td>/)
  assert.deepEqual([optionLabel('expectSimulators'), optionValue('engine', 'lean')], ['expect simulators', 'lean'])
})
