import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createRecorder, identify, messageFields, SEND_SLACK_MS } from '../../../simulator/recording/recorder.js'
import { ownId } from '../../../simulator/traffic/own-ids.js'
import { waitFor } from '../../helpers/wait.js'
import { performance } from 'node:perf_hooks'
import { processCpuMs, wallMs } from '../../../lib/measure/clock.js'

/**
 * Keeps this process busy until it has used `cpuMs` more CPU (bounded by 5 s of wall time:
 * a loaded machine gives a spinning process less CPU than wall time).
 * @param {number} cpuMs
 */
function spinCpu (cpuMs) {
  const start = processCpuMs()
  const deadline = Date.now() + 5000
  let spins = 0
  while (processCpuMs() - start < cpuMs && Date.now() < deadline) spins++
  return spins
}

/** The CPU spin after a message's drain, which its floor must not hold. */
const AFTER_MS = 200

test('identify uses the id field, else a content hash', () => {
  assert.deepEqual(identify([{ id: 'a', round: 2, seq: 3, sentAt: 1764000000000 }]), { id: 'a', round: 2, seq: 3, sentAt: 1764000000000, room: null })
  assert.equal(identify([{ id: 'a', sentAt: 5 }]).sentAt, null, 'a number that is no time after 1973 is not a send time')
  assert.deepEqual(
    identify([{ meta: { key: 'k1', ts: 1764000000.5 }, to: 'r' }], messageFields({ idField: 'meta.key', sentAtField: 'meta.ts', roomField: 'to' })),
    { id: 'k1', round: null, seq: null, sentAt: 1764000000500, room: 'r' }
  )
  assert.equal(identify([{ id: 7 }]).id, '7')
  assert.deepEqual([identify([{ id: '3.14' }]).round, identify([{ id: '3.14' }]).seq], [3, 14], 'a round\'s id in the user\'s shape')
  assert.deepEqual([identify([{ id: 3.14 }]).round, identify([{ id: 3.14 }]).seq], [null, null], 'a number id is the app\'s own')
  const a = identify([{ text: 'x' }])
  assert.match(a.id, /^content:/)
  assert.equal(identify([{ text: 'x' }]).id, a.id)
  assert.notEqual(identify([{ text: 'y' }]).id, a.id)
  assert.equal(identify(['plain string']).sentAt, null)
})

test('a delivered message closes after a quiet period; clients that connected meanwhile still count', async () => {
  /** @type {import('../../../lib/schema/result-schema.js').MessageReport[]} */
  const closed = []
  // Periods far above a loaded machine's pause between two statements: the first sweep must come before them.
  const rec = createRecorder({ clients: 40, messageTimeoutMs: 60000, quietMs: 1000, onClose: (r) => closed.push(r) })
  for (let i = 0; i < 35; i++) rec.setConnected(i, true)
  for (let i = 0; i < 35; i++) rec.receive(i, 'broadcast', [{ id: 'm1' }])
  rec.sweep()
  assert.equal(closed.length, 0, 'not closed before the quiet period')
  rec.setConnected(37, true)
  rec.receive(37, 'broadcast', [{ id: 'm1' }]) // connected after the first receipt: a receiver, not expected
  await waitFor(() => { rec.sweep(); return closed.length === 1 }, { timeoutMs: 10000 })
  assert.equal(closed[0].received, 36)
  assert.equal(closed[0].expected, 35)
  assert.equal(closed[0].missing, 0)
  rec.receive(36, 'broadcast', [{ id: 'm1' }])
  assert.equal(rec.stats().lateReceipts, 1)
  assert.equal(rec.reports()[0].late, 1)
})

