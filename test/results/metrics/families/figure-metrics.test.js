/**
 * The clients' own figures, live: a second's figures (the simulator's own createFigures) add up;
 * a final report raises each simulator's share to its final figures, once, and later samples of
 * it add nothing: no double counting whatever arrives in which order.
 */
import assert from 'node:assert/strict'
import test from 'node:test'
import { ackClosed, ackTimeout } from '../../../../lib/errors.js'
import { createHistogram, encode, recordMs, summarize } from '../../../../lib/measure/histogram.js'
import { createRunMetrics } from '../../../../results/metrics/run-metrics.js'
import { createFigures } from '../../../../simulator/recording/figures.js'
import { parseExposition } from '../../../helpers/prometheus-text.js'

/** @param {number[]} delaysMs */
function encoded (delaysMs) {
  const h = createHistogram()
  for (const ms of delaysMs) recordMs(h, ms)
  return { ...summarize(h), histogram: encode(h) }
}

/** @param {number} t @param {import('../../../../lib/schema/result-schema.js').SecondFigures | null} figures @returns {any} */
const sample = (t, figures) => ({
  timeline: { t, connected: 1, byTransport: { websocket: 1 }, connects: 0, disconnects: 0, errors: 0, messages: 0 },
  health: { t, loopDelayP50Ms: 1, loopDelayP99Ms: 2, loopDelayMaxMs: 3, elu: 0.1, cpuPct: 5, rssBytes: 1e8, heapUsedBytes: 5e7 },
  ...(figures ? { figures } : {})
})

/**
 * A second of a simulator's clients: `acked` acks of `ackMs` each, one timeout, one reply, a custom count and timing.
 * @param {{ acked: number, ackMs: number }} spec
 */
function second ({ acked, ackMs }) {
  const f = createFigures()
  for (let i = 0; i < acked + 1; i++) f.sent()
  for (let i = 0; i < acked; i++) f.ack(null, ackMs)
  f.ack(ackTimeout(), 300)
  f.replySent()
  f.replyEnded(null, 40)
  f.count('orders', -2)
  f.timing('lobby', 120)
  return /** @type {import('../../../../lib/schema/result-schema.js').SecondFigures} */ (f.take())
}

/**
 * A final report with these totals (the last acks ended `closed` by the swarm's end).
 * @param {string} simulator
 * @param {{ sent: number, acked: number, timedOut: number, closed: number, ackMs: number[], replyMs: number[], orders: number, lobbyMs: number[] }} totals
 * @returns {any}
 */
const final = (simulator, { sent, acked, timedOut, closed, ackMs, replyMs, orders, lobbyMs }) => ({
  simulator,
  clients: { errors: {}, disconnects: {} },
  scenario: {
    emits: { event: 'move', emitters: 1, sent, acked, timedOut, failed: 0, closed, reasons: {}, ackTime: encoded(ackMs) },
    replies: { events: ['state'], sent: replyMs.length, replied: replyMs.length, timedOut: 0, failed: 0, reasons: {}, time: encoded(replyMs) }
  },
  custom: { counts: { orders }, timings: { lobby: encoded(lobbyMs) }, refused: 0, refusedNames: [] }
})

/** @param {ReturnType<typeof createRunMetrics>} m */
async function scrape (m) {
  return parseExposition(await m.registry.metrics()).sum
}

