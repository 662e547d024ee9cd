import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import {
  FLOOR_NOTE, formatDate, formatRunSummary, formatThresholds, plain, summarizeHealth, summarizeRun, unmeasuredCaveat,
  compareLayouts, layoutHostOf
} from '../../../results/text/summary.js'

/** @param {string} name @returns {import('../../../lib/schema/result-schema.js').RunResult} */
const fixture = (name) => JSON.parse(readFileSync(new URL(`../../fixtures/${name}`, import.meta.url), 'utf8'))

test('formatRunSummary prints an aligned round table per distribution, health and stale simulators', () => {
  const text = formatRunSummary(fixture('run-small.json'))
  const lines = text.split('\n')
  assert.equal(lines[0], 'run fixture small (run-fixture-small), 2024-06-01 10:00:00 UTC, 53s, target http://127.0.0.1:3000 (reference server)')
  assert.ok(lines.includes('distribution 2x500: 2 simulators x 500 clients, connected 1000/1000, failed 0, connect p99 28.5ms (TLS p50 1.90ms, p99 6.40ms)'))
  assert.ok(
    lines.includes(
      'logins (POST /login): 1002/1006 ok, time p50 10.5ms, p99 15.5ms, max 15.5ms; failed HTTP 503: 4; again after a refusal (HTTP 401/403 or a refused CONNECT) 2'
    )
  )
  const header = lines.findIndex((l) => l.startsWith('round  plan'))
  assert.match(lines[header + 2], /^ {4}1 {2}5x1000ms +5 {2}5000\/5000 +0 +5\.30ms +18\.3ms +31\.4ms +8\.30ms +21\.3ms +5\.71ms +24\.1ms +26\.8ms +95%$/)
  assert.match(lines[header + 3], /^ {4}2 {2}5x500ms +5 {2}4999\/5000 +1 +6\.80ms +22\.8ms/)
  assert.equal(lines[header + 2].length, lines[header].length, 'columns align')
  assert.match(text, /health of 2 simulators: worst event-loop p99 94\.0ms \(2x500-sim-1\), CPU max 99% \(2x500-sim-1\), saturated 3s \(2x500-sim-1\)/)
  assert.match(text, /health of 4 simulators: .*never saturated/)
  assert.match(text, /stale simulators: 4x250-sim-4/)
  assert.ok(
    lines.includes(
      'distribution 4x250: 4 simulators x 250 clients, connected 998/1000 (250 of them on 1 stale simulator, 250 connected when last heard from), failed 2, connect p99 28.0ms'
    ),
    lines.find((l) => l.startsWith('distribution 4x250'))
  )
  assert.match(lines[header + 3], / 1\.36ms +1\.52ms +6%$/, 'round 2: the simulators were not the bottleneck')
  assert.equal(lines.at(-1), FLOOR_NOTE)
})

test('received never exceeds expected without its reason beside it: the copies late joiners got are named, and what that means', () => {
  const run = fixture('run-small.json')
  const [d] = run.distributions
  const late = { ...d, rounds: d.rounds.map((r, k) => (k === 0 ? { ...r, received: r.expected + 3 } : r)) }
  const text = formatRunSummary({ ...run, distributions: [late] })
  assert.match(text, /^ {4}1 {2}5x1000ms +5 {2}5003\/5000 \(3 not owed\) +0 /m)
  assert.match(text, /^ {4}2 {2}5x500ms +5 {2}4999\/5000 +1 /m, 'a round without such copies as before')
  assert.match(text, /^not owed: copies received by clients that connected after the message was sent \(late joiners\)/m)
  assert.doesNotMatch(formatRunSummary(run), /not owed/, 'nothing said when received is within expected')
})

test('rounds without receipts show dashes, simulators without health say so', () => {
  const text = formatRunSummary(fixture('run-sparse.json'))
  assert.match(text, /^ {4}1 {2}5x1000ms +0 {2}0\/0 +0 +- +- +- +- +- +- +- +- +-$/m)
  assert.match(text, /health: not reported by the 4 simulators/)
  assert.match(text, /target http:\/\/127\.0\.0\.1:4000,?$/m)
})

test('names from a result cannot send control characters to the terminal', () => {
  assert.equal(plain('a\u001b[31mred\u0007\u2028b'), 'a?[31mred??b')
  const text = formatRunSummary(fixture('run-hostile.json'))
  assert.ok([...text].every((c) => c === '\n' || (c >= ' ' && c !== '\u007f' && c !== '\u2028')), 'only printable characters and newlines')
})