test('duplicates are counted once; clients that connected later are received but not expected', () => {
  const rec = createRecorder({ clients: 70, messageTimeoutMs: 60000 })
  for (let i = 0; i < 64; i++) rec.setConnected(i, true)
  rec.receive(0, 'e', [{ id: 1, sentAt: Date.now() }])
  rec.receive(0, 'e', [{ id: 1, sentAt: Date.now() }])
  rec.setConnected(65, true)
  rec.receive(65, 'e', [{ id: 1, sentAt: Date.now() }])
  rec.setConnected(5, false)
  rec.closeAll()
  const [m] = rec.reports()
  assert.equal(m.duplicates, 1)
  assert.equal(m.received, 2)
  assert.equal(m.expected, 64, 'client 5 left after the first receipt: still expected')
  assert.equal(m.missing, 63)
  assert.equal(m.relative.count, 2)
  assert.ok(m.absolute && m.absolute.count === 2)
})

test('the sweep closes a message after its timeout', async () => {
  /** @type {string[]} */
  const closed = []
  const rec = createRecorder({ clients: 4, messageTimeoutMs: 1000, onClose: (r) => closed.push(r.id) })
  for (let i = 0; i < 4; i++) rec.setConnected(i, true)
  rec.receive(2, 'e', [{ id: 'slow' }])
  rec.sweep()
  assert.deepEqual(closed, [])
  await waitFor(() => { rec.sweep(); return closed.length === 1 }, { timeoutMs: 10000 })
  assert.equal(rec.reports()[0].missing, 3)
})

test('a clock offset shifts absolute latency; skew beyond the latency is counted as negative', () => {
  const rec = createRecorder({ clients: 2, messageTimeoutMs: 1000, clockOffsetMs: () => -10000 })
  rec.setConnected(0, true)
  rec.receive(0, 'e', [{ id: 'x', sentAt: Date.now() }])
  rec.closeAll()
  const abs = rec.reports()[0].absolute
  assert.ok(abs)
  assert.equal(abs.negative, 1)
  assert.equal(abs.max, 0)
})

test('older closed messages are rolled up per (event, round): counts and histograms conserved, late copies still late', () => {
  /** @type {import('../../../lib/schema/result-schema.js').MessageReport[]} */
  const sent = []
  const rec = createRecorder({ clients: 8, messageTimeoutMs: 60000, keepClosed: 3, onClose: (r) => sent.push(r) })
  for (let i = 0; i < 8; i++) rec.setConnected(i, true)
  for (let m = 0; m < 10; m++) {
    const round = m < 6 ? 1 : 2
    const receivers = m === 4 ? 6 : 8 // message 4 misses two clients
    for (let i = 0; i < receivers; i++) rec.receive(i, 'b', [{ id: `m${m}`, round, sentAt: Date.now() }])
    rec.closeAll()
  }
  assert.equal(sent.length, 10, 'the collector hook saw every message whole')
  assert.deepEqual(rec.reports().map((r) => r.id), ['m7', 'm8', 'm9'])
  const rollups = rec.rollups()
  assert.deepEqual(rollups.map((g) => [g.event, g.round, g.messages]), [['b', 1, 6], ['b', 2, 1]])
  assert.equal(rollups[0].received, 6 * 8 - 2)
  assert.equal(rollups[0].missing, 2)
  assert.equal(rollups[0].relative.count, 46, 'merged histogram holds every receipt of the folded messages')
  assert.equal(rollups[0].absolute?.count, 46)
  const info = rec.info()
  assert.equal(info.rolledUpMessages, 7)
  assert.equal(rec.stats().messages, 10)
  // A late copy of a rolled-up message is late, not a new message.
  rec.receive(0, 'b', [{ id: 'm0', round: 1 }])
  assert.equal(rec.stats().lateReceipts, 1)
  assert.equal(rec.stats().open, 0)
})

test('past maxOpen open messages, new messages are counted as untracked, not recorded; tracking resumes once they close', () => {
  const rec = createRecorder({ clients: 4, messageTimeoutMs: 60000, maxOpen: 2 })
  for (let i = 0; i < 4; i++) rec.setConnected(i, true)
  for (let m = 0; m < 5; m++) for (let i = 0; i < 4; i++) rec.receive(i, 'b', [{ id: m }])
  assert.equal(rec.stats().open, 2)
  assert.deepEqual([rec.info().untrackedMessages, rec.info().untrackedReceipts], [3, 12])
  rec.closeAll()
  for (let i = 0; i < 4; i++) rec.receive(i, 'b', [{ id: 4 }]) // still untracked: not reopened halfway
  for (let i = 0; i < 4; i++) rec.receive(i, 'b', [{ id: 5 }])
  rec.closeAll()
  assert.deepEqual(rec.reports().map((r) => [r.id, r.received]), [['0', 4], ['1', 4], ['5', 4]])
  assert.equal(rec.info().untrackedReceipts, 16)
})

