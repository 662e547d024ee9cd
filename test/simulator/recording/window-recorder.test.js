import { test } from 'node:test'
import assert from 'node:assert/strict'
import { startAppServer } from '../../helpers/app-server.js'
import { createHistogram, decode, recordMs } from '../../../lib/measure/histogram.js'
import { wallMs } from '../../../lib/measure/clock.js'
import { IoswarmError, ackTimeout } from '../../../lib/errors.js'
import { mergeWindowLists, windowRow } from '../../../results/merge/measures.js'
import { normalizeSimOptions } from '../../../simulator/sim-options.js'
import { runSwarm } from '../../../simulator/swarm/swarm.js'
import { MAX_WINDOWS, createWindowBook } from '../../../simulator/recording/window-recorder.js'

/**
 * A window book whose clock the test sets: `at(ms)` puts it at that reference time.
 * @param {Partial<Parameters<typeof createWindowBook>[0]>} [options]
 */
function bookAt (options = {}) {
  let now = 500
  /** @type {import('../../../lib/schema/result-schema.js').WindowReport[]} */
  const reported = []
  const book = createWindowBook({ windowMs: 1000, clockOffsetMs: () => now - wallMs(), onWindow: (w) => reported.push(w), ...options })
  return { book, reported, at: (/** @type {number} */ ms) => { now = ms } }
}

/** @param {number} received @param {number} ms */
function message (received, ms) {
  const relative = createHistogram()
  for (let k = 0; k < received; k++) recordMs(relative, ms)
  const counts = { received, expected: received + 1, missing: 1, duplicates: 0, misdelivered: 0, echo: 0 }
  const report = /** @type {import('../../../lib/schema/result-schema.js').MessageReport} */ (/** @type {unknown} */ (counts))
  return { report, relative }
}

const sample = (/** @type {number} */ connected, /** @type {number} */ loopMs) => ({
  timeline: /** @type {any} */ ({ t: 0, connected, connects: 2, disconnects: 1, errors: 0, messages: 0, byTransport: {} }),
  health: /** @type {any} */ ({ t: 0, loopDelayP99Ms: loopMs, cpuPct: 10, elu: 0.1, rssBytes: 1, saturated: false })
})

test('a window is reported once it has ended and its messages have closed, in order, with what each part told it', () => {
  const { book, reported, at } = bookAt()
  const first = book.opened() // a message of window 0, still open when window 1 ends
  book.sent()
  at(1500)
  const second = book.opened()
  const { report, relative } = message(4, 20)
  book.closed(second, report, relative, null)
  book.ack(null, 7)
  book.ack(ackTimeout(), 100)
  book.sample(sample(5, 3).timeline, sample(5, 3).health)
  at(2500)
  book.flush()
  assert.equal(reported.length, 0, 'window 0 has a message open: neither it nor window 1 is reported')
  const late = message(2, 50)
  book.closed(first, late.report, late.relative, null)
  book.flush()
  assert.deepEqual(reported.map((w) => [w.index, w.startAt, w.endAt]), [[0, 0, 1000], [1, 1000, 2000]])
  const [w0, w1] = reported
  assert.deepEqual([w0.messages, w0.received, w0.expected, w0.missing, w0.emits.sent], [1, 2, 3, 1, 1])
  assert.ok(Math.abs(w0.relative.p50 - 50) <= 0.05, `${w0.relative.p50}`)
  assert.deepEqual([w1.messages, w1.received, w1.missing, w1.emits.acked, w1.emits.timedOut, w1.emits.ackTime.count], [1, 4, 1, 1, 1, 1])
  assert.deepEqual(w1.clients, { connected: 5, connects: 2, drops: 1, errors: 0, closed: 0 })
  assert.equal(w1.health.loopDelayP99MaxMs, 3)
  assert.equal(decode(w1.relative.histogram).totalCount, 4, 'the message\'s live histogram was added whole')
  // An ack that ends after its window was reported counts in the oldest live one.
  book.ack(null, 1)
  at(3500)
  book.flush(true)
  assert.deepEqual(reported.map((w) => w.index), [0, 1, 2])
  assert.equal(reported[2].emits.acked, 1)
  assert.equal(book.reports().length, 3)
})

test('windows in which nothing happened (a stalled process) are reported empty, not skipped', () => {
  const { book, reported, at } = bookAt()
  book.sample(sample(3, 1).timeline, sample(3, 1).health)
  book.sent()
  at(1500)
  book.flush()
  at(4500)
  book.sent()
  at(5500)
  book.flush()
  assert.deepEqual(reported.map((w) => [w.index, w.emits.sent, w.clients.connected]), [[0, 1, 3], [1, 0, 3], [2, 0, 3], [3, 0, 3], [4, 1, 3]])
})

test('a simulator keeps its newest MAX_WINDOWS windows and counts the others', () => {
  const { book, at } = bookAt({ onWindow: () => {} })
  for (let k = 0; k <= MAX_WINDOWS + 2; k++) {
    at(k * 1000 + 500)
    book.sent()
    at(k * 1000 + 1500)
    book.flush()
  }
  assert.equal(book.reports().length, MAX_WINDOWS)
  assert.equal(book.dropped(), 3)
  assert.equal(book.reports()[0].index, 3)
})

