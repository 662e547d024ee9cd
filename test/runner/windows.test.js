/**
 * `ioswarm run` without rounds against chat apps whose traffic is their own (socket.io 4 and
 * python-socketio: each line relayed to everyone else with socket.broadcast.emit, and acked):
 * no broadcaster, the clients' emits only, results in time windows merged over 2 simulators;
 * and against a feed that broadcasts by itself (docs/real-apps.md, "Traffic of its own":
 * both recipes' flags are run here).
 */
import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { startChatNodes } from '../helpers/balancer.js'
import { runCli } from '../helpers/cli.js'
import { startIoServer } from '../helpers/io-server.js'
import { getRedisUrl } from '../helpers/redis.js'
import { checkReport, chromiumMissing, launchChromium } from '../results/report/browser-harness.js'
import { buildAnyReport } from '../../results/report/index.js'
import { skipOrFail } from '../helpers/skip.js'

const ARTIFACTS = fileURLToPath(new URL('../.artifacts/', import.meta.url))
/** A line every 250 ms from each client, acked: a chat's own traffic. */
const CHAT = ['--emit', 'chat {"text":"hi from {{i}}"}', '--emit-rate', '4/s', '--emitters', '100%', '--emit-ack', '--event', 'chat']
const WINDOW_LINE = /window \d\d:\d\d:\d\d–\d\d:\d\d:\d\d/
/** A scenario that only looks: each line a client receives counted, and the time since its previous one timed (the app's own figures; no emit of its own). */
const LOOKING_HOOKS = `
  export function onEvent (socket, event, args, ctx) {
    if (event !== 'chat') return
    const now = performance.now()
    if (ctx.lastLineAt !== undefined) ctx.timing('line_gap', now - ctx.lastLineAt)
    ctx.lastLineAt = now
    ctx.count('lines_seen')
  }
`

/**
 * A windowed run of 2 simulators × 3 clients against `url`, with --target and no --token.
 * @param {import('node:test').TestContext} t
 * @param {string} url
 * @param {string[]} more
 */
async function runWindows (t, url, more = []) {
  const out = mkdtempSync(path.join(os.tmpdir(), 'ioswarm-windows-'))
  t.after(() => rmSync(out, { recursive: true, force: true }))
  const run = await runCli(t, [
    'bin/ioswarm.js', 'run', '--target', url, '--hold', '5s', '--window', '1s', '--simulators', '2', '--clients-per-simulator', '3',
    '--ramp', '500ms', '--out', out, ...CHAT, ...more
  ], { timeoutMs: 90000 })
  const result = /** @type {import('../../lib/schema/result-schema.js').RunResult} */ (JSON.parse(readFileSync(path.join(out, 'result.json'), 'utf8')))
  return { ...run, out, result, windows: result.distributions[0].windows ?? [] }
}

/**
 * What every windowed run of the chat must show: windows merged over both simulators, each
 * held window with deliveries and acks, nothing missing, the figures adding up to the totals.
 * @param {Awaited<ReturnType<typeof runWindows>>} run
 */
