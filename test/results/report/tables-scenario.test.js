import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { formatMs } from '../../../lib/text/format.js'
import { deliveriesTable, namespacesTable, scenarioTable } from '../../../results/report/tables-scenario.js'

/** @param {string} name @returns {import('../../../lib/schema/result-schema.js').RunResult} */
const fixture = (name) => JSON.parse(readFileSync(new URL(`../../fixtures/${name}`, import.meta.url), 'utf8'))
/** Rows of a table as arrays of cell texts (several tables: all their rows). @param {string} html */
const rows = (html) =>
  [...html.matchAll(/<tbody>(.*?)<\/tbody>/g)].flatMap((b) =>
    [...b[1].matchAll(/<tr[^>]*>(.*?)<\/tr>/g)].map((r) => [...r[1].matchAll(/<td[^>]*>(.*?)<\/td>/g)].map((c) => c[1]))
  )

test('deliveries: everyone, the top rooms by traffic, the folded rest and the total; rows with wrong, missing or second copies marked', () => {
  const [d, plainBroadcasts] = fixture('run-small.json').distributions
  const html = /** @type {string} */ (deliveriesTable(d))
  const table = rows(html)
  assert.equal(table.length, 1 + 20 + 1 + 2 + 1, 'everyone, 20 rooms, the fold, the two namespaces, the total')
  assert.deepEqual(table[0].slice(0, 8), ['/', '(everyone)', 'broadcast', '10', '9999/10000', '1', '0', '0'])
  assert.deepEqual(table[1].slice(0, 8), ['/chat', 'room-7', 'chat', '5', '199/200', '1', '3', '0'])
  assert.deepEqual(table[21].slice(0, 4), ['/chat', '(5 other rooms)', 'chat', '10'])
  assert.deepEqual(table[22].slice(0, 3), ['/ (all)', '(all)', '*'])
  assert.deepEqual(table.at(-1)?.slice(0, 8), ['total', '(all)', '*', '96', '13438/13440', '2', '3', '2'])
  assert.equal(table.at(-1)?.[10], formatMs(d.deliveries?.total.relative.p99), 'merged p99 of the total')
  assert.match(html, /25 rooms had messages; the 20 with the most traffic/)
  assert.equal([...html.matchAll(/<tr class="warn">/g)].length, 6, 'everyone (1 missing), room-7, room-3, / and /chat totals, the total')
  assert.equal(rows(/** @type {string} */ (deliveriesTable(plainBroadcasts))).length, 2, 'one namespace: no namespace rows, just everyone and the total')
  assert.equal(deliveriesTable({ ...d, deliveries: undefined }), null, 'an older result')
  assert.equal(deliveriesTable(fixture('run-sparse.json').distributions[1]), null, 'no message')
})

test('emits, acks and joins: counts, times to the ack, reasons; hooks\' calls and errors', () => {
  const [d, plainBroadcasts] = fixture('run-small.json').distributions
  const table = rows(/** @type {string} */ (scenarioTable(d)))
  assert.deepEqual(table[0], ['joins (--join)', 'join', '1000', '996', '0 unacked', '4', '9.21ms', '16.7ms', '16.7ms', 'room full ×4'])
  assert.deepEqual(table[1].slice(0, 6), ['emits (--emit, 100 emitters)', 'chat', '2400', '2390', '8 timed out', '2'])
  assert.deepEqual([table[1][8], table[1][9]], ['194ms', 'transport close ×2'])
  assert.deepEqual(table[2].slice(0, 5), ['scenario hooks&#39; emits', '-', '40', '40', '0 timed out'])
  assert.equal(table[3][0], 'every ack (ack.* thresholds)')
  assert.deepEqual(table.slice(4), [
    ['identity', '0', ''],
    ['onConnect', '1020', ''],
    ['onEvent', '4800', ''],
    ['onDisconnect', '20', ''],
    ['error', '3', 'TypeError: socket.room is not a function']
  ])
  assert.equal(scenarioTable(plainBroadcasts), null)
})

test('clients per namespace: connected, connects, refusals and drops by reason', () => {
  const [d, plainBroadcasts] = fixture('run-small.json').distributions
  const html = /** @type {string} */ (namespacesTable(d))
  assert.deepEqual(rows(html), [
    ['/', '1000', '1020', '0', '-', '20', 'transport close ×20'],
    ['/chat', '996', '1016', '4', 'unauthorized ×4', '20', 'transport close ×20']
  ])
  assert.match(html, /<tr class="warn"><td>\/chat<\/td>/)
  assert.equal(namespacesTable(plainBroadcasts), null)
})

test('hostile room, namespace, event names and reasons are escaped in every new table', () => {
  const [d] = fixture('run-hostile.json').distributions
  const html = [deliveriesTable(d), scenarioTable(d), namespacesTable(d)].join('')
  assert.doesNotMatch(html, /<script|<img|<svg|<b>/)
  assert.match(html, /room-7&#60;\/td&#62;&#60;script&#62;alert\(15\)&#60;\/script&#62;/)
  assert.match(html, /&#60;\/script&#62;&#60;script&#62;alert\(17\)/)
  assert.match(html, /&#34;&#62;&#60;img src=x onerror=alert\(18\)&#62; ×4/)
})