test('a simulator\'s seconds add up live; its final report raises its share to the final figures once; a later sample adds nothing', async () => {
  const m = createRunMetrics({ run: 'r' })
  m.observeSample('s1', sample(1000, second({ acked: 3, ackMs: 4 })))
  m.observeSample('s2', sample(1000, second({ acked: 2, ackMs: 700 })))
  m.observeSample('s1', sample(1000, second({ acked: 50, ackMs: 4 }))) // the same second again: applied once
  m.observeSample('s1', sample(2000, null)) // a second without emits
  // A second of another version's simulator (times as encoded HDR): its counts, not its times.
  m.observeSample('s3', sample(1000, /** @type {any} */ ({ emits: { sent: 1, acked: 1, timedOut: 0, failed: 0, closed: 0, ackTime: encoded([4]) } })))
  let sum = await scrape(m)
  assert.equal(sum('ioswarm_emits_sent'), 4 + 3 + 1)
  assert.equal(sum('ioswarm_emits_acked'), 5 + 1)
  assert.equal(sum('ioswarm_emits_timed_out'), 2)
  assert.equal(sum('ioswarm_emit_ack_latency_seconds_count'), 5)
  assert.equal(sum('ioswarm_emit_ack_latency_seconds_bucket', { le: '0.005' }), 3, 'the 4 ms acks')
  assert.equal(sum('ioswarm_emit_ack_latency_seconds_bucket', { le: '1' }), 5, 'and the 700 ms ones')
  assert.equal(sum('ioswarm_replies_replied'), 2)
  assert.equal(sum('ioswarm_reply_latency_seconds_count'), 2)
  assert.equal(sum('ioswarm_custom_counted', { name: 'orders' }), -4, 'a count may go down')
  assert.equal(sum('ioswarm_custom_timings_recorded', { name: 'lobby' }), 2)
  assert.equal(sum('ioswarm_custom_duration_seconds_count', { name: 'lobby' }), 2)
  assert.equal(sum('ioswarm_emit_ack_seconds'), 0, 'the exact percentiles wait for the final reports')

  // s1 ends: its final has one more ack (4 ms) and one emit its close ended, after its last sample.
  const s1 = final('s1', { sent: 6, acked: 4, timedOut: 1, closed: 1, ackMs: [4, 4, 4, 4], replyMs: [40], orders: -2, lobbyMs: [120] })
  m.observeFinals([s1])
  m.observeFinals([s1]) // fed again at the next refresh: applied once
  m.observeSample('s1', sample(3000, second({ acked: 9, ackMs: 4 }))) // read after its final (another page of the stream)
  sum = await scrape(m)
  assert.equal(sum('ioswarm_emits_sent'), 6 + 3 + 1)
  assert.equal(sum('ioswarm_emits_acked'), 4 + 2 + 1)
  assert.equal(sum('ioswarm_emits_closed'), 1)
  assert.equal(sum('ioswarm_emit_ack_latency_seconds_count'), 4 + 2)
  assert.equal(sum('ioswarm_emit_ack_latency_seconds_bucket', { le: '0.005' }), 4)

  // s2 ends with exactly what its samples had: nothing moves but the exact percentiles.
  const s2 = final('s2', { sent: 3, acked: 2, timedOut: 1, closed: 0, ackMs: [700, 700], replyMs: [40], orders: -2, lobbyMs: [120] })
  m.observeFinals([s1, s2])
  sum = await scrape(m)
  assert.deepEqual(
    ['sent', 'acked', 'timed_out', 'failed', 'closed'].map((k) => sum(`ioswarm_emits_${k}`)),
    [9 + 1, 6 + 1, 2, 0, 1],
    's3 (no final) keeps its second'
  )
  assert.equal(sum('ioswarm_emit_ack_latency_seconds_count'), 6)
  assert.equal(sum('ioswarm_emit_ack_latency_seconds_bucket', { le: '+Inf' }), 6)
  assert.deepEqual(['sent', 'replied', 'timed_out', 'failed'].map((k) => sum(`ioswarm_replies_${k}`)), [2, 2, 0, 0])
  assert.equal(sum('ioswarm_reply_latency_seconds_count'), 2)
  assert.equal(sum('ioswarm_custom_counted', { name: 'orders' }), -4)
  assert.equal(sum('ioswarm_custom_duration_seconds_count', { name: 'lobby' }), 2)
  assert.ok(sum('ioswarm_emit_ack_seconds', { quantile: '1' }) > 0.6, 'the exact max, from the merged finals')
})

test('a final report before any sample (a simulator that reported no second) counts once, in full', async () => {
  const m = createRunMetrics({ run: 'r' })
  m.observeFinals([final('s1', { sent: 5, acked: 3, timedOut: 0, closed: 2, ackMs: [1, 2, 3], replyMs: [], orders: 7, lobbyMs: [] })])
  const sum = await scrape(m)
  assert.deepEqual(['sent', 'acked', 'closed'].map((k) => sum(`ioswarm_emits_${k}`)), [5, 3, 2])
  assert.equal(sum('ioswarm_emit_ack_latency_seconds_count'), 3)
  assert.equal(sum('ioswarm_custom_counted', { name: 'orders' }), 7)
})

test('a second\'s figures: an ack closed on purpose, a failed one, and nothing at all', () => {
  const f = createFigures()
  assert.equal(f.take(), null, 'nothing told: no figures')
  f.sent()
  f.sent()
  f.ack(ackClosed(), 5)
  f.ack(new Error('transport close'), 5)
  const taken = f.take()
  assert.deepEqual({ ...taken?.emits, ackTime: taken?.emits.ackTime.count }, { sent: 2, acked: 0, timedOut: 0, failed: 1, closed: 1, ackTime: 0 })
  assert.equal(taken?.replies, undefined)
  assert.equal(taken?.custom, undefined)
  assert.equal(f.take(), null, 'taken: a fresh start')
})