function checkWindows ({ result, windows, stderr, out }) {
  const seen = JSON.stringify(windows.map((w) => [w.simulators, w.clients.connected, w.messages, w.received, w.missing, w.emits.sent, w.emits.ackTime.count]))
  assert.match(stderr.split('\n')[0], /^no broadcaster \(--target without --token\)/, 'the first line says where the load comes from')
  assert.match(stderr, /^run \S+: 2 simulators × 3 = 6 clients; target http/m, 'the run states its whole swarm before it starts')
  assert.equal(result.options.rounds, 'none')
  assert.ok(windows.length >= 3, `${windows.length} windows`)
  assert.ok(windows.filter((w) => w.received > 0).length >= 3, seen)
  // The windows after the ramp (one window, or more on a loaded host: CI at load 20 saw 3 of 6
  // connected in the second) and before the last (the end, cut short): every simulator in each,
  // every client connected, lines delivered and acked.
  const ramped = windows.findIndex((w, k) => k > 0 && w.clients.connected === 6)
  const held = ramped < 0 ? [] : windows.slice(ramped, -1)
  assert.ok(held.length >= 3, seen)
  for (const w of held) {
    assert.equal(w.simulators, 2, 'merged over both simulators')
    assert.equal(w.clients.connected, 6, seen)
    assert.ok(w.received > 0 && w.messages > 0, `deliveries in ${w.startAt}: ${seen}`)
    assert.ok(w.emits.ackTime.count > 0 && w.emits.ackTime.p99 > 0, `acks in ${w.startAt}: ${seen}`)
  }
  for (const w of windows) assert.equal(w.missing, 0, `nothing missing in ${w.startAt}: ${seen}`)
  const total = /** @type {import('../../lib/schema/result-schema.js').DeliveryRow} */ (result.distributions[0].deliveries?.total)
  assert.equal(windows.reduce((s, w) => s + w.received, 0), total.received, 'every delivery in one window')
  /** @typedef {NonNullable<import('../../lib/schema/result-schema.js').DistributionResult['scenario']>} Scenario */
  const emits = /** @type {NonNullable<Scenario['emits']>} */ (result.distributions[0].scenario?.emits)
  assert.equal(windows.reduce((s, w) => s + w.emits.sent, 0), emits.sent, 'every line in one window')
  assert.equal((stderr.match(new RegExp(`2x3: ${WINDOW_LINE.source}`, 'g')) ?? []).length, windows.length, 'each window printed as it closed')
  assert.match(stderr, new RegExp(`; ${windows.length} windows of 1 s, none missing a delivery, worst ack p99 \\S+ in ${WINDOW_LINE.source}`), 'the summary')
  const csv = readFileSync(path.join(out, 'windows.csv'), 'utf8').trim().split('\r\n')
  assert.equal(csv.length, windows.length + 1)
  assert.ok(csv[0].includes('emits_ackTime_p99') && csv[0].includes('clients_connected'))
  checkRolledUp({ result, out })
}

/**
 * A run without rounds keeps no line one by one: its lines rolled up as they came (per
 * namespace, room and event, in the delivery breakdown), the first few as examples, no
 * messages.csv; result.json names no other line, however many the run had.
 * @param {{ result: import('../../lib/schema/result-schema.js').RunResult, out: string }} run
 */
function checkRolledUp ({ result, out }) {
  const [d] = result.distributions
  const lines = /** @type {import('../../lib/schema/result-schema.js').LineRollup} */ (d.lines)
  const total = /** @type {import('../../lib/schema/result-schema.js').DeliveryRow} */ (d.deliveries?.total)
  assert.deepEqual(d.messages, [], 'no per-line list')
  assert.ok(lines.lines > 20 && lines.reports >= lines.lines, `lines rolled up: ${JSON.stringify({ ...lines, sample: lines.sample.length })}`)
  assert.equal(total.messages, lines.lines)
  assert.ok(lines.sample.length > 0 && lines.sample.length <= 10, `${lines.sample.length} newest lines as examples`)
  // Each line's id is its emitter's and its number there (e3.17): result.json names only the sample's.
  const ids = new Set(lines.sample.map((m) => `"${m.id}"`))
  assert.ok([...ids].every((id) => /^"e\d+\.\d+"$/.test(id)), [...ids].join())
  const named = new Set(readFileSync(path.join(out, 'result.json'), 'utf8').match(/"e\d+\.\d+"/g))
  assert.ok([...named].every((id) => ids.has(id)), `result.json names only the sample's lines: ${[...named].length} ids of ${lines.lines} lines`)
  assert.equal(existsSync(path.join(out, 'messages.csv')), false, 'no messages.csv: deliveries.csv holds the lines per room and event')
}

/**
 * Clients the profile wants at wall-clock time `t`, from the steps as they ran: a ramp moves
 * straight from its `from` to its `to` over its step, a hold stays.
 * @param {import('../../lib/schema/result-schema.js').PhaseStep[]} steps
 * @param {number} t
 */
