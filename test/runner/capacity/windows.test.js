/**
 * `ioswarm capacity` without rounds: the load is the app's own traffic, each step held
 * --step-duration and judged on its windows. Over the emit rate at a fixed client count against
 * a socket.io 4 server that acks late once its received rate passes a known value; over the
 * clients against a chat app, judged on connected and missing; against the reference server, a
 * scenario's acks, replies and own figures, with the server's /stats in each step.
 */
import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { buildCapacityReport, capacityStepsCsv, summaryJson } from '../../../results/index.js'
import { runCapacity } from '../../../runner/capacity/index.js'
import { startAppServer } from '../../helpers/app-server.js'
import { startIoServer } from '../../helpers/io-server.js'

/** Lines a second past which the server below acks late. */
const RATE_LIMIT = 60
/** Over how long it counts them. */
const RATE_SPAN_MS = 1000
/** How late it acks then: the SLO is on ack.p50, which a loaded machine's stalls (a few late acks) leave alone. */
const LATE_MS = 800

/**
 * A socket.io 4 server that acks each `line` at once while it has heard at most RATE_LIMIT lines
 * a second over the last RATE_SPAN_MS, and LATE_MS late past that.
 * @param {import('node:test').TestContext} t
 */
async function startRateLimitedServer (t) {
  const { io, url } = await startIoServer(t, { pingInterval: 1000, pingTimeout: 2000 })
  /** @type {number[]} arrival times of the lines of the last RATE_SPAN_MS */
  const heard = []
  io.on('connection', (socket) => {
    socket.on('line', (/** @type {unknown} */ _data, /** @type {(() => void) | undefined} */ ack) => {
      const now = Date.now()
      heard.push(now)
      while (heard.length > 0 && heard[0] <= now - RATE_SPAN_MS) heard.shift()
      if (heard.length > RATE_LIMIT * RATE_SPAN_MS / 1000) setTimeout(() => ack?.(), LATE_MS)
      else ack?.()
    })
  })
  return url
}

/** @param {string[]} lines */
const logTo = (lines) => (/** @type {string} */ line) => { lines.push(line) }

/** Small and quick: lean clients, short ramps, one-second windows, four-second steps (an ack late by LATE_MS lands inside). */
const QUICK = { simulators: 2, engine: 'lean', ramp: '200ms', connectTimeout: '10s', window: '1s', stepDuration: '4s' }