// CPU is read for the whole process: helper threads (GC, JIT) add to it, in steps of up to a
// scheduler tick. So the spin after the drain is ten times the one inside it: a floor that took
// it in would be over AFTER_MS, one that did not stays far below it, however busy the host.
test('the floor is the CPU used from the first receipt until every expected client has the message', () => {
  const rec = createRecorder({ clients: 8, messageTimeoutMs: 60000 })
  for (let i = 0; i < 4; i++) rec.setConnected(i, true)
  const before = performance.now()
  rec.receive(0, 'e', [{ id: 'busy' }])
  const spinStart = performance.now()
  spinCpu(20) // the simulator itself busy between receipts
  const spinMs = performance.now() - spinStart
  for (let i = 1; i < 4; i++) rec.receive(i, 'e', [{ id: 'busy' }])
  const drainMs = performance.now() - before
  rec.setConnected(5, true)
  spinCpu(AFTER_MS) // after every expected client had it: not part of the drain
  rec.receive(5, 'e', [{ id: 'busy' }])
  rec.receive(2, 'e', [{ id: 'quick' }])
  rec.closeAll()
  const [busy, quick] = rec.reports()
  assert.ok(busy.floor, 'a floor on every report')
  assert.ok(busy.floor.cpuMs >= 20 && busy.floor.cpuMs < AFTER_MS, `floor ${busy.floor.cpuMs} ms: the 20 ms spin, not the ${AFTER_MS} ms one after`)
  assert.ok(
    busy.floor.spreadMs >= spinMs && busy.floor.spreadMs <= drainMs,
    `spread ${busy.floor.spreadMs} ms: the wall time from first receipt to the last expected one`
  )
  assert.equal(busy.received, 5)
  assert.ok(quick.floor && quick.floor.cpuMs < 5 && quick.floor.spreadMs < 5, `one receipt: floor ${JSON.stringify(quick.floor)}`)
})

test('a message some client never got has its floor end at its last receipt', () => {
  const rec = createRecorder({ clients: 4, messageTimeoutMs: 60000 })
  for (let i = 0; i < 4; i++) rec.setConnected(i, true)
  const before = performance.now()
  rec.receive(0, 'e', [{ id: 'partial' }])
  spinCpu(20)
  rec.receive(1, 'e', [{ id: 'partial' }])
  const lastMs = performance.now() - before
  spinCpu(AFTER_MS) // after the last receipt, before the message closes
  rec.closeAll()
  const [m] = rec.reports()
  assert.equal(m.missing, 2)
  assert.ok(m.floor && m.floor.cpuMs >= 20 && m.floor.cpuMs < AFTER_MS, `floor ${m.floor?.cpuMs} ms: until the last receipt only`)
  assert.ok(m.floor.spreadMs <= lastMs, `spread ${m.floor.spreadMs} ms ends at the last receipt (${lastMs} ms)`)
})

test('a line is never expected of its sender: known by its id, by the string a server wraps, or by its content; a copy back is an echo', () => {
  const recorder = createRecorder({ clients: 3, messageTimeoutMs: 60000, fields: messageFields({ idField: 'message' }) })
  for (let i = 0; i < 3; i++) recorder.setConnected(i, true)
  // An id at --id-field; a string the server wraps as { username, message }; a string relayed unchanged.
  recorder.ownLine(0, [{ message: 'm1', text: 'x' }])
  recorder.ownLine(1, ['hi from 1'])
  recorder.ownLine(2, ['shout 2'])
  const lines = [['chat', [{ message: 'm1', text: 'x' }]], ['new message', [{ username: 'u1', message: 'hi from 1' }]], ['shout', ['shout 2']]]
  for (const [event, args] of /** @type {[string, unknown[]][]} */ (lines)) {
    for (const i of [0, 1, 2]) recorder.receive(i, event, args)
  }
  recorder.closeAll()
  const byEvent = Object.fromEntries(recorder.reports().map((m) => [m.event, m]))
  for (const event of ['chat', 'new message', 'shout']) {
    const m = byEvent[event]
    assert.deepEqual([m.expected, m.received, m.missing, m.echo, m.duplicates], [2, 2, 0, 1, 0], `${event}: its sender's copy is an echo`)
    assert.equal(m.relative.count, 2, `${event}: an echo is not timed`)
  }
  assert.match(byEvent.shout.id, /^content:/)
})

