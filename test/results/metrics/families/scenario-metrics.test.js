/**
 * The clients' emits and the replies that come as events, in `run --metrics-port`: scraped from
 * the real endpoint during a real run (growing) and at its end (--metrics-linger's hook), equal
 * to result.json.
 */
import assert from 'node:assert/strict'
import test from 'node:test'
import { runTest } from '../../../../runner/index.js'
import { parseExposition } from '../../../helpers/prometheus-text.js'
import { waitFor } from '../../../helpers/wait.js'
import { startIoServer } from '../../../helpers/io-server.js'

/**
 * A socket.io 4 app that acks each `move` {id} and answers it with a `state` {id} event, but
 * every third one of a client: that reply never comes.
 * @param {import('node:test').TestContext} t
 */
async function startReplyServer (t) {
  const { io, url } = await startIoServer(t, { pingInterval: 1000, pingTimeout: 2000 })
  io.on('connection', (socket) => {
    let moves = 0
    socket.on('move', (/** @type {{ id?: string }} */ data, /** @type {(() => void) | undefined} */ ack) => {
      ack?.()
      if (++moves % 3 !== 0) socket.emit('state', { id: data?.id, ok: true })
    })
  })
  return url
}

test('run --metrics-port: emits sent, acked and their ack time, ' +
  'replies sent, replied, timed out and their reply time, as in result.json', { timeout: 60000 }, async (t) => {
  const url = await startReplyServer(t)
  /** @type {ReturnType<typeof parseExposition> | null} */
  let scraped = null
  const result = await runTest({
    target: url,
    rounds: 'none',
    hold: '2s',
    window: '1s',
    simulators: 2,
    clientsPerSimulator: 4,
    ramp: '200ms',
    emit: 'move {"id":"{{i}}-{{seq}}"}',
    emitRate: '5/s',
    emitAck: true,
    replyEvent: 'state',
    replyMatch: 'id',
    ackTimeout: '300ms',
    metricsPort: 0
  }, { metricsLinger: async (metricsUrl) => { scraped = parseExposition(await (await fetch(metricsUrl)).text()) } })
  assert.ok(scraped, 'scraped before the metrics server closed')
  const { sum } = /** @type {ReturnType<typeof parseExposition>} */ (scraped)
  const scenario = /** @type {NonNullable<import('../../../../lib/schema/result-schema.js').DistributionResult['scenario']>} */ (
    result.distributions[0].scenario)
  const emits = /** @type {NonNullable<typeof scenario.emits>} */ (scenario.emits)
  const replies = /** @type {NonNullable<typeof scenario.replies>} */ (scenario.replies)
  assert.ok(emits.sent > 0 && replies.replied > 0 && replies.timedOut > 0, JSON.stringify({ emits, replies: { ...replies, time: replies.time.count } }))
  assert.deepEqual(
    ['sent', 'acked', 'timed_out', 'failed', 'closed'].map((k) => sum(`ioswarm_emits_${k}`)),
    [emits.sent, emits.acked, emits.timedOut, emits.failed, emits.closed ?? 0], 'the emits, over both simulators')
  const ackTime = /** @type {NonNullable<typeof emits.ackTime>} */ (emits.ackTime)
  assert.equal(sum('ioswarm_emit_ack_seconds', { quantile: '0.99' }), ackTime.p99 / 1000)
  assert.deepEqual(
    ['sent', 'replied', 'timed_out', 'failed'].map((k) => sum(`ioswarm_replies_${k}`)),
    [replies.sent, replies.replied, replies.timedOut, replies.failed]
  )
  assert.equal(sum('ioswarm_reply_seconds', { quantile: '0.5' }), replies.time.p50 / 1000)
  assert.equal(sum('ioswarm_reply_seconds', { quantile: '0.99' }), replies.time.p99 / 1000)
  assert.equal(sum('ioswarm_reply_seconds', { quantile: '1' }), replies.time.max / 1000)
  // Labelled as every series of the run.
  const series = /** @type {ReturnType<typeof parseExposition>} */ (scraped).series.filter((s) => s.name === 'ioswarm_replies_sent')
  assert.deepEqual(series.map((s) => s.labels), [{ run: result.run.id, distribution: result.distributions[0].name }])
})

