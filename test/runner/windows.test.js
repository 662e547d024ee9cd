/**
 * `ioswarm run` without rounds against chat apps whose traffic is their own (socket.io 4 and
 * python-socketio: each line relayed to everyone else with socket.broadcast.emit, and acked):
 * no broadcaster, the clients' emits only, results in time windows merged over 2 simulators.
 */
import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { startChatNodes } from '../helpers/balancer.js'
import { runCli } from '../helpers/cli.js'
import { getRedisUrl } from '../helpers/redis.js'
import { checkReport, chromiumMissing, launchChromium } from '../results/report/browser-harness.js'
import { buildAnyReport } from '../../results/report/index.js'

const ARTIFACTS = fileURLToPath(new URL('../.artifacts/', import.meta.url))
/** A line every 250 ms from each client, acked: a chat's own traffic. */
const CHAT = ['--emit', 'chat {"text":"hi from {{i}}"}', '--emit-rate', '4/s', '--emitters', '100%', '--emit-ack', '--event', 'chat']
const WINDOW_LINE = /window \d\d:\d\d:\d\d–\d\d:\d\d:\d\d/

/**
 * A windowed run of 2 simulators × 3 clients against `url`, with --target and no --token.
 * @param {import('node:test').TestContext} t
 * @param {string} url
 * @param {string[]} more
 */
async function runWindows (t, url, more = []) {
  const out = mkdtempSync(path.join(os.tmpdir(), 'ioswarm-windows-'))
  t.after(() => rmSync(out, { recursive: true, force: true }))
  const run = await runCli(t, ['bin/ioswarm.js', 'run', '--target', url, '--duration', '4s', '--window', '1s', '--simulators', '2', '--clients', '3', '--ramp', '500ms',
    '--out', out, ...CHAT, ...more], { timeoutMs: 90000 })
  const result = /** @type {import('../../lib/schema.js').RunResult} */ (JSON.parse(readFileSync(path.join(out, 'result.json'), 'utf8')))
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
  assert.equal(result.options.rounds, 'none')
  assert.ok(windows.length >= 3, `${windows.length} windows`)
  assert.ok(windows.filter((w) => w.received > 0).length >= 3, seen)
  // The windows between the first (the ramp) and the last (the end, cut short): every simulator
  // in each, every client connected, lines delivered and acked.
  const held = windows.slice(1, -1)
  assert.ok(held.length >= 3, seen)
  for (const w of held) {
    assert.equal(w.simulators, 2, 'merged over both simulators')
    assert.equal(w.clients.connected, 6, seen)
    assert.ok(w.received > 0 && w.messages > 0, `deliveries in ${w.startAt}: ${seen}`)
    assert.ok(w.emits.ackTime.count > 0 && w.emits.ackTime.p99 > 0, `acks in ${w.startAt}: ${seen}`)
  }
  for (const w of windows) assert.equal(w.missing, 0, `nothing missing in ${w.startAt}: ${seen}`)
  const total = /** @type {import('../../lib/schema.js').DeliveryRow} */ (result.distributions[0].deliveries?.total)
  assert.equal(windows.reduce((s, w) => s + w.received, 0), total.received, 'every delivery in one window')
  /** @typedef {NonNullable<import('../../lib/schema.js').DistributionResult['scenario']>} Scenario */
  const emits = /** @type {NonNullable<Scenario['emits']>} */ (result.distributions[0].scenario?.emits)
  assert.equal(windows.reduce((s, w) => s + w.emits.sent, 0), emits.sent, 'every line in one window')
  assert.equal((stderr.match(new RegExp(`2x3: ${WINDOW_LINE.source}`, 'g')) ?? []).length, windows.length, 'each window printed as it closed')
  assert.match(stderr, new RegExp(`; ${windows.length} windows of 1 s, none missing a delivery, worst ack p99 \\S+ in ${WINDOW_LINE.source}`), 'the summary')
  const csv = readFileSync(path.join(out, 'windows.csv'), 'utf8').trim().split('\r\n')
  assert.equal(csv.length, windows.length + 1)
  assert.ok(csv[0].includes('emits_ackTime_p99') && csv[0].includes('clients_connected'))
}