test('a string line a server wraps is known as its sender\'s without --id-field: the field that equals it names it', () => {
  const recorder = createRecorder({ clients: 3, messageTimeoutMs: 60000 })
  for (let i = 0; i < 3; i++) recorder.setConnected(i, true)
  recorder.ownLine(1, ['hi from 1'])
  // Relayed to everyone but its sender (socket.broadcast.emit), wrapped with who said it.
  for (const i of [0, 2]) recorder.receive(i, 'new message', [{ username: 'u1', message: 'hi from 1' }])
  // A wrapped line nobody here sent: everyone is owed it.
  for (const i of [0, 1]) recorder.receive(i, 'new message', [{ username: 'u9', message: 'from elsewhere' }])
  recorder.closeAll()
  const [own, other] = recorder.reports()
  assert.deepEqual([own.expected, own.received, own.missing], [2, 2, 0], 'the sender is not owed its own line')
  assert.deepEqual([other.expected, other.received, other.missing], [3, 2, 1])
})

test('a client the swarm closes on purpose is not owed the message whose copies were still arriving; a client that dropped is', () => {
  const recorder = createRecorder({ clients: 4, messageTimeoutMs: 60000 })
  for (let i = 0; i < 4; i++) recorder.setConnected(i, true)
  for (const i of [0, 1]) recorder.receive(i, 'e', [{ id: 'm1' }])
  // Client 2 is ramped down (on purpose) before its copy came; client 3's connection drops.
  recorder.closeOnPurpose(2)
  recorder.setConnected(2, false)
  recorder.setConnected(3, false)
  // A message that opens after the close is not expected of it either (it was not connected).
  recorder.receive(0, 'e', [{ id: 'm2' }])
  recorder.closeAll()
  const [m1, m2] = recorder.reports()
  assert.deepEqual([m1.expected, m1.received, m1.missing], [3, 2, 1], 'only the dropped client is owed m1')
  assert.deepEqual([m2.expected, m2.received, m2.missing], [2, 1, 1])
})

test('a line whose id --emit stamped is known as its sender\'s by the id alone (this process\'s clients only)', () => {
  // Clients 10-12 of the run live in this process (clientOffset 10).
  const recorder = createRecorder({ clients: 3, clientOffset: 10, messageTimeoutMs: 60000 })
  for (let i = 0; i < 3; i++) recorder.setConnected(i, true)
  recorder.ownLine(1, [{ id: ownId(11, 7), text: 'x' }])
  // Its own stamped line (sent by 1), one of another process's client (e3: not here), and look-alikes that are not stamped ids.
  const ids = [ownId(11, 7), ownId(3, 1), 'e11.', 'e.5', 'e11.5x', 'x11.5']
  for (const id of ids) for (const i of [0, 1, 2]) recorder.receive(i, 'chat', [{ id }])
  recorder.closeAll()
  const byId = Object.fromEntries(recorder.reports().map((m) => [m.id, m]))
  assert.deepEqual([byId['e11.7'].expected, byId['e11.7'].echo], [2, 1], 'its sender\'s copy is an echo')
  for (const id of ids.slice(1)) assert.deepEqual([byId[id].expected, byId[id].echo], [3, 0], `${id}: expected by every client`)
})

