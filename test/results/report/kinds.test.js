import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { resultKind, simulatorAsRun, toReportable } from '../../../results/report/kinds.js'
import { buildAnyReport } from '../../../results/report/index.js'
import { evaluateThresholds, parseThreshold } from '../../../results/thresholds/thresholds.js'
import { formatRunSummary } from '../../../results/text/summary.js'

/** @param {string} name */
const fixture = (name) => JSON.parse(readFileSync(new URL(`../../fixtures/${name}`, import.meta.url), 'utf8'))

test('resultKind names each kind a report reads, once; anything else is null', () => {
  assert.equal(resultKind(fixture('run-small.json')), 'run')
  assert.equal(resultKind(fixture('sim-chat.json')), 'simulator')
  assert.equal(resultKind(fixture('capacity-small.json')), 'capacity')
  for (const value of [null, [], {}, { kind: 'window' }, 'run', { kind: ['run'] }]) assert.equal(resultKind(value), null, JSON.stringify(value))
})

test('a simulate result reads as a run of one distribution with one simulator', () => {
  const sim = fixture('sim-chat.json')
  const run = simulatorAsRun(sim)
  assert.equal(run.kind, 'run')
  assert.deepEqual(run.from, { kind: 'simulator', workers: 0, workersNote: null, rolledUpMessages: 10 })
  assert.equal(run.target.url, 'http://127.0.0.1:3100')
  assert.equal(run.distributions.length, 1)
  const [d] = run.distributions
  assert.equal(d.name, '1x40')
  assert.deepEqual(d.clients.storms, [])
  assert.deepEqual(d.simulatorList.map((s) => [s.id, s.clients.connected, s.health?.saturatedSeconds]), [['sim-chat', 40, 1]])
  assert.deepEqual(d.rounds, [], 'chat lines carry no round')
  assert.equal(d.messages.length, 20, 'the messages kept whole; the rolled-up ones are not messages')
  assert.ok(d.messages.every((m) => m.simulators === 1 && !('histogram' in m.relative)))
  // The 10 rolled-up lines count in the delivery totals.
  const total = /** @type {import('../../../lib/schema/result-schema.js').DeliveryBreakdown} */ (d.deliveries).total
  assert.equal(total.expected, 30 * 39)
  assert.equal(total.missing, 1)
  assert.equal(total.messages, 30, 'the rolled-up lines counted as the messages they were')
  assert.equal(d.health.filter((h) => h.saturated).length, 1, 'saturated seconds flagged as a run\'s collector flags them')
  assert.ok(d.timeline.every((p) => p.simulator === 'sim-chat'))
  assert.ok(d.connectTime.curve.length > 0 && !('histogram' in d.connectTime))
  assert.equal(d.scenario?.emits?.sent, 120)
  assert.match(
    formatRunSummary(run),
    /^no rounds; all 30 messages: reached 1169\/1170, missing 1, rel p50 \S+, p99 \S+, max \S+, abs p99 \S+$/m,
    'the terminal summary too'
  )
})

test('a --workers result: one simulator, its workers said, health per second the worst worker\'s', () => {
  const sim = fixture('sim-workers.json')
  const run = simulatorAsRun(sim)
  assert.equal(run.from?.workers, 2)
  assert.match(String(run.from?.workersNote), /relative to the first receipt in each worker process/)
  const [d] = run.distributions
  assert.equal(d.clients.target, 40)
  assert.equal(sim.health.samples.length, 32)
  assert.equal(d.health.length, 16, 'one sample per second')
  assert.equal(d.health[8].cpuPct, 97, 'the saturated worker\'s second')
  assert.equal(d.health[9].cpuPct, 18 + (9 % 6) * 2 + 1, 'the busier worker otherwise')
  assert.equal(d.deliveries?.total.expected, 30 * 38)
})

test('thresholds judge a result without rounds over all its messages, and say so', () => {
  const run = simulatorAsRun(fixture('sim-chat.json'))
  const verdicts = evaluateThresholds(run, ['p99<1s', 'abs.p99<1s', 'missing=0', 'missing<1%', 'avg<1s'].map(parseThreshold))
  assert.deepEqual(verdicts.map((v) => v.ok), [true, true, false, true, false])
  assert.match(verdicts[0].actual, /^p99 \d+(\.\d+)?ms \(all messages, 1x40\)$/)
  assert.equal(verdicts[2].actual, 'missing 1 of 1170 expected deliveries (0.085%)')
  assert.match(verdicts[4].actual, /no data/, 'avg of avgs is per round: none here')
})

test('toReportable and buildAnyReport: each kind to its page', () => {
  assert.equal(toReportable(fixture('capacity-small.json')).kind, 'capacity')
  assert.equal(toReportable(fixture('run-small.json')).kind, 'run')
  const sim = toReportable(fixture('sim-chat.json'))
  assert.equal(sim.kind, 'simulator')
  assert.equal(sim.result.kind, 'run')
  assert.match(buildAnyReport(fixture('sim-chat.json')), /ioswarm simulate sim-chat · /)
  assert.match(buildAnyReport(fixture('sim-workers.json')), /ioswarm simulate --workers 2 sim-w · .*one simulator of 2 worker processes/s)
  assert.match(buildAnyReport(fixture('capacity-small.json')), /data-chart="capacity-delay"/)
})

test('a simulate report (one process and --workers) shows the logins and the TLS handshake beside the connect time', () => {
  const num = (/** @type {string[]} */ values) => values.map((v) => `<td class="num">${v}</td>`).join('')
  // sim-workers: the two processes' logins summed by MERGE_RULES (the first's 3 failures), TLS times merged.
  /** @type {[string, string[], string, string][]} */
  const cases = [['sim-chat.json', ['45', '42', '2', '3'], 'HTTP 500 ×2, timeout ×1', '(TLS p50 2.30ms, p99 3.30ms)'],
    ['sim-workers.json', ['47', '44', '4', '3'], 'HTTP 500 ×2, timeout ×1', '(TLS p50 2.90ms, p99 4.30ms)']]
  for (const [name, row, reasons, tls] of cases) {
    const html = buildAnyReport(fixture(name))
    assert.match(
      html,
      new RegExp(`<h3>Logins</h3>.*<tr class="warn"><td>POST /login</td>${num(row)}(<td class="num">[\\d.]+ms</td>){3}<td>${reasons}</td>`, 's'),
      name
    )
    assert.equal(html.split(tls).length, 3, `${name}: ${tls} in the overview and the connect-time chart`)
  }
  const sim = fixture('sim-chat.json')
  delete sim.logins
  delete sim.clients.tlsTime
  const older = buildAnyReport(sim)
  assert.doesNotMatch(older, /Logins|TLS p50/, 'an older result without them shows nothing')
})