test('windows of several processes merge by index: counts summed, the most messages, histograms merged', () => {
  const { book: a, reported: ra } = bookAt()
  const { book: b, reported: rb } = bookAt()
  for (const [book, n] of /** @type {const} */ ([[a, 3], [b, 5]])) {
    const k = book.opened()
    const m = message(n, n)
    book.closed(k, m.report, m.relative, null)
    book.sent()
    book.ack(null, n)
    book.flush(true)
  }
  const [merged] = mergeWindowLists([ra, rb])
  const { index, simulators, messages, received, missing, emits } = merged
  assert.deepEqual([index, simulators, messages, received, missing, emits.sent, emits.acked], [0, 2, 1, 8, 2, 2, 2])
  assert.equal(merged.relative.count, 8)
  assert.ok(Math.abs(merged.relative.max - 5) <= 0.005, `${merged.relative.max}`)
  assert.equal(merged.emits.ackTime.count, 2)
  const row = windowRow(merged)
  assert.equal(/** @type {any} */ (row.relative).histogram, undefined, 'a result row keeps summaries only')
  assert.ok(Math.abs(row.emits.ackTime.p99 - 5) <= 0.005)
})

test('--window longer than --duration, or under a second, exits 2 naming --window', () => {
  for (const input of [{ window: '20s', duration: '10s' }, { window: '500ms' }]) {
    assert.throws(
      () => normalizeSimOptions({ url: 'http://127.0.0.1:1', ...input }),
      (error) => error instanceof IoswarmError && error.exitCode === 2 && /--window/.test(error.message)
    )
  }
})

test('a swarm of chatting clients reports a window a second: each line\'s deliveries, emits and acks, in its result and as each window ends', async (t) => {
  const server = await startAppServer(t)
  /** @type {import('../../../lib/schema/result-schema.js').WindowReport[]} */
  const live = []
  const result = await runSwarm({
    url: server.url, clients: 4, ramp: 0, duration: '4.5s', window: '1s', emit: 'chat {"text":"hi {{i}}"}', emitRate: '10/s', emitAck: true
  }, { onWindow: (w) => live.push(w) })
  const windows = result.windows ?? []
  assert.deepEqual(live.map((w) => w.index), windows.map((w) => w.index))
  assert.ok(windows.length >= 3, `${windows.length} windows`)
  for (let k = 1; k < windows.length; k++) assert.equal(windows[k].index, windows[k - 1].index + 1, 'consecutive windows')
  const sum = (/** @type {(w: import('../../../lib/schema/result-schema.js').WindowReport) => number} */ pick) => windows.reduce((s, w) => s + pick(w), 0)
  const emits = /** @type {NonNullable<NonNullable<typeof result.scenario>['emits']>} */ (result.scenario?.emits)
  assert.equal(sum((w) => w.emits.sent), emits.sent, 'every line counted in one window')
  assert.equal(sum((w) => w.emits.acked), emits.acked)
  assert.equal(sum((w) => w.emits.ackTime.count), emits.acked)
  assert.equal(sum((w) => w.missing), 0)
  const messages = (result.messages.length + (result.messageRollups ?? []).reduce((s, r) => s + r.messages, 0))
  assert.equal(sum((w) => w.messages), messages, 'every line in the window of its first receipt')
  assert.equal(sum((w) => w.received), result.messages.reduce((s, m) => s + m.received, 0))
  const full = windows.slice(1, -1)
  assert.ok(full.every((w) => w.clients.connected === 4), JSON.stringify(full.map((w) => w.clients)))
  // Each held second has lines, unless a loaded machine stalled this process for one.
  const withLines = full.filter((w) => w.received > 0 && w.emits.ackTime.count > 0)
  // (A loaded machine can also make the run's windows fewer: 3 windows leave one held.)
  assert.ok(withLines.length >= Math.max(1, full.length - 1), JSON.stringify(full.map((w) => [w.received, w.emits])))
})

test('emits still awaiting their ack when the run ends (closed by its end) count in the last window: the windows sum to the totals', async (t) => {
  const server = await startAppServer(t)
  // 'talk': only client 0's lines are acked; client 1's await theirs until the run's end closes the client (--ack-timeout is longer than the run).
  server.io.of('/').on('connection', (socket) => socket.on('talk', (/** @type {{ text: string }} */ line, /** @type {unknown} */ ack) => {
    if (line.text === 'hi 0' && typeof ack === 'function') ack('ok')
  }))
  const emit = { emit: 'talk {"text":"hi {{i}}"}', emitRate: '10/s', emitTiming: 'fixed', emitAck: true, ackTimeout: '30s' }
  const result = await runSwarm({ url: server.url, clients: 2, ramp: 0, duration: '2.5s', window: '1s', ...emit })
  const windows = result.windows ?? []
  const emits = /** @type {NonNullable<NonNullable<typeof result.scenario>['emits']>} */ (result.scenario?.emits)
  assert.ok(emits.acked > 0 && (emits.closed ?? 0) > 0, JSON.stringify(emits))
  const sum = (/** @type {'sent' | 'acked' | 'timedOut' | 'failed' | 'closed'} */ field) => windows.reduce((s, w) => s + (w.emits[field] ?? 0), 0)
  for (const field of /** @type {const} */ (['sent', 'acked', 'timedOut', 'failed', 'closed'])) {
    assert.equal(sum(field), emits[field], `${field}: the windows' sum is the total (${JSON.stringify(windows.map((w) => w.emits))})`)
  }
  assert.ok((windows.at(-1)?.emits.closed ?? 0) > 0, 'those the end closed are in the last window')
})
