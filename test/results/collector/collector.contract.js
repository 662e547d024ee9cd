/**
 * The collector contract: one test body run against every backend
 * (collector-memory.test.js, collector-redis.test.js).
 */
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { CODES } from '../../../lib/errors.js'
import { waitFor } from '../../helpers/wait.js'
import { delays, encodedDelay, finalReport, messageReport, sample, summaryOf } from '../make-reports.js'

/**
 * @typedef {import('../../../results/collector/types.js').Collector} Collector
 * @typedef {{ maxMessageReports?: number }} Limits
 * @typedef {{ afterWrites?: (runId: string) => Promise<void>, afterDelete?: (runId: string) => Promise<void> }} Hooks
 */

const SIMS = ['sim-a', 'sim-b', 'sim-c']
const UNCERTAINTY_MS = { 'sim-a': 0.2, 'sim-b': 1.5, 'sim-c': 0.5 }
const COUNTS = { 'sim-a': 100, 'sim-b': 150, 'sim-c': 80 }
// Reported out of order on purpose: the collector sorts by round, then seq.
const MESSAGES = [[2, 1], [1, 2], [1, 1], [2, 2], [1, 3]]
const T0 = 1_700_000_000_000

/**
 * Raw delays of one simulator for one message (relative; absolute is 2 ms later).
 * @param {string} sim
 * @param {number} round
 * @param {number} seq
 */
function raw (sim, round, seq) {
  return delays(SIMS.indexOf(sim) * 100 + round * 10 + seq, COUNTS[/** @type {'sim-a'} */ (sim)])
}

/** @param {string} sim @param {number} round @param {number} seq */
function reportOf (sim, round, seq) {
  const relativeMs = raw(sim, round, seq)
  return messageReport({
    round,
    seq,
    relativeMs,
    absoluteMs: relativeMs.map((d) => d + 2),
    missing: SIMS.indexOf(sim),
    firstAt: T0 + round * 1000 + seq * 10 + SIMS.indexOf(sim),
    sentAt: T0 + round * 1000 + seq * 10 - 2,
    floor: { cpuMs: 1 + SIMS.indexOf(sim) + seq, spreadMs: 10 * (SIMS.indexOf(sim) + 1) }
  })
}

/**
 * @param {number} actual
 * @param {number} expected
 * @param {string} what
 */
function assertMaxClose (actual, expected, what) {
  assert.ok(Math.abs(actual - expected) <= expected * 0.001, `${what}: max ${actual} vs ${expected}`)
}

/**
 * @param {Collector} collector
 * @param {string} runId
 */
async function writeRun (collector, runId) {
  await collector.registerRun(runId, { name: 'contract, "quoted"', startedAt: T0, options: { clients: 330, rounds: '3x1000' } })
  for (const sim of SIMS) {
    await collector.registerSimulator(runId, {
      id: sim,
      hostname: 'h1',
      pid: 100 + SIMS.indexOf(sim),
      clients: COUNTS[/** @type {'sim-a'} */ (sim)],
      transport: 'websocket',
      engine: 'lean',
      startedAt: T0
    })
    await collector.heartbeat(runId, sim, sim === 'sim-c' ? 300 : 60_000)
    await collector.reportClock(runId, sim, { offsetMs: 0.1, uncertaintyMs: UNCERTAINTY_MS[/** @type {'sim-a'} */ (sim)], reference: 'redis' })
    await Promise.all(MESSAGES.map(([round, seq]) => collector.reportMessage(runId, sim, reportOf(sim, round, seq))))
    await collector.reportSample(runId, sim, sample(T0 + 1000, { elu: sim === 'sim-b' ? 0.95 : 0.1 }))
    await collector.reportSample(runId, sim, sample(T0 + 2000, { connected: 7 }))
  }
  await collector.reportMessage(runId, 'sim-a', messageReport({ round: null, seq: 1, relativeMs: [1, 2, 3], firstAt: T0 + 9000 }))
  await collector.reportServerSample(runId, 'server-1', { ...sample(T0 + 1000).health, connected: 330, byTransport: { websocket: 330, polling: 0 } })
  for (const sim of ['sim-a', 'sim-b']) {
    await collector.reportFinal(
      runId,
      sim,
      finalReport({
        target: 100,
        connected: 99,
        failed: 1,
        connectMs: [5, 6, 7],
        clock: { offsetMs: 0.1, uncertaintyMs: UNCERTAINTY_MS[/** @type {'sim-a'} */ (sim)], reference: 'redis' }
      })
    )
  }
}