test('summarizeHealth names the worst simulator per measure', () => {
  const [first, second] = fixture('run-small.json').distributions.map(summarizeHealth)
  assert.deepEqual(first, {
    simulators: 2,
    loopDelayP99: { ms: 94, simulator: '2x500-sim-1' },
    cpu: { pct: 99, simulator: '2x500-sim-1' },
    saturated: [{ seconds: 3, simulator: '2x500-sim-1' }],
    stale: []
  })
  assert.deepEqual(second.stale, ['4x250-sim-4'])
})

test('summarizeRun is plain JSON with the rounds as in the result', () => {
  const run = fixture('run-small.json')
  const summary = JSON.parse(JSON.stringify(summarizeRun(run)))
  assert.equal(summary.run.id, 'run-fixture-small')
  assert.deepEqual(summary.distributions[1].rounds, run.distributions[1].rounds)
  assert.deepEqual(summary.distributions[1].health.stale, ['4x250-sim-4'])
})

test('formatThresholds marks each verdict and counts failures', () => {
  assert.equal(formatThresholds([]), 'thresholds: none')
  const text = formatThresholds([
    { expression: 'p99<1ms', ok: false, actual: 'p99 24.6ms (round 2, 4x250)' },
    { expression: 'missing<5', ok: true, actual: 'missing 1' }
  ])
  assert.match(text, /^FAIL {2}p99<1ms +p99 24\.6ms \(round 2, 4x250\)$/m)
  assert.match(text, /^pass {2}missing<5 +missing 1$/m)
  assert.match(text, /thresholds: 1 of 2 FAILED$/)
  assert.match(formatThresholds([{ expression: 'x', ok: true, actual: 'y' }]), /thresholds: all 1 passed$/)
})

test('formatDate is UTC', () => {
  assert.equal(formatDate(Date.UTC(2024, 0, 2, 3, 4, 5)), '2024-01-02 03:04:05 UTC')
  assert.equal(formatDate(NaN), '-')
})

test('a distribution that measured nothing while other events arrived gets a caveat naming them; the run id is not repeated as its name', () => {
  const run = fixture('run-small.json')
  const [d] = run.distributions
  const quiet = {
    ...d,
    rounds: d.rounds.map((r) => ({ ...r, received: 0 })),
    messages: [],
    clients: { ...d.clients, unmeasuredEvents: { news: 3700, 'score\u001b[2J': 2 } }
  }
  assert.equal(
    unmeasuredCaveat(quiet),
    'CAVEAT: no broadcast was measured, but the clients received other events: "news" ×3700, "score?[2J" ×2; measure them with --event news (or --event \'*\')'
  )
  assert.equal(unmeasuredCaveat({ ...quiet, rounds: d.rounds, messages: d.messages }), null, 'nothing to say when broadcasts were measured')
  // Without rounds (a chat: the app's relayed lines, in windows and messages), the app's `node` event beside them is no caveat.
  const window = (/** @type {number} */ received) => /** @type {import('../../../lib/schema/result-schema.js').WindowResult} */ (
    /** @type {unknown} */ ({ index: 1, received }))
  const chat = { ...quiet, rounds: [], clients: { ...d.clients, unmeasuredEvents: { node: 6 } } }
  assert.equal(unmeasuredCaveat({ ...chat, windows: [window(0), window(120)] }), null, 'the windows measured the lines')
  assert.equal(unmeasuredCaveat({ ...chat, messages: d.messages }), null, 'the messages measured them')
  assert.match(
    String(unmeasuredCaveat({ ...chat, windows: [window(0)] })),
    /^CAVEAT: no message was measured, but the clients received other events: "node" ×6;/
  )
  const lines = formatRunSummary({ ...run, run: { ...run.run, name: run.run.id }, distributions: [quiet] }).split('\n')
  assert.match(lines[0], new RegExp(`^run ${run.run.id}, `))
  assert.ok(lines.some((l) => l.startsWith('CAVEAT: no broadcast was measured')))
})

test('a distribution whose simulators joined through Redis counts them as registered, not as the local layout', () => {
  const run = fixture('run-small.json')
  const [d] = run.distributions
  const joined = {
    ...d,
    name: '0x100',
    simulators: 0,
    clientsPerSimulator: 100,
    simulatorList: [...d.simulatorList, ...d.simulatorList.map((s) => ({ ...s, id: `${s.id}-b` }))]
  }
  const line = formatRunSummary({ ...run, distributions: [joined] }).split('\n').find((l) => l.startsWith('distribution 0x100'))
  assert.match(
    line ?? '',
    new RegExp(
      `^distribution 0x100: ${joined.simulatorList.length} simulators, ${d.clients.target} clients, connected ${d.clients.connected}/${d.clients.target}`
    )
  )
})