// The cases run side by side: each is mostly waiting for its run.
describe('chat apps without a broadcaster', { concurrency: true }, () => {
  test('run --target a socket.io 4 chat, no --token: windows merged over 2 simulators, drawn in Chromium; a threshold failing in a window exits 3 naming it', async (t) => {
    const redisUrl = await getRedisUrl(t)
    if (redisUrl === null) return
    const [node] = /** @type {NonNullable<Awaited<ReturnType<typeof startChatNodes>>>} */ (await startChatNodes(t, { kind: 'node', count: 1, redisUrl }))
    const run = await runWindows(t, node.url, ['--assert', 'missing=0', '--assert', 'ack.p99<0.001ms'])
    assert.equal(run.code, 3, run.stderr)
    checkWindows(run)
    const [missing, ack] = /** @type {import('../../lib/schema.js').ThresholdVerdict[]} */ (run.result.thresholds)
    assert.equal(missing.ok, true)
    assert.equal(ack.ok, false)
    assert.match(ack.actual, new RegExp(`^ack\\.p99 .* \\(${WINDOW_LINE.source}, 2x3, \\d+ acks\\)$`), 'the failing window is named')
    assert.ok(run.stderr.includes(ack.actual))
    if (chromiumMissing()) return t.diagnostic('no Chromium: the report was not drawn')
    const browser = await launchChromium()
    t.after(() => browser.close())
    mkdirSync(ARTIFACTS, { recursive: true })
    const page = await checkReport(browser, path.join(run.out, 'report.html'), `${ARTIFACTS}windows-run.png`)
    assert.deepEqual(page.errors, [])
    for (const chart of ['relative-delay', 'absolute-latency', 'missing']) {
      assert.equal(page.drawn[`d1-${chart}`], page.expected[`d1-${chart}`], `d1-${chart}: every window drawn`)
      assert.ok(page.drawn[`d1-${chart}`] >= run.windows.length, `d1-${chart}: ${page.drawn[`d1-${chart}`]} points`)
    }
    assert.ok(page.tables.Windows, 'a Windows table')
    assert.equal(page.tables.Rounds, undefined, 'no Rounds table')
  })

  test('run --target a python-socketio chat, no --token: the same windows', async (t) => {
    const redisUrl = await getRedisUrl(t)
    const nodes = redisUrl === null ? null : await startChatNodes(t, { kind: 'python', count: 1, redisUrl })
    if (nodes === null) return
    const run = await runWindows(t, nodes[0].url)
    assert.equal(run.code, 0, run.stderr)
    checkWindows(run)
  })

  test('simulate --workers 2 --window against the socket.io 4 chat: each window merged over the workers', async (t) => {
    const redisUrl = await getRedisUrl(t)
    if (redisUrl === null) return
    const [node] = /** @type {NonNullable<Awaited<ReturnType<typeof startChatNodes>>>} */ (await startChatNodes(t, { kind: 'node', count: 1, redisUrl }))
    const { code, stdout, stderr } = await runCli(t, ['bin/ioswarm.js', 'simulate', '--url', node.url, '--workers', '2', '--clients', '4', '--ramp', '0', '--duration', '3s',
      '--window', '1s', '--json', ...CHAT], { timeoutMs: 60000 })
    assert.equal(code, 0, stderr)
    const result = /** @type {import('../../lib/schema.js').SimResult} */ (JSON.parse(stdout))
    const windows = result.windows ?? []
    assert.ok(windows.length >= 3, `${windows.length} windows`)
    for (const w of windows.slice(1, -1)) {
      assert.equal(w.simulators, 2, 'both workers in each window')
      assert.equal(w.clients.connected, 4)
      assert.ok(w.received > 0 && w.emits.ackTime.count > 0)
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