test('a storm\'s gap is told of each receipt with the recorder\'s key and the send time on this clock', () => {
  /** @type {[number, string, number | null][]} */
  const told = []
  let following = true
  const gap = {
    following: () => following,
    message: (/** @type {number} */ i, /** @type {string} */ key, /** @type {number | null} */ sentAt) => { told.push([i, key, sentAt]) }
  }
  const recorder = createRecorder({ clients: 2, messageTimeoutMs: 60000, clockOffsetMs: () => 10, gap, namespace: '/a' })
  recorder.setConnected(0, true)
  recorder.setConnected(1, true)
  const sentAt = 1764000000000
  recorder.receive(0, 'broadcast', [{ id: 'b1', batch: 'x', sentAt }])
  recorder.receive(1, 'broadcast', ['no id'])
  following = false
  recorder.receive(1, 'broadcast', [{ id: 'b1', batch: 'x', sentAt }])
  recorder.closeAll()
  const keys = recorder.reports().map((m) => m.key)
  assert.deepEqual(told, [[0, '/a#broadcast:x/b1', sentAt - 10], [1, keys[1], null]], 'the reports\' own keys; no receipt told while no storm is followed')
  assert.match(keys[1], /^\/a#broadcast:content:/)
})

test('a client that connected after a message was sent does not expect it: its copy is received, not missing; one connected at the send still is', async () => {
  const rec = createRecorder({ clients: 40, messageTimeoutMs: 60000, clockOffsetMs: () => 5000, clockUncertaintyMs: () => 1 })
  for (let i = 0; i < 30; i++) rec.setConnected(i, true)
  /** Waits until the wall clock has moved past `ms`: connects and sends fall strictly apart, whatever the load. */
  const after = (/** @type {number} */ ms) => waitFor(() => wallMs() > ms, { timeoutMs: 5000, intervalMs: 1 })
  await after(wallMs() + SEND_SLACK_MS + 2)
  // Stamped on the sender's clock, 5 s ahead of this one (the measured offset).
  const sentAt = wallMs() + 5000
  rec.ownLine(2, [{ id: 'line', text: 'hi' }]) // a line of this process: sent now, on this clock
  await after(wallMs() + SEND_SLACK_MS + 2)
  for (let i = 30; i < 34; i++) rec.setConnected(i, true) // joined between the sends and the first receipts
  for (const id of ['b1', 'line', 'no-time']) {
    const args = [id === 'no-time' ? { id } : id === 'line' ? { id, text: 'hi' } : { id, sentAt }]
    for (let i = 0; i < 31; i++) if (i !== 5) rec.receive(i, 'e', args) // client 5 never gets it; late joiner 30 does
  }
  rec.closeAll()
  const byId = Object.fromEntries(rec.reports().map((m) => [m.id, m]))
  assert.deepEqual(
    pick(byId.b1),
    { expected: 30, received: 30, missing: 1, misdelivered: 0, duplicates: 0 },
    'b1: 29 of the 30 connected at the send, and joiner 30'
  )
  assert.deepEqual(
    pick(byId.line),
    { expected: 29, received: 29, missing: 1, misdelivered: 0, duplicates: 0 },
    'its sender neither expects it nor counts its echo'
  )
  assert.equal(byId.line.echo, 1)
  assert.deepEqual(
    pick(byId['no-time']),
    { expected: 34, received: 30, missing: 4, misdelivered: 0, duplicates: 0 },
    'no send time: everyone connected at the first receipt'
  )
  // A send time older than the message timeout is no clock to trust: everyone connected now.
  const stale = createRecorder({ clients: 4, messageTimeoutMs: 1000 })
  for (let i = 0; i < 4; i++) stale.setConnected(i, true)
  stale.receive(0, 'e', [{ id: 'old', sentAt: wallMs() - 60000 }])
  stale.closeAll()
  assert.deepEqual([stale.reports()[0].expected, stale.reports()[0].missing], [4, 3])
})

/** @param {import('../../../lib/schema/result-schema.js').MessageReport} m */
function pick (m) {
  return { expected: m.expected, received: m.received, missing: m.missing, misdelivered: m.misdelivered ?? 0, duplicates: m.duplicates }
}