test('layouts of the same total are compared: they agree, or the busier one is named', () => {
  const run = fixture('run-small.json')
  const [a, b] = run.distributions
  assert.deepEqual(compareLayouts([a, b]), [
    'layouts of 1000 clients: 2x500 and 4x250 agree (median rel p50 5.30ms vs 5.90ms, missing 0 % vs 0 %; tolerance ±20 % or 5 ms)'
  ])
  const slow = {
    ...b,
    rounds: b.rounds.map((r) => ({ ...r, relative: { ...r.relative, p50: r.relative.p50 * 10 }, floor: { ...(r.floor ?? {}), busyMax: 0.97 } }))
  }
  const [line] = compareLayouts([a, /** @type {any} */ (slow)])
  assert.match(
    line,
    /^LAYOUTS DISAGREE, 1000 clients: 2x500 vs 4x250 \(median rel p50 5\.30ms vs 59\.0ms, .*\); 4x250's simulators were busier \(busiest 97 % vs \d+ %\)/
  )
  assert.deepEqual(compareLayouts([a]), [], 'nothing to compare')
  assert.ok(formatRunSummary(run).includes('layouts of 1000 clients: 2x500 and 4x250 agree'))
})

/**
 * The run-small fixture's layouts as `run --distributions 1x1000,4x250` measured them on a 2-core
 * host: 1x1000 rel p50 9.77 ms with its one simulator busiest 100 %, 4x250 16.3 ms at 55 %.
 * @param {{ cpus?: number, p50?: [number, number], busy?: [number, number] }} [over]
 */
function layoutsRun ({ cpus = 2, p50 = [9.77, 16.3], busy = [1, 0.55] } = {}) {
  const run = fixture('run-small.json')
  const [a, b] = run.distributions
  /** @param {import('../../../lib/schema/result-schema.js').DistributionResult} d @param {number} ms @param {number} busyMax */
  const measured = (d, ms, busyMax) => d.rounds.map((r) => ({ ...r, relative: { ...r.relative, p50: ms }, floor: r.floor && { ...r.floor, busyMax } }))
  const one = {
    ...a,
    name: '1x1000',
    simulators: 1,
    clientsPerSimulator: 1000,
    simulatorList: a.simulatorList.slice(0, 1),
    rounds: measured(a, p50[0], busy[0])
  }
  const four = { ...b, name: '4x250', rounds: measured(b, p50[1], busy[1]) }
  return { ...run, host: { ...run.host, cpus }, distributions: [one, four] }
}

