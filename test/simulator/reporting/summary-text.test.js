import { test } from 'node:test'
import assert from 'node:assert/strict'
import { formatSimSummary } from '../../../simulator/reporting/summary-text.js'
import { startAppServer } from '../../helpers/app-server.js'
import { runCli } from '../../helpers/cli.js'
import { waitFor } from '../../helpers/wait.js'
import { encodedDelay, recordRoomMessages, simResult as baseSimResult } from '../../results/make-reports.js'
import { mergeRefused, refusedOf } from '../../../results/merge/refused.js'

/**
 * A SimResult with what formatSimSummary reads (make-reports' simResult, plus the engine, the
 * options and what the look at the server found), and the given parts.
 * @param {Partial<import('../../../lib/schema/result-schema.js').SimResult>} over
 * @returns {import('../../../lib/schema/result-schema.js').SimResult}
 */
function simResult (over) {
  return baseSimResult('s1', /** @type {Partial<import('../../../lib/schema/result-schema.js').SimResult>} */ (/** @type {unknown} */ ({
    engine: 'lean',
    options: { url: 'http://127.0.0.1:1', transport: 'websocket' },
    agent: { keepAlive: true, maxSockets: null },
    server: { rampMs: 0, rampSource: 'given', handshakeError: null, diagnosis: null },
    ...over
  })))
}