test('run --metrics-port: emits, acks and replies move during the run, merged over simulators; the end equals result.json', { timeout: 90000 }, async (t) => {
  const url = await startReplyServer(t)
  /** Where the run serves its metrics (--metrics-port 0: it says which port it got). @type {string | null} */
  let metricsUrl = null
  const stop = new AbortController()
  /** @type {ReturnType<typeof parseExposition> | null} */
  let scraped = null
  const running = runTest({
    target: url,
    rounds: 'none',
    hold: '60s',
    window: '1s',
    simulators: 2,
    clientsPerSimulator: 3,
    ramp: '200ms',
    emit: 'move {"id":"{{i}}-{{seq}}"}',
    emitRate: '3/s',
    emitAck: true,
    replyEvent: 'state',
    replyMatch: 'id',
    ackTimeout: '2s',
    metricsPort: 0
  }, {
    signal: stop.signal,
    log: (line) => { metricsUrl ??= /^metrics: (http:\S+)$/.exec(line)?.[1] ?? null },
    metricsLinger: async (served) => { scraped = parseExposition(await (await fetch(served)).text()) }
  })
  t.after(() => stop.abort())
  let ended = false
  running.then(() => { ended = true }, () => { ended = true })
  const scrape = async () => {
    const text = metricsUrl && await (await fetch(metricsUrl).catch(() => null))?.text()
    return text ? parseExposition(text).sum : null
  }
  // Both simulators' acks (the series are merged: one per run, no simulator label).
  const first = /** @type {(name: string) => number} */ (await waitFor(async () => {
    const sum = await scrape()
    return sum && sum('ioswarm_emits_acked') > 0 && sum('ioswarm_replies_replied') > 0 ? sum : null
  }, { timeoutMs: 40000, intervalMs: 200, message: 'acks and replies in /metrics during the run' }))
  assert.ok(first('ioswarm_emit_ack_latency_seconds_count') > 0 && first('ioswarm_reply_latency_seconds_count') > 0)
  const second = /** @type {(name: string) => number} */ (await waitFor(async () => {
    const sum = await scrape()
    return sum && sum('ioswarm_emits_acked') > first('ioswarm_emits_acked') ? sum : null
  }, { timeoutMs: 30000, intervalMs: 200, message: 'more acks in a later scrape' }))
  assert.ok(second('ioswarm_emit_ack_latency_seconds_count') >= first('ioswarm_emit_ack_latency_seconds_count'))
  assert.equal(ended, false, 'both scrapes before the end')
  stop.abort()
  const result = await running
  assert.ok(scraped, 'scraped before the metrics server closed')
  const { sum } = /** @type {ReturnType<typeof parseExposition>} */ (scraped)
  const scenario = /** @type {NonNullable<import('../../../../lib/schema/result-schema.js').DistributionResult['scenario']>} */ (
    result.distributions[0].scenario)
  const emits = /** @type {NonNullable<typeof scenario.emits>} */ (scenario.emits)
  const replies = /** @type {NonNullable<typeof scenario.replies>} */ (scenario.replies)
  assert.ok(emits.acked >= second('ioswarm_emits_acked'), JSON.stringify(emits))
  assert.deepEqual(['sent', 'acked', 'timed_out', 'failed', 'closed'].map((k) => sum(`ioswarm_emits_${k}`)),
    [emits.sent, emits.acked, emits.timedOut, emits.failed, emits.closed ?? 0], 'the end: result.json\'s emits, none counted twice')
  assert.equal(sum('ioswarm_emit_ack_latency_seconds_count'), emits.acked)
  assert.deepEqual(
    ['sent', 'replied', 'timed_out', 'failed'].map((k) => sum(`ioswarm_replies_${k}`)),
    [replies.sent, replies.replied, replies.timedOut, replies.failed]
  )
  assert.equal(sum('ioswarm_reply_latency_seconds_count'), replies.replied)
})