describe('capacity without rounds', { concurrency: true }, () => {
  test('--vary emit-rate: the messages a second 10 clients may send before the acks come late, within --precision of the server\'s limit', async (t) => {
    const url = await startRateLimitedServer(t)
    /** @type {string[]} */
    const lines = []
    const result = await runCapacity({
      ...QUICK,
      target: url,
      vary: 'emit-rate',
      clients: 10,
      emit: 'line {"n":{{seq}}}',
      emitAck: true,
      emitTiming: 'fixed',
      slo: ['ack.p50<400ms'],
      start: 30,
      max: 270,
      growth: 3,
      precision: '50%'
    }, { log: logTo(lines) })
    const log = lines.join('\n')
    assert.match(lines[0], /10 clients \(10 emitting\), from 30 to at most 270 messages a second.*judged on its worst 1 s window/, log)
    assert.equal(result.outcome, 'found', log)
    assert.equal(result.vary, 'emit-rate')
    const capacity = /** @type {number} */ (result.capacity)
    assert.ok(capacity <= RATE_LIMIT && capacity >= RATE_LIMIT * 0.5, `capacity ${capacity} messages/s within 50 % below ${RATE_LIMIT}: ${log}`)
    // Well below the limit passes, well above fails (a loaded machine may measure a step twice: inconclusive, again).
    const verdicts = (/** @type {number} */ rate) =>
      new Set(result.steps.filter((s) => s.windowed?.emitRate === rate && s.verdict !== 'inconclusive').map((s) => s.verdict))
    assert.deepEqual([...verdicts(30)], ['pass'], log)
    assert.deepEqual([...verdicts(90)], ['fail'], log)
    for (const s of result.steps) {
      assert.equal(s.clients, 10)
      const w = /** @type {import('../../../lib/schema/capacity-schema.js').StepWindowed} */ (s.windowed)
      assert.ok(w.windows >= 2, `judged on the windows of its hold: ${log}`)
      // The clients sent what the step asked for (the rate reached the simulators over the resize path).
      assert.ok(
        Math.abs(w.emitsPerSecond - /** @type {number} */ (w.emitRate)) <= /** @type {number} */ (w.emitRate) * 0.25,
        `sent ${w.emitsPerSecond}/s at ${w.emitRate}/s: ${log}`
      )
    }
    const failed = result.steps.find((s) => s.windowed?.emitRate === 90 && s.verdict === 'fail')
    assert.match(failed?.why ?? '', /^ack\.p50 \d+ms \(window \d\d:\d\d:\d\d–\d\d:\d\d:\d\d, 90 messages\/s, \d+ acks\)$/, 'the SLO names the worst window')
    assert.ok((failed?.windowed?.ack?.p50 ?? 0) >= LATE_MS - 10, log)
    assert.match(
      result.answer,
      new RegExp(`^capacity: ${capacity} messages/s at ack\\.p50<400ms — websocket \\(lean\\), target http://127\\.0\\.0\\.1:\\d+, 2 simulators, 10 clients`)
    )
    assert.equal(result.options.vary, 'emit-rate')
    assert.equal(result.options.rounds, 'none')
    // The answer in the report and steps.csv: the steps against messages a second, with their acks.
    const html = buildCapacityReport(result)
    assert.ok(
      html.includes(`${capacity} messages/s</div>`) && html.includes('<th>messages/s</th>') && html.includes('<th>ack p99</th>'),
      'the report names the rate'
    )
    assert.match(html, /Delay and missing deliveries against messages a second/)
    const [head, first] = capacityStepsCsv(result).split('\r\n').map((l) => l.split(','))
    assert.equal(first[head.indexOf('emit_rate')], '30')
    assert.ok(Number(first[head.indexOf('ack_p99_ms')]) > 0)
    // --summary-json and --junit name the rate the SLO held at.
    const [summary] = summaryJson([{ kind: 'capacity', result }], { command: 'capacity', exitCode: 0, version: '0' }).results
    assert.equal('vary' in summary && summary.vary, 'emit-rate')
    assert.equal(summary.verdicts.list[1].name, `ack.p50<400ms at ${capacity} messages/s`)
  })

  test('--vary clients against a chat app, no --token: each step judged on connected and missing over its windows', async (t) => {
    const app = await startAppServer(t)
    /** @type {string[]} */
    const lines = []
    const result = await runCapacity({
      ...QUICK,
      target: app.url,
      emit: 'chat {"text":"hi from {{i}}"}',
      emitRate: '2/s',
      event: 'chat',
      slo: ['connected>=99%', 'missing=0'],
      start: 4,
      max: 8,
      growth: 2
    }, { log: logTo(lines) })
    const log = lines.join('\n')
    assert.equal(result.outcome, 'max', log)
    assert.equal(result.capacity, 8)
    assert.deepEqual(result.steps.map((s) => [s.clients, s.connected, s.verdict]), [[4, 4, 'pass'], [8, 8, 'pass']], log)
    for (const s of result.steps) {
      assert.ok(s.messages > 0 && s.expected > 0 && s.missing === 0, `deliveries of the chat's own lines in the hold: ${log}`)
      assert.equal(s.windowed?.emitRate, null)
    }
    assert.match(lines.find((l) => l.startsWith('step 2')) ?? '', /^step 2 \(grow\): 8 clients: connected 8 .*worst of \d windows: relative p50/, log)
  })

  test('against the reference server: a scenario\'s ack timeouts, replies (emitAndWait) ' +
    'and own figures judged on the windows; the server\'s stats in the step', async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'ioswarm-capacity-hooks-'))
    t.after(() => rmSync(dir, { recursive: true, force: true }))
    const hooks = join(dir, 'hooks.js')
    // Every 250 ms each client sends a line with an ack, timed and counted, then one the relay brings back to it (the reply).
    writeFileSync(hooks, `
      export function onConnect (socket, ctx) {
        let n = 0
        socket.every(250, async () => {
          const started = performance.now()
          await socket.emitWithAck('chat', { text: 'hi' })
          ctx.timing('acked', performance.now() - started)
          ctx.count('lines')
          await socket.emitAndWait('chat', { id: ctx.i + '.' + n++ }, 'chat', 'id')
        })
      }
    `)
    /** @type {string[]} */
    const lines = []
    const slo = ['ack.timeouts<50%', 'reply.p99<5s', 'reply.timeouts<50%', 'custom.acked.p99<5s', 'custom.lines.count>=4']
    const result = await runCapacity({
      ...QUICK, rounds: 'none', scenario: hooks, replyEvent: 'chat', event: 'chat', slo, start: 4, max: 4
    }, { log: logTo(lines) })
    const log = lines.join('\n')
    assert.equal(result.outcome, 'max', log)
    const [step] = result.steps
    assert.equal(step.verdict, 'pass', log)
    const actual = Object.fromEntries(step.slo.map((v) => [v.expression, v.actual]))
    assert.match(actual['ack.timeouts<50%'], /^ack\.timeouts \d+ of \d+ emits sent/, log)
    assert.match(actual['reply.p99<5s'], /^reply\.p99 [\d.]+ ?ms \(window [\d:]+–[\d:]+, 4 clients, \d+ replies\)$/, log)
    assert.match(actual['reply.timeouts<50%'], /^reply\.timeouts \d+ of \d+ emits that waited/, log)
    assert.match(actual['custom.acked.p99<5s'], /^custom\.acked\.p99 [\d.]+ ?ms \(window [\d:]+–[\d:]+, 4 clients, \d+ timings\)$/, log)
    assert.match(actual['custom.lines.count>=4'], /^custom\.lines\.count \d+$/, log)
    // The reference server's /stats over the hold, as a step with rounds has them.
    const server = /** @type {NonNullable<typeof step.server>} */ (step.server)
    assert.ok(server, `the server's stats over the hold: ${log}`)
    assert.ok(server.connectedMax >= 4 && server.rssMaxBytes > 0 && server.cpuPctMax >= 0, JSON.stringify(server))
    assert.equal(typeof server.loopDelayP99MaxMs, 'number')
    assert.match(lines.find((l) => l.startsWith('step 1')) ?? '', /, server cpu max \d+%, loop p99 max [\d.]+ ?ms → pass$/, log)
  })
})