function wantedAt (steps, t) {
  if (t <= steps[0].startMs) return 0
  const s = steps.find((x) => t < x.endMs) ?? /** @type {import('../../lib/schema/result-schema.js').PhaseStep} */ (steps.at(-1))
  const done = Math.min(1, (t - s.startMs) / Math.max(1, s.endMs - s.startMs))
  return s.from + (s.to - s.from) * done
}

// The cases run side by side: each is mostly waiting for its run.
describe('chat apps without a broadcaster', { concurrency: true }, () => {
  test('run --target a socket.io 4 chat, no --token: windows merged over 2 simulators, drawn in Chromium; ' +
    'a threshold failing in a window exits 3 naming it', async (t) => {
    const redisUrl = await getRedisUrl(t)
    if (redisUrl === null) return
    const [node] = /** @type {NonNullable<Awaited<ReturnType<typeof startChatNodes>>>} */ (await startChatNodes(t, { kind: 'node', count: 1, redisUrl }))
    const hooks = path.join(mkdtempSync(path.join(os.tmpdir(), 'ioswarm-windows-hooks-')), 'hooks.js')
    t.after(() => rmSync(path.dirname(hooks), { recursive: true, force: true }))
    writeFileSync(hooks, LOOKING_HOOKS)
    const run = await runWindows(t, node.url, ['--assert', 'missing=0', '--assert', 'ack.p99<0.001ms', '--scenario', hooks])
    assert.equal(run.code, 3, run.stderr)
    checkWindows(run)
    const custom = run.windows.filter((w) => w.custom?.timings.line_gap && w.custom.counts.lines_seen)
    assert.ok(custom.length >= 3, `the hooks' figures in the windows: ${JSON.stringify(run.windows.map((w) => w.custom))}`)
    const [missing, ack] = /** @type {import('../../lib/schema/result-schema.js').ThresholdVerdict[]} */ (run.result.thresholds)
    assert.equal(missing.ok, true)
    assert.equal(ack.ok, false)
    assert.match(ack.actual, new RegExp(`^ack\\.p99 .* \\(${WINDOW_LINE.source}, 2x3, \\d+ acks\\)$`), 'the failing window is named')
    assert.ok(run.stderr.includes(ack.actual))
    await t.test('its report draws every window in Chromium', async (st) => {
      const missing = chromiumMissing()
      if (missing !== null) return skipOrFail(st, missing)
      const browser = await launchChromium()
      st.after(() => browser.close())
      mkdirSync(ARTIFACTS, { recursive: true })
      const page = await checkReport(browser, path.join(run.out, 'report.html'), `${ARTIFACTS}windows-run.png`)
      assert.deepEqual(page.errors, [])
      for (const chart of ['relative-delay', 'absolute-latency', 'missing']) {
        assert.equal(page.drawn[`d1-${chart}`], page.expected[`d1-${chart}`], `d1-${chart}: every window drawn`)
        assert.ok(page.drawn[`d1-${chart}`] >= run.windows.length, `d1-${chart}: ${page.drawn[`d1-${chart}`]} points`)
      }
      // The hooks' own figures per window: line_gap's p50 and p99 in each window that has it, lines_seen a bar per window.
      assert.equal(page.drawn['d1-custom-timings'], page.expected['d1-custom-timings'], 'every custom timing drawn')
      assert.ok(page.drawn['d1-custom-timings'] >= 2 * custom.length, `d1-custom-timings: ${page.drawn['d1-custom-timings']} points`)
      assert.equal(page.drawn['d1-custom-counts'], run.windows.length, 'a count bar per window')
      assert.equal(page.expected['d1-custom-counts'], run.windows.length)
      assert.ok(page.tables.Windows, 'a Windows table')
      assert.equal(page.tables.Rounds, undefined, 'no Rounds table')
    })
  })

  test('run --phases against the socket.io 4 chat: the connected count per window follows the profile, ramp-downs are closed apart from drops', async (t) => {
    const redisUrl = await getRedisUrl(t)
    if (redisUrl === null) return
    const [node] = /** @type {NonNullable<Awaited<ReturnType<typeof startChatNodes>>>} */ (await startChatNodes(t, { kind: 'node', count: 1, redisUrl }))
    const out = mkdtempSync(path.join(os.tmpdir(), 'ioswarm-phases-'))
    t.after(() => rmSync(out, { recursive: true, force: true }))
    const bad = runCli(t, ['bin/ioswarm.js', 'run', '--target', node.url, '--phases', 'ramp 2s to 12, wait 3s'], { timeoutMs: 30000 })
    const { code, stdout, stderr } = await runCli(t, [
      'bin/ioswarm.js', 'run', '--target', node.url, '--phases', 'ramp 2s to 12, hold 3s at 2/s, ramp 2s to 0', '--window', '1s', '--simulators', '2',
      '--out', out, '--dashboard', ...CHAT
    ], { timeoutMs: 60000 })
    assert.equal(code, 0, stderr)
    assert.match(stderr.split('\n')[1], /^no broadcaster \(--phases\): .*following --phases 'ramp 2000ms to 12, hold 3000ms, ramp 2000ms to 0' \(7 s\)/)
    const d = /** @type {import('../../lib/schema/result-schema.js').RunResult} */ (JSON.parse(readFileSync(path.join(out, 'result.json'), 'utf8')))
      .distributions[0]
    const steps = /** @type {import('../../lib/schema/result-schema.js').PhaseStep[]} */ (d.phases)
    assert.deepEqual(
      steps.map((s) => [s.kind, s.from, s.to, s.closed]),
      [['ramp', 0, 12, 0], ['hold', 12, 12, 0], ['ramp', 12, 0, 12]],
      'both simulators\' steps summed'
    )
    assert.equal(d.rampedDown, 12)
    const windows = d.windows ?? []
    const seen = JSON.stringify(windows.map((w) => [w.phase?.index, w.clients.connected, w.clients.drops, w.clients.closed]))
    assert.ok(windows.length >= 6, seen)
    // Each window's line, printed as it closes, says its step (the simulators' label, carried through the merge).
    const live = stderr.split('\n').filter((line) => /^\S+: window \d\d:/.test(line))
    assert.equal(live.length, windows.length, stderr)
    for (const line of live) assert.match(line, /: window \d\d:\d\d:\d\d–\d\d:\d\d:\d\d, phase [1-3] \((ramp|hold)\): /)
    // Each window's count (its last second's sample) is what the profile wanted within one window of
    // it, either way: the merged steps run from the first simulator's start to the last one's end, so
    // one simulator is ahead of the merged line and the other behind (CI saw both).
    for (const w of windows) {
      const wanted = [w.startAt - 1000, w.startAt, w.endAt, w.endAt + 1000].map((at) => wantedAt(steps, at))
      assert.ok(w.clients.connected >= Math.floor(Math.min(...wanted)) && w.clients.connected <= Math.ceil(Math.max(...wanted)), `${w.startAt}: ${seen}`)
      assert.equal(w.clients.drops, 0, `no drops: ${seen}`)
    }
    // The hold's windows reach its 12 (the simulators start their steps up to a second apart), never more.
    const held = windows.filter((w) => w.phase?.index === 2)
    assert.ok(held.length >= 2 && held.every((w) => w.phase?.kind === 'hold') && held.some((w) => w.clients.connected === 12), seen)
    assert.equal(Math.max(...windows.map((w) => w.clients.connected)), 12, seen)
    assert.ok(windows.some((w) => w.phase?.index === 1) && windows.some((w) => w.phase?.index === 3), seen)
    assert.equal(windows.reduce((sum, w) => sum + w.clients.closed, 0), 12, `every ramp-down close in a window, as closed: ${seen}`)
    assert.equal(d.clients.connected, 0, 'ramped down to 0')
    // The summary says the peak and the profile, not "0 clients, connected 0/0".
    assert.match(stdout + stderr, /distribution .*: 2 simulators, phases to 12 clients, 12\/12 connected at peak, 12 closed by the ramp-downs/)
    assert.deepEqual(d.clients.disconnects, { 'io client disconnect': 12 })
    assert.ok(readFileSync(path.join(out, 'windows.csv'), 'utf8').split('\r\n')[0].includes('phase_index'))
    const report = readFileSync(path.join(out, 'report.html'), 'utf8')
    assert.match(report, /phase 2: hold 12/, 'the report shades the phases')
    // --dashboard: each step a mark of the live stream, shaded on the page's charts and the report's second-by-second ones.
    const marks = readFileSync(path.join(out, 'events.ndjson'), 'utf8').trim().split('\n').map((l) => JSON.parse(l)).filter((e) => e.type === 'mark')
    assert.deepEqual(
      marks.map((m) => [m.kind, m.label, m.endAt - m.at]),
      [['phase', '1: ramp to 12', 2000], ['phase', '2: hold', 3000], ['phase', '3: ramp to 0', 2000]]
    )
    assert.match(report, /"ioswarmShape":\["1: ramp to 12","3: ramp to 0"\]/, 'the second-by-second charts shade them')
    const refused = await bad
    assert.equal(refused.code, 2)
    assert.match(refused.stderr, /--phases step 2 must be "ramp DURATION to CLIENTS" or "hold DURATION"/)
  })

  test('run --target a python-socketio chat, no --token: the same windows', async (t) => {
    const redisUrl = await getRedisUrl(t)
    const nodes = redisUrl === null ? null : await startChatNodes(t, { kind: 'python', count: 1, redisUrl })
    if (nodes === null) return
    const run = await runWindows(t, nodes[0].url, ['--assert', 'p99<30s'])
    assert.equal(run.code, 0, run.stderr)
    checkWindows(run)
    const [delay] = /** @type {import('../../lib/schema/result-schema.js').ThresholdVerdict[]} */ (run.result.thresholds)
    assert.ok(delay.ok, delay.actual)
    assert.match(delay.actual, new RegExp(`^p99 .* \\(${WINDOW_LINE.source}, 2x3\\)$`), 'a delivery delay threshold judged on the worst window, named')
  })

  test('run --target a feed that broadcasts by itself (--id-field, --sent-at-field): windows with deliveries, absolute latency, none missing', async (t) => {
    const { io, url } = await startIoServer(t)
    // The app's own feed: a score to everyone every 100 ms, its id and send time (epoch s) where the app keeps them; at most 10 minutes of it.
    let seq = 0
    const feed = setInterval(() => {
      if (++seq > 6000) clearInterval(feed)
      else io.emit('score', { data: { seq, ts: Date.now() / 1000, home: seq % 3 } })
    }, 100)
    t.after(() => clearInterval(feed))
    const out = mkdtempSync(path.join(os.tmpdir(), 'ioswarm-feed-'))
    t.after(() => rmSync(out, { recursive: true, force: true }))
    const { code, stderr } = await runCli(t, [
      'bin/ioswarm.js', 'run', '--target', url, '--hold', '3s', '--window', '1s', '--simulators', '2', '--clients-per-simulator', '3',
      '--ramp', '500ms', '--event', 'score', '--id-field', 'data.seq', '--sent-at-field', 'data.ts', '--assert', 'missing=0',
      '--assert', 'abs.p99<30s', '--out', out
    ], { timeoutMs: 90000 })
    assert.equal(code, 0, stderr)
    assert.match(stderr.split('\n')[0], /^no broadcaster \(--target without --token\)/)
    const result = /** @type {import('../../lib/schema/result-schema.js').RunResult} */ (JSON.parse(readFileSync(path.join(out, 'result.json'), 'utf8')))
    const windows = result.distributions[0].windows ?? []
    // The windows with every client connected (a loaded machine may stretch the ramp over two),
    // but not the last: windows follow the clock, so the run's end cuts it, sometimes to a few
    // milliseconds in which the feed (every 100 ms) sent nothing.
    const held = windows.slice(0, -1).filter((w) => w.clients.connected === 6)
    const seen = JSON.stringify(windows.map((w) => [w.simulators, w.clients.connected, w.messages, w.received, w.missing, w.absolute.count]))
    assert.ok(held.length >= 2, seen)
    for (const w of held) {
      assert.ok(w.simulators === 2 && w.received > 0, `deliveries in each: ${seen}`)
      assert.ok(w.absolute.count > 0 && w.absolute.p99 < 30000, `absolute latency from data.ts: ${seen}`)
    }
    const sum = (/** @type {'messages' | 'received'} */ k) => held.reduce((n, w) => n + w[k], 0)
    assert.ok(sum('messages') >= 10 && sum('received') >= sum('messages') * 6 * 0.8, `each score to the 6 clients: ${seen}`)
    for (const w of windows) assert.equal(w.missing, 0, seen)
    // The newest scores whole (a run without rounds keeps no per-line list): their ids read at data.seq.
    const ids = result.distributions[0].lines?.sample.map((m) => m.id) ?? []
    assert.ok(ids.length > 0 && ids.every((id) => /^\d+$/.test(String(id))), `ids read at data.seq: ${ids.slice(0, 5)}`)
    assert.deepEqual(result.thresholds?.map((v) => v.ok), [true, true])
  })

  test('simulate --workers 2 --window against the socket.io 4 chat: each window merged over the workers', async (t) => {
    const redisUrl = await getRedisUrl(t)
    if (redisUrl === null) return
    const [node] = /** @type {NonNullable<Awaited<ReturnType<typeof startChatNodes>>>} */ (await startChatNodes(t, { kind: 'node', count: 1, redisUrl }))
    const { code, stdout, stderr } = await runCli(t, [
      'bin/ioswarm.js', 'simulate', '--url', node.url, '--workers', '2', '--clients', '4', '--ramp', '0', '--duration', '4s', '--window', '1s',
      '--json', ...CHAT
    ], { timeoutMs: 60000 })
    assert.equal(code, 0, stderr)
    const result = /** @type {import('../../lib/schema/result-schema.js').SimResult} */ (JSON.parse(stdout))
    const windows = result.windows ?? []
    const seen = JSON.stringify(windows.map((w) => [w.simulators, w.clients.connected, w.received, w.emits.ackTime.count]))
    assert.ok(windows.length >= 3, seen)
    // The windows from the first with both workers' clients all in (a loaded host may start one
    // worker a window late: 2 of 4 connected in the second), but not the last (the end cuts it).
    const ramped = windows.findIndex((w, k) => k > 0 && w.clients.connected === 4)
    const held = ramped < 0 ? [] : windows.slice(ramped, -1)
    assert.ok(held.length >= 1, seen)
    for (const w of held) {
      assert.equal(w.simulators, 2, `both workers in each window: ${seen}`)
      assert.equal(w.clients.connected, 4, seen)
      assert.ok(w.received > 0 && w.emits.ackTime.count > 0, seen)
    }
    const emits = /** @type {NonNullable<NonNullable<typeof result.scenario>['emits']>} */ (result.scenario?.emits)
    assert.equal(windows.reduce((s, w) => s + w.emits.sent, 0), emits.sent)
    assert.equal(windows.reduce((s, w) => s + w.emits.ackTime.count, 0), emits.acked, 'the workers\' ack histograms merged whole')
    assert.equal((stderr.match(new RegExp(WINDOW_LINE.source, 'g')) ?? []).length, windows.length, 'the merged windows printed')
    // ioswarm report of it: drawn and listed by window.
    const html = buildAnyReport(result)
    assert.ok(html.includes('Relative delay per window') && html.includes('<h3>Windows</h3>') && !html.includes('Per-message numbers'))
  })
})