test('simulate\'s summary: copies in capitals when wrong, namespaces, joins, emits and hooks', () => {
  const messages = recordRoomMessages({ clients: 6, rooms: 3, messages: [{ id: 'm1', room: 'room-1', to: [1, 4, 0] }, { id: 'm2', room: null, twice: [2] }] })
  const text = formatSimSummary(simResult({
    messages,
    messageRollups: [{
      event: 'broadcast',
      round: 1,
      messages: 3,
      received: 18,
      expected: 18,
      missing: 0,
      duplicates: 1,
      misdelivered: 2,
      late: 0,
      firstAt: 0,
      lastAt: 0,
      relative: encodedDelay([1]),
      absolute: null
    }],
    clients: { ...simResult({}).clients, namespaces: [{ name: '/admin', connected: 0, connects: 0, disconnects: {}, refused: { unauthorized: 6 } }] },
    scenario: {
      joins: { event: 'join', sent: 6, acked: 5, unacked: 0, failed: 1, reasons: { 'no such room': 1 }, time: encodedDelay([2, 3, 4, 5, 6]) },
      hooks: {
        calls: { identity: 0, onConnect: 6, onEvent: 0, onDisconnect: 0 },
        errors: { boom: 2 },
        emits: { sent: 0, acked: 0, timedOut: 0, failed: 0, ackTime: encodedDelay([]) }
      }
    }
  }))
  assert.match(
    text,
    /^copies: MISDELIVERED 3 copies \(to clients not in the message's room\), DUPLICATED 2 copies \(a second copy to one client\)$/m,
    'kept messages and rollups'
  )
  assert.match(text, /^namespace \/admin: connected 0, connects 0, refused 6 \(unauthorized: 6\), drops 0$/m)
  assert.match(text, /^joins \(join\): sent 6, acked 5, failed 1 \(no such room: 1\), unacked 0; join time p50 4\.00ms, p99 6\.00ms, max 6\.00ms$/m)
  assert.match(text, /^HOOK ERRORS 2: boom: 2$/m)
  const quiet = formatSimSummary(simResult({ messages: recordRoomMessages({ clients: 2, rooms: 1, messages: [{ id: 'a', room: null }] }) }))
  assert.match(quiet, /^copies: misdelivered 0, duplicated 0$/m)
  assert.doesNotMatch(quiet, /namespace |joins |emits |hook/)
  assert.doesNotMatch(formatSimSummary(simResult({})), /copies:/, 'no message, no copies line')
})

test('simulate --workers 2 with rooms, joins, emits with acks and two namespaces: ' +
  'the merged result and summary count a server\'s wrong and second copies exactly', async (t) => {
  const server = await startAppServer(t, { namespaces: ['/', '/news'] })
  // --duration ends the run by itself (a SIGTERM right after the server's emits could race their
  // frames in the workers' sockets); 20 s leaves slow child starts on a loaded machine room.
  const run = runCli(t, [
    'bin/ioswarm.js', 'simulate', '--workers', '2', '-c', '6', '--url', server.url, '--ramp', '0', '--duration', '20s', '--id', 'ws', '--rooms', '3',
    '--namespace', '/', '--namespace', '/news', '--join', 'join {"room":"{{room}}"}', '--emit', 'chat {"room":"{{room}}"}', '--emit-rate', '5/s',
    '--emitters', '50%', '--emit-ack', '--event', 'broadcast', '--event', 'chat', '--json'
  ], { timeoutMs: 60000 })
  const joined = () => ['room-0', 'room-1', 'room-2'].every((r) => server.roomSize(r) === 2 && server.roomSize(r, '/news') === 2)
  await waitFor(joined, { timeoutMs: 15000, message: 'two clients in each room of / and /news' })
  await waitFor(() => server.counts.chats > 0, { timeoutMs: 10000, message: 'chat lines from the emitters' })
  await server.joinsSettled()
  const now = Date.now()
  // Wrong: room-1's message reaches room-0's two clients too. Twice: room-2's message, two copies each.
  server.io.to('room-0').to('room-1').emit('broadcast', { id: 'wrong', sentAt: now, room: 'room-1' })
  server.io.to('room-2').emit('broadcast', { id: 'twice', sentAt: now, room: 'room-2' })
  server.io.to('room-2').emit('broadcast', { id: 'twice', sentAt: now, room: 'room-2' })
  const { code, stdout, stderr } = await run
  assert.equal(code, 0, stderr)
  const result = /** @type {import('../../../lib/schema/result-schema.js').SimResult} */ (JSON.parse(stdout))
  const byId = Object.fromEntries(result.messages.map((m) => [m.id, m]))
  assert.deepEqual([byId.wrong.room, byId.wrong.expected, byId.wrong.received, byId.wrong.misdelivered], ['room-1', 2, 2, 2])
  assert.deepEqual([byId.twice.expected, byId.twice.received, byId.twice.duplicates, byId.twice.misdelivered], [2, 2, 2, 0])
  assert.deepEqual(
    [result.scenario?.joins?.sent, result.scenario?.joins?.acked, result.scenario?.joins?.failed],
    [12, 12, 0],
    'two namespaces × six clients, both workers merged'
  )
  assert.equal(result.scenario?.emits?.emitters, 3)
  assert.ok((result.scenario?.emits?.ackTime?.count ?? 0) > 0, 'acks timed in the merged histogram')
  assert.deepEqual(result.clients.namespaces?.map((n) => [n.name, n.connects]), [['/', 6], ['/news', 6]])
  assert.match(stderr, /^copies: MISDELIVERED 2 copies \(to clients not in the message's room\), DUPLICATED 2 copies \(a second copy to one client\)$/m)
  assert.match(
    stderr,
    /^echo: \d+ copies of lines back to their sender \(not expected of it, not counted as received\)$/m,
    'the server relays each line to its room, the sender too'
  )
  assert.match(stderr, /^namespace \/news: connected \d, connects 6, refused 0, drops \d/m)
  assert.match(stderr, /^joins \(join\): sent 12, acked 12, failed 0, unacked 0; join time p50 /m)
  // An emit still waiting for its ack when the swarm ends is cut short (failed, with its reason): not asserted.
  assert.match(stderr, /^emits \(chat\): 3 emitters, sent \d+, acked \d+, timed out 0, failed \d+( \([^)]*\))?; ack time p50 /m)
  // The app's own traffic: a line per event, every chat line merged, never a row per line sent.
  assert.match(stderr, /^\d+ messages by event \(every line merged: --json has the newest \d+ one by one\):$/m)
  assert.match(stderr, /^event broadcast: 2 messages, received 4\/4, missing 0, MISDELIVERED 2, DUPLICATED 2; relative p50 /m)
  const chat = /^event chat: (\d+) messages, received \d+\/\d+, missing \d+.*; relative p50 .*; absolute p50 /m.exec(stderr)
  assert.ok(chat && Number(chat[1]) > 10, stderr)
  assert.doesNotMatch(stderr, /^\s*message\s+received\s+missing/m, 'no table of messages')
  assert.doesNotMatch(stderr, /content:|^\s*e\d+\.\d+\s/m, 'no row per line')
})

test('simulate\'s busy column: a floor whose CPU passed its wall time (helper threads) reads 100 %, not more', () => {
  const [message] = recordRoomMessages({ clients: 4, rooms: 1, messages: [{ id: 'm1', room: null }] })
  // A broadcast of ioswarm's rounds (it carries its round): a row of the messages table.
  const text = formatSimSummary(simResult({ messages: [{ ...message, round: 1, floor: { cpuMs: 1.72, spreadMs: 1 } }] }))
  const row = text.split('\n').find((line) => line.trimStart().startsWith('m1'))
  assert.ok(row && /100%\s*$/.test(row), `the busy column: ${row}`)
})

test('simulate\'s summary warns of its reports a run\'s collector refused past its bound, as the run\'s summary does (workers: merged)', () => {
  const workers = [refusedOf(200000, { 's1-w1': 3 }), refusedOf(200000, { 's1-w2': 4 }), null]
  const reportsRefused = /** @type {import('../../../lib/schema/result-schema.js').ReportsRefused} */ (mergeRefused(workers))
  assert.deepEqual([reportsRefused.total, reportsRefused.bySimulator], [7, { 's1-w1': 3, 's1-w2': 4 }])
  const warnings = formatSimSummary(simResult({ reportsRefused })).split('\n').filter((l) => l.startsWith('WARNING:'))
  assert.equal(warnings.length, 1)
  assert.match(
    warnings[0],
    /^WARNING: simulator s1: 7 message reports refused past the collector's bound of 200000 per run \(s1-w1 3, s1-w2 4\); they are missing from messages\.csv/
  )
  assert.doesNotMatch(formatSimSummary(simResult({})), /WARNING:/)
  assert.equal(mergeRefused([null, undefined]), null)
})