test('layouts that put more busy processes on the host than it has cores: the verdict says so and names the slower one', () => {
  const run = layoutsRun()
  assert.deepEqual(layoutHostOf(run), { hostname: 'loadgen-1', cpus: 2, servers: 1 }, 'the run started the reference server on its host')
  const [line] = compareLayouts(run.distributions, layoutHostOf(run))
  assert.equal(line, 'LAYOUTS DISAGREE, 1000 clients: 1x1000 vs 4x250 (median rel p50 9.77ms vs 16.3ms, missing 0 % vs 0 %); ' +
    '4x250\'s delays are higher: 4x250 put 5 busy processes (4 simulators and the reference server) on loadgen-1\'s 2 cores, ' +
    'so its spread is the host\'s scheduler as much as the server\'s; compare layouts that fit the cores, or put simulators on other hosts')
  assert.doesNotMatch(line, /1x1000's simulators were busier/, 'the advice no longer points at the layout with the lower delays')
  assert.ok(formatRunSummary(run).split('\n').includes(line), 'run\'s summary gives the same verdict')
  const target = { ...run, target: { ...run.target, reference: false } }
  assert.match(
    compareLayouts(target.distributions, layoutHostOf(target))[0],
    /4x250 put 4 busy processes \(4 simulators\) on loadgen-1's 2 cores/,
    'with --target the server is elsewhere'
  )
})

test('layouts that fit the host\'s cores: the slower one is named, busier or not', () => {
  const quiet = layoutsRun({ cpus: 8 })
  assert.match(compareLayouts(quiet.distributions, layoutHostOf(quiet))[0],
    new RegExp(/; 4x250's delays are higher though its simulators were not busier \(busiest 55 /.source +
      /% vs 100 %\): the simulators' CPU does not explain it; look at the server and the network/.source))
  const busier = layoutsRun({ cpus: 8, busy: [0.3, 0.97] })
  assert.match(
    compareLayouts(busier.distributions, layoutHostOf(busier))[0],
    /; 4x250's simulators were busier \(busiest 97 % vs 30 %\): add simulators or --workers there and compare again$/
  )
  const agree = layoutsRun({ p50: [9.77, 10.1] })
  assert.match(compareLayouts(agree.distributions, layoutHostOf(agree))[0],
    new RegExp(/^layouts of 1000 clients: 1x1000 and 4x250 agree \(.*\); but 4x250 put 5 busy processes \(4 /.source +
      /simulators and the reference server\) on loadgen-1's 2 cores: the host's scheduler shares in both figures$/.source))
})

test('a distribution with a scenario: copies, namespaces, joins, emits, hooks and the delivery table, before its health', () => {
  const text = formatRunSummary(fixture('run-small.json'))
  const lines = text.split('\n')
  const at = (/** @type {string} */ start) => lines.findIndex((l) => l.startsWith(start))
  assert.equal(lines[at('copies:')], 'copies: MISDELIVERED 3 copies (to clients not in the message\'s room), DUPLICATED 2 copies (a second copy to one client)')
  assert.ok(at('copies:') < at('namespace /chat:') && at('namespace /chat:') < at('joins (join)') && at('joins (join)') < at('emits (chat)'))
  assert.ok(at('HOOK ERRORS 3') > 0 && at('deliveries by namespace, room and event') > at('HOOK ERRORS 3'))
  assert.ok(at('deliveries by namespace') < at('health of 2 simulators'))
  assert.ok(lines.includes('copies: misdelivered 0, duplicated 0'), 'the second distribution: none went wrong')
  const older = fixture('run-small.json')
  older.distributions = older.distributions.map((d) => ({
    ...d,
    deliveries: undefined,
    scenario: undefined,
    messages: d.messages.map(({ misdelivered, duplicates, ...m }) => m),
    clients: { ...d.clients, namespaces: undefined }
  }))
  assert.doesNotMatch(formatRunSummary(older), /copies:|namespace |joins |emits |deliveries by/, 'an older result prints as before')
})

test('summarizeRun carries delivery totals and the scenario\'s numbers, without histograms', () => {
  const summary = JSON.parse(JSON.stringify(summarizeRun(fixture('run-small.json'))))
  const [d, plainBroadcasts] = summary.distributions
  assert.deepEqual([d.deliveries.total.misdelivered, d.deliveries.namespaces.length], [3, 2])
  assert.equal(d.scenario.emits.ackTime.p99 > 0, true)
  assert.doesNotMatch(JSON.stringify(summary), /"histogram"/)
  assert.equal(plainBroadcasts.scenario, undefined)
})

test('an avalanche (--ramp 0): the accept time and failed handshakes by reason; a storm with its gap', () => {
  const run = fixture('run-small.json')
  run.options.rampMs = 0
  const [d] = run.distributions
  d.acceptTime = { count: 1000, mean: 40, min: 2, max: 180, p50: 30, p90: 90, p99: 150 }
  d.clients.errors = { 'xhr poll error (HTTP 503)': 12, timeout: 3 }
  d.clients.storms = [
    {
      startedAt: Date.UTC(2026, 0, 1, 12, 0, 1),
      dropped: 500,
      back: 500,
      reasons: { 'transport close': 500 },
      errors: {},
      attempts: 510,
      backMs: { p50: 1100, p90: 1900, p99: 2000, p100: 2100 },
      endedMs: 2100,
      recovered: 480,
      replayed: 960,
      lost: 40,
      simulator: 's1'
    }
  ]
  const text = formatRunSummary(run)
  assert.match(
    text,
    new RegExp(/avalanche: \d+ clients at once \(--ramp 0\): handshake accepted \(Engine\.IO open\) p50 30(\.0)?ms, /.source +
      /p99 150ms, max 180ms; connected p50 .*; failed handshakes: 15 \(xhr poll error \(HTTP 503\): 12, timeout: 3\)/.source)
  )
  assert.match(text, /s1: storm at 12:00:01 UTC: 500 clients dropped .*sessions recovered: 480, gap messages replayed: 960, lost: 40/)
})