/**
 * Runs the contract as subtests of t.
 * @param {import('node:test').TestContext} t
 * @param {(limits?: Limits) => Promise<Collector>} create
 * @param {Hooks} [hooks]
 */
export async function runCollectorContract (t, create, hooks = {}) {
  const collector = await create()
  const runId = `contract-${randomUUID()}`
  t.after(async () => {
    await collector.deleteRun(runId)
    await collector.close()
  })
  await writeRun(collector, runId)

  await t.test('per-message totals are sums over simulators; percentiles are those of all raw delays', async () => {
    const messages = await collector.getMessages(runId)
    assert.deepEqual(messages.map((m) => [m.round, m.seq]), [[1, 1], [1, 2], [1, 3], [2, 1], [2, 2], [null, 1]])
    for (const m of messages.slice(0, 5)) {
      const round = /** @type {number} */ (m.round)
      const seq = /** @type {number} */ (m.seq)
      const all = SIMS.flatMap((sim) => raw(sim, round, seq))
      assert.equal(m.simulators, 3)
      assert.equal(m.received, all.length)
      assert.equal(m.missing, 0 + 1 + 2)
      assert.equal(m.expected, all.length + 3)
      assert.equal(m.sentAt, T0 + round * 1000 + seq * 10 - 2)
      const direct = summaryOf(all)
      assert.deepEqual([m.relative.count, m.relative.p50, m.relative.p90, m.relative.p99], [direct.count, direct.p50, direct.p90, direct.p99])
      assertMaxClose(m.relative.max, direct.max, m.key)
      const absolute = summaryOf(all.map((d) => d + 2))
      assert.ok(m.absolute)
      assert.deepEqual([m.absolute.p50, m.absolute.p99, m.absolute.uncertaintyMs], [absolute.p50, absolute.p99, 1.5])
      const means = SIMS.map((sim) => summaryOf(raw(sim, round, seq)).mean)
      assert.equal(m.avgOfAverages.relativeMs, Math.round(means.reduce((a, b) => a + b) / 3 * 1000) / 1000)
      assert.deepEqual(m.floor, { cpuMs: 3 + seq, spreadMs: 30, simulator: 'sim-c', busyMax: (1 + seq) / 10 }, 'the largest floor, and sim-a the busiest')
    }
    assert.equal(messages[5].floor, null, 'no floor reported')
    assert.equal(messages[5].absolute, null)
    assert.equal(messages[5].avgOfAverages.absoluteMs, null)
  })

  await t.test('a report sent twice counts once', async () => {
    const before = await collector.getMessages(runId)
    const again = reportOf('sim-a', 1, 1)
    await collector.reportMessage(runId, 'sim-a', again)
    await collector.reportMessage(runId, 'sim-a', { ...again, received: 9999 })
    assert.deepEqual(await collector.getMessages(runId), before)
  })

  await t.test('rounds group messages by round; a planned round with no message is kept', async () => {
    const rounds = await collector.getRounds(runId, [{ count: 3, intervalMs: 1000 }, { count: 2, intervalMs: 500 }, { count: 4, intervalMs: 250 }])
    assert.deepEqual(rounds.map((r) => [r.round, r.count, r.intervalMs, r.messages]), [[1, 3, 1000, 3], [2, 2, 500, 2], [3, 4, 250, 0]])
    const all = SIMS.flatMap((sim) => [1, 2, 3].flatMap((seq) => raw(sim, 1, seq)))
    assert.equal(rounds[0].received, all.length)
    assert.equal(rounds[0].missing, 3 * 3)
    assert.equal(rounds[0].relative.p99, summaryOf(all).p99)
    assert.equal(rounds[0].absolute?.uncertaintyMs, 1.5)
    assert.deepEqual(rounds[0].floor, { messages: 3, p50Ms: 5, maxMs: 6, spreadAtMaxMs: 30, busyMax: 0.4 })
    assert.equal(rounds[2].floor, null)
    assert.deepEqual([rounds[2].received, rounds[2].relative.count, rounds[2].absolute], [0, 0, null])
    assert.deepEqual((await collector.getRounds(runId)).map((r) => r.round), [1, 2])
  })

  await t.test('messages, rounds and deliveries from one read of the reports are what the three reads give', async () => {
    const planned = [{ count: 3, intervalMs: 1000 }, { count: 2, intervalMs: 500 }, { count: 4, intervalMs: 250 }]
    const one = await collector.getMessageResults(runId, { planned, topRooms: 1 })
    assert.deepEqual(one, {
      messages: await collector.getMessages(runId),
      rounds: await collector.getRounds(runId, planned),
      deliveries: await collector.getDeliveries(runId, { topRooms: 1 })
    })
    assert.deepEqual([one.messages.length > 0, one.rounds.length, one.deliveries.topRooms], [true, 3, 1])
    assert.deepEqual((await collector.getMessageResults(runId)).rounds.map((r) => r.round), [1, 2], 'no plan: the rounds seen')
  })

  await t.test('samples come sorted by time, with simulator and saturation', async () => {
    const samples = await collector.getSamples(runId)
    assert.equal(samples.timeline.length, 6)
    assert.deepEqual(samples.timeline.map((p) => [p.t - T0, p.simulator]).slice(0, 3), [[1000, 'sim-a'], [1000, 'sim-b'], [1000, 'sim-c']])
    assert.equal(samples.timeline[5].connected, 7)
    assert.deepEqual(samples.health.filter((h) => h.saturated).map((h) => h.simulator), ['sim-b'])
    assert.deepEqual(samples.server.map((s) => [s.server, s.connected]), [['server-1', 330]])
  })

  await t.test('finals and simulators: a simulator that stops heartbeating is stale, its reports kept', async () => {
    await waitFor(async () => (await collector.listSimulators(runId)).find((s) => s.id === 'sim-c')?.stale === true, {
      timeoutMs: 5000,
      message: 'sim-c to be marked stale'
    })
    const sims = await collector.listSimulators(runId)
    assert.deepEqual(
      sims.map((s) => [s.id, s.alive, s.stale, s.final !== null]),
      [['sim-a', true, false, true], ['sim-b', true, false, true], ['sim-c', false, true, false]]
    )
    assert.deepEqual(sims[0].clients, { target: 100, connected: 99, failed: 1 })
    assert.deepEqual(sims[2].clients, { target: 80, connected: 7, failed: 0 })
    assert.equal(sims[2].clock.uncertaintyMs, 0.5)
    assert.equal(typeof sims[2].lastHeartbeatAt, 'number')
    assert.ok((await collector.getMessages(runId)).slice(0, 5).every((m) => m.simulators === 3))
    const finals = await collector.getFinals(runId)
    assert.deepEqual(finals.map((f) => [f.simulator, f.clients.connected]), [['sim-a', 99], ['sim-b', 99]])
  })

  await t.test('a final report keeps its scenario whole; deliveries per namespace, room and event come from the stored reports', async (st) => {
    const own = `scenario-${randomUUID()}`
    st.after(() => collector.deleteRun(own))
    const scenario = {
      joins: { event: 'join', sent: 3, acked: 2, unacked: 0, failed: 1, reasons: { 'no such room': 1 }, time: encodedDelay([4, 5]) },
      emits: { event: 'chat', emitters: 1, sent: 4, acked: 3, timedOut: 1, failed: 0, reasons: {}, ackTime: encodedDelay([10, 20, 30]) }
    }
    const final = { ...finalReport({ target: 3, connected: 3, failed: 0, connectMs: [1] }), scenario }
    final.clients.namespaces = [{ name: '/chat', connected: 3, connects: 3, disconnects: {}, refused: { unauthorized: 2 } }]
    await collector.reportFinal(own, 'sim-a', final)
    assert.deepEqual(await collector.getFinals(own), [{ ...final, simulator: 'sim-a' }])
    for (const [sim, misdelivered] of [['sim-a', 1], ['sim-b', 2]]) {
      await collector.reportClock(own, String(sim), { offsetMs: 0, uncertaintyMs: Number(misdelivered), reference: 'redis' })
      await collector.reportMessage(
        own,
        String(sim),
        messageReport({
          round: null,
          seq: 1,
          id: 'line-1',
          event: 'chat',
          namespace: '/chat',
          room: 'room-2',
          relativeMs: raw(String(sim), 1, 1),
          absoluteMs: [7],
          sentAt: T0,
          misdelivered: Number(misdelivered)
        })
      )
      await collector.reportMessage(own, String(sim), messageReport({ round: 1, seq: 1, relativeMs: [1, 2] }))
    }
    const deliveries = await collector.getDeliveries(own)
    assert.deepEqual(deliveries.rows.map((r) => [r.namespace, r.room, r.event, r.messages, r.received, r.misdelivered]),
      [['/', null, 'broadcast', 1, 4, 0], ['/chat', 'room-2', 'chat', 1, COUNTS['sim-a'] + COUNTS['sim-b'], 3]])
    assert.equal(deliveries.rows[1].relative.p99, summaryOf([...raw('sim-a', 1, 1), ...raw('sim-b', 1, 1)]).p99, 'merged histograms')
    assert.equal(deliveries.rows[1].absolute?.uncertaintyMs, 2)
    assert.deepEqual([deliveries.total.messages, deliveries.rooms, deliveries.namespaces.length], [2, 1, 2])
    assert.equal((await collector.getDeliveries(own, { topRooms: 0 })).rows[1].foldedRooms, 1)
  })

  await t.test('runs are listed with their registration', async () => {
    const run = (await collector.listRuns()).find((r) => r.id === runId)
    assert.deepEqual(run, { id: runId, name: 'contract, "quoted"', startedAt: T0, options: { clients: 330, rounds: '3x1000' } })
  })

  await t.test('control messages reach subscribers once subscribed', async () => {
    /** @type {(m: Record<string, unknown>) => void} */
    let deliver = () => {}
    const arrived = new Promise((resolve) => { deliver = resolve })
    const unsubscribe = await collector.subscribeControl(runId, (m) => deliver(m))
    t.after(unsubscribe)
    await collector.publishControl(runId, { type: 'stop', reason: 'test' })
    const timeout = new Promise((resolve, reject) => setTimeout(reject, 3000, new Error('no control message within 3 s')).unref())
    assert.deepEqual(await Promise.race([arrived, timeout]), { type: 'stop', reason: 'test' })
  })

  await t.test('bad ids and bad reports are refused', async () => {
    await assert.rejects(collector.registerRun('bad{id}', { name: 'x', startedAt: T0, options: {} }), { code: CODES.INVALID_OPTION })
    await assert.rejects(collector.reportMessage(runId, 'a|b', reportOf('sim-a', 1, 1)), { code: CODES.INVALID_OPTION })
    await assert.rejects(collector.reportMessage(runId, 'sim-a', /** @type {any} */ ({ key: '' })), { code: CODES.COLLECTOR })
    await assert.rejects(collector.heartbeat(runId, 'sim-a', Number.NaN), { code: CODES.INVALID_OPTION })
  })

  await t.test('message reports past the bound are refused loudly, not dropped', async () => {
    const small = await create({ maxMessageReports: 2 })
    const smallRun = `bound-${randomUUID()}`
    t.after(async () => { await small.deleteRun(smallRun); await small.close() })
    await small.reportMessage(smallRun, 'sim-a', reportOf('sim-a', 1, 1))
    await small.reportMessage(smallRun, 'sim-a', reportOf('sim-a', 1, 2))
    await small.reportMessage(smallRun, 'sim-a', reportOf('sim-a', 1, 2)) // a duplicate is still fine
    await assert.rejects(small.reportMessage(smallRun, 'sim-a', reportOf('sim-a', 1, 3)), { code: CODES.COLLECTOR, message: /2 message reports/ })
    await assert.rejects(small.reportMessage(smallRun, 'sim-b', reportOf('sim-b', 1, 3)), { code: CODES.COLLECTOR, message: /2 message reports/ })
    await assert.rejects(small.reportMessage(smallRun, 'sim-b', reportOf('sim-b', 1, 4)), { code: CODES.COLLECTOR, message: /2 message reports/ })
    assert.equal((await small.getMessages(smallRun)).length, 2)
    assert.deepEqual(await small.getRefused(smallRun), { limit: 2, bySimulator: { 'sim-a': 1, 'sim-b': 2 } }, 'each refusal counted by simulator')
  })

  await t.test('readSince: what was stored after a cursor, once, in the order stored, in pages of at most limit', async () => {
    const all = await collector.readSince(runId, null, 100)
    assert.equal(all.more, false)
    assert.equal(all.messages.length, SIMS.length * MESSAGES.length + 1, 'a report sent twice is read once')
    assert.deepEqual(all.messages.filter((e) => e.simulator === 'sim-b').map((e) => [e.report.round, e.report.seq]).sort(), [...MESSAGES].sort())
    assert.deepEqual(all.messages.find((e) => e.simulator === 'sim-c' && e.report.key === reportOf('sim-c', 2, 1).key)?.report, reportOf('sim-c', 2, 1))
    assert.deepEqual(all.samples.map((s) => [s.simulator, s.timeline.t - T0, s.timeline.connected]),
      SIMS.flatMap((sim) => [[sim, 1000, 10], [sim, 2000, 7]]), 'samples in the order stored')
    assert.equal(all.samples[2].health.elu, 0.95)
    assert.deepEqual(all.serverSamples.map((s) => [s.server, s.connected]), [['server-1', 330]])
    assert.deepEqual(
      await collector.readSince(runId, all.cursor),
      { messages: [], samples: [], serverSamples: [], cursor: all.cursor, more: false },
      'nothing new'
    )

    // Pages: the same entries, each once, `more` until the last page.
    const paged = { messages: /** @type {string[]} */ ([]), samples: /** @type {number[]} */ ([]) }
    let cursor = null
    for (let page = 0; page < 20; page++) {
      const got = await collector.readSince(runId, cursor, 4)
      assert.ok(got.messages.length <= 4 && got.samples.length <= 4)
      paged.messages.push(...got.messages.map((e) => `${e.simulator}|${e.report.key}`))
      paged.samples.push(...got.samples.map((s) => s.timeline.connected))
      cursor = got.cursor
      if (!got.more) break
    }
    assert.deepEqual(paged.messages, all.messages.map((e) => `${e.simulator}|${e.report.key}`))
    assert.deepEqual(paged.samples, all.samples.map((s) => s.timeline.connected))

    // New writes after the cursor, and only they.
    const later = `${runId}-later`
    await collector.reportSample(later, 'sim-a', sample(T0 + 1000))
    const first = await collector.readSince(later, null)
    await collector.reportMessage(later, 'sim-a', reportOf('sim-a', 3, 1))
    // A second in which the clients emitted carries its figures (the live metrics' emits and acks).
    const figures = { emits: { sent: 2, acked: 1, timedOut: 0, failed: 1, closed: 0, ackTime: { counts: [0, 0, 1, 0], sumSeconds: 0.004, count: 1 } } }
    await collector.reportSample(later, 'sim-a', { ...sample(T0 + 2000, { connected: 3 }), figures })
    await collector.reportServerSample(later, 'server-1', { ...sample(T0 + 2000).health, connected: 3, byTransport: { websocket: 3, polling: 0 } })
    const next = await collector.readSince(later, first.cursor)
    await collector.deleteRun(later)
    assert.deepEqual([first.messages.length, first.samples.length, first.serverSamples.length], [0, 1, 0])
    assert.equal(first.samples[0].figures, undefined, 'a second without emits has no figures')
    assert.deepEqual(next.messages.map((e) => [e.simulator, e.report.round]), [['sim-a', 3]])
    assert.deepEqual(next.samples.map((s) => s.timeline.connected), [3])
    assert.deepEqual(next.samples[0].figures, figures)
    assert.deepEqual(next.serverSamples.map((s) => s.connected), [3])

    const unknown = await collector.readSince(`${runId}-never`, null)
    assert.deepEqual([unknown.messages, unknown.samples, unknown.serverSamples, unknown.more], [[], [], [], false])
    await assert.rejects(collector.readSince(runId, /** @type {any} */ ({ messages: 'x' })), { code: CODES.INVALID_OPTION })
    await assert.rejects(collector.readSince(runId, null, 0), { code: CODES.INVALID_OPTION })
  })

  await t.test('readWindows: each simulator\'s window reports, once, in the order stored, in pages; bad ones refused', async () => {
    const window = (/** @type {number} */ index) =>
      /** @type {import('../../../lib/schema/result-schema.js').WindowReport} */ (
        /** @type {unknown} */ ({ index, relative: { count: 0, histogram: '' }, received: index })
      )
    const windowsRun = `${runId}-windows`
    for (const [sim, index] of /** @type {const} */ ([['sim-a', 7], ['sim-b', 7], ['sim-a', 8]])) await collector.reportWindow(windowsRun, sim, window(index))
    const first = await collector.readWindows(windowsRun, null, 2)
    assert.deepEqual(first.windows.map((w) => [w.simulator, w.report.index, w.report.received]), [['sim-a', 7, 7], ['sim-b', 7, 7]])
    assert.equal(first.more, true)
    const rest = await collector.readWindows(windowsRun, first.cursor)
    assert.deepEqual(rest.windows.map((w) => [w.simulator, w.report.index]), [['sim-a', 8]])
    assert.deepEqual(await collector.readWindows(windowsRun, rest.cursor), { windows: [], cursor: rest.cursor, more: false }, 'nothing new')
    assert.deepEqual((await collector.readWindows(`${runId}-never`, null)).windows, [])
    await assert.rejects(collector.reportWindow(windowsRun, 'sim-a', /** @type {any} */ ({ index: 1.5, relative: { histogram: '' } })), {
      code: CODES.COLLECTOR
    })
    await assert.rejects(collector.readWindows(windowsRun, /** @type {any} */ ({})), { code: CODES.INVALID_OPTION })
    await collector.deleteRun(windowsRun)
  })

  await t.test('dropWindows: the reports read up to a cursor are gone, the later ones stay and read once', async () => {
    const window = (/** @type {number} */ index) =>
      /** @type {import('../../../lib/schema/result-schema.js').WindowReport} */ (/** @type {unknown} */ ({ index, relative: { count: 0, histogram: '' } }))
    const dropRun = `${runId}-drop`
    for (const index of [1, 2, 3]) await collector.reportWindow(dropRun, 'sim-a', window(index))
    const first = await collector.readWindows(dropRun, null, 2)
    await collector.dropWindows(dropRun, first.cursor)
    assert.deepEqual((await collector.readWindows(dropRun, null)).windows.map((w) => w.report.index), [3], 'from the start: only what was not read')
    await collector.reportWindow(dropRun, 'sim-a', window(4))
    const rest = await collector.readWindows(dropRun, first.cursor)
    assert.deepEqual(rest.windows.map((w) => w.report.index), [3, 4], 'the reader\'s cursor still reads on')
    await collector.dropWindows(dropRun, rest.cursor)
    await collector.dropWindows(dropRun, rest.cursor)
    assert.deepEqual((await collector.readWindows(dropRun, null)).windows, [])
    await collector.dropWindows(`${runId}-never`, rest.cursor)
    await assert.rejects(collector.dropWindows(dropRun, /** @type {any} */ (null)), { code: CODES.INVALID_OPTION })
    await collector.deleteRun(dropRun)
  })

  await t.test('dropMessages: the reports read up to a cursor are gone with their dedupe, ' +
    'the later ones stay and read once; the bound counts only what is held', async () => {
    const dropRun = `${runId}-drop-lines`
    const line = (/** @type {number} */ seq) => messageReport({ round: null, seq, relativeMs: [1, 2] })
    for (const seq of [1, 2, 3]) await collector.reportMessage(dropRun, 'sim-a', line(seq))
    const first = await collector.readSince(dropRun, null, 2)
    await collector.dropMessages(dropRun, first.cursor.messages)
    assert.deepEqual((await collector.readSince(dropRun, null)).messages.map((e) => e.report.seq), [3], 'from the start: only what was not read')
    assert.deepEqual((await collector.getMessages(dropRun)).map((m) => m.seq), [3])
    await collector.reportMessage(dropRun, 'sim-a', line(4))
    const rest = await collector.readSince(dropRun, first.cursor)
    assert.deepEqual(rest.messages.map((e) => e.report.seq), [3, 4], 'the reader\'s cursor still reads on')
    await collector.dropMessages(dropRun, rest.cursor.messages)
    await collector.dropMessages(dropRun, rest.cursor.messages)
    assert.deepEqual((await collector.readSince(dropRun, null)).messages, [])
    await collector.dropMessages(`${runId}-never`, rest.cursor.messages)
    await assert.rejects(collector.dropMessages(dropRun, /** @type {any} */ (null)), { code: CODES.INVALID_OPTION })
    await collector.deleteRun(dropRun)
    // The bound counts the reports held: a follower that drops what it read never reaches it.
    const small = await create({ maxMessageReports: 2 })
    const smallRun = `bound-drop-${randomUUID()}`
    t.after(async () => { await small.deleteRun(smallRun); await small.close() })
    /** @type {import('../../../results/collector/types.js').ReadCursor | null} */
    let cursor = null
    for (let seq = 1; seq <= 5; seq++) {
      await small.reportMessage(smallRun, 'sim-a', line(seq))
      cursor = (await small.readSince(smallRun, cursor)).cursor
      await small.dropMessages(smallRun, cursor.messages)
    }
    assert.deepEqual(await small.getRefused(smallRun), { limit: 2, bySimulator: {} })
  })

  await hooks.afterWrites?.(runId)

  await t.test('deleteRun removes the run', async () => {
    await collector.deleteRun(runId)
    assert.equal((await collector.listRuns()).some((r) => r.id === runId), false)
    assert.deepEqual(await collector.getMessages(runId), [])
    assert.deepEqual(await collector.listSimulators(runId), [])
    await hooks.afterDelete?.(runId)
  })
}
