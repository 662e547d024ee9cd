import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { formatCopies, formatDeliveryTable, formatNamespaces, formatScenario } from '../../../results/text/scenario-text.js'

/** @param {string} name @returns {import('../../../lib/schema/result-schema.js').RunResult} */
const fixture = (name) => JSON.parse(readFileSync(new URL(`../../fixtures/${name}`, import.meta.url), 'utf8'))

test('copies: quiet when none went wrong, in capitals when some did', () => {
  assert.equal(formatCopies({ misdelivered: 0, duplicates: 0 }), 'copies: misdelivered 0, duplicated 0')
  assert.equal(formatCopies({ misdelivered: 3, duplicates: 0 }), 'copies: MISDELIVERED 3 copies (to clients not in the message\'s room), duplicated 0')
  assert.match(formatCopies({ misdelivered: 0, duplicates: 2 }), /DUPLICATED 2 copies \(a second copy to one client\)$/)
})

test('namespaces, joins, emits and hooks: one line each, with reasons and times', () => {
  const [d, plainBroadcasts] = fixture('run-small.json').distributions
  assert.deepEqual(formatNamespaces(d.clients.namespaces), [
    'namespace /: connected 1000, connects 1020, refused 0, drops 20 (transport close: 20)',
    'namespace /chat: connected 996, connects 1016, refused 4 (unauthorized: 4), drops 20 (transport close: 20)'
  ])
  const lines = formatScenario(d.scenario)
  assert.equal(lines[0], 'joins (join): sent 1000, acked 996, failed 4 (room full: 4), unacked 0; join time p50 9.21ms, p99 16.7ms, max 16.7ms')
  assert.equal(
    lines[1],
    'emits (chat): 100 emitters, sent 2400, acked 2390, timed out 8, failed 2 (transport close: 2); ack time p50 24.6ms, p99 44.6ms, max 194ms'
  )
  assert.match(
    lines[2],
    /^scenario hooks: onConnect ×1020, onEvent ×4800, onDisconnect ×20; their emits: sent 40, acked 40, timed out 0, failed 0; ack time p50/
  )
  assert.equal(lines[3], 'HOOK ERRORS 3: TypeError: socket.room is not a function: 3')
  assert.match(lines[4], /^every ack \(emits and hooks' emitWithAck\): 2430 acks, p50 /)
  assert.deepEqual([formatNamespaces(plainBroadcasts.clients.namespaces), formatScenario(plainBroadcasts.scenario)], [[], []])
  const noAck = formatScenario({ emits: { event: 'vote', emitters: 2, sent: 4, acked: 0, timedOut: 0, failed: 0, reasons: {}, ackTime: null } })
  assert.deepEqual(noAck, ['emits (vote): 2 emitters, sent 4, acked 0, timed out 0, failed 0; acks not timed (--emit-ack)'])
})

test('the delivery table: the first rows, the total, how many more; none when it says nothing the rounds do not', () => {
  const [d, plainBroadcasts] = fixture('run-small.json').distributions
  const lines = /** @type {string} */ (formatDeliveryTable(d.deliveries, 3)).split('\n')
  assert.equal(lines[0], 'deliveries by namespace, room and event (25 rooms, the top 20 by traffic listed):')
  assert.match(lines[1], /^namespace {2}room +event +messages {2}reached +missing {2}misdelivered {2}duplicated {2}rel p50 {2}rel p99 {2}abs p99$/)
  assert.match(lines[4], /^\/chat +room-7 +chat +5 {2}199\/200 +1 +3 +0 /)
  assert.match(lines[6], /^total +\(all\) +96 {2}13438\/13440 +2 +3 +2 /)
  assert.equal(lines[7], '… 19 more rows in deliveries.csv and the report')
  assert.equal(formatDeliveryTable(plainBroadcasts.deliveries), null, 'one row to everyone on /')
  assert.equal(formatDeliveryTable(undefined), null)
})

test('hostile names and reasons cannot drive the terminal', () => {
  const [d] = fixture('run-small.json').distributions
  const scenario = /** @type {import('../../../lib/schema/result-schema.js').ScenarioReport} */ ({
    ...d.scenario,
    hooks: { ...d.scenario?.hooks, errors: { 'red\u001b[31m\nline': 1 } }
  })
  const text = [
    ...formatScenario(scenario),
    ...formatNamespaces([{ name: '/a\u0007', connected: 0, connects: 0, disconnects: {}, refused: { 'x\u2028y': 1 } }])
  ].join('\n')
  assert.ok([...text].every((c) => c === '\n' || (c >= ' ' && c !== '\u007f' && c !== '\u2028')), 'only printable characters and newlines')
  assert.match(text, /HOOK ERRORS 1: red\?\[31m\?line: 1/)
})
