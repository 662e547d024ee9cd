import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdirSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { runCli } from '../helpers/cli.js'
import { checkReport, chromiumMissing, launchChromium } from '../results/report/browser-harness.js'

const ARTIFACTS = fileURLToPath(new URL('../.artifacts/', import.meta.url))
const KINDS = ['connected-transport', 'connected-simulator', 'relative-delay', 'absolute-latency', 'missing', 'connect-time',
  'server-load', 'server-memory', 'health-loop', 'health-cpu']

test('the report of a real short run (rooms, joins, emits with acks) ' +
  'opens in Chromium with every chart and scenario table drawn', { skip: chromiumMissing() ?? false }, async (t) => {
  const out = await mkdtemp(path.join(os.tmpdir(), 'ioswarm-report-'))
  t.after(() => rm(out, { recursive: true, force: true }))
  const { code, stderr } = await runCli(t, [
    'bin/ioswarm.js', 'run', '--simulators', '2', '--clients-per-simulator', '10', '--transport', 'websocket:1,polling:1', '--rounds', '3x300',
    '--ping-interval', '1s', '--ramp', '1s', '--name', '<script>alert("run")</script>', '--quiet', '--out', out, '--rooms', '2',
    '--join', 'join {"room":"{{room}}"}', '--emit', 'chat {"room":"{{room}}"}', '--emit-rate', '2/s', '--emit-ack', '--event', 'broadcast',
    '--event', 'chat'
  ], { timeoutMs: 120000 })
  assert.equal(code, 0, stderr)
  const browser = await launchChromium()
  t.after(() => browser.close())
  mkdirSync(ARTIFACTS, { recursive: true })
  const page = await checkReport(browser, path.join(out, 'report.html'), `${ARTIFACTS}real-run.png`)
  assert.deepEqual(page.errors, [], 'no console or page errors')
  assert.deepEqual(page.requests, [], 'nothing fetched from the network')
  assert.deepEqual(page.dialogs, [], 'the hostile run name did not run')
  // No reconnect storm and no --node-from in this run: those two charts say so instead of drawing.
  const NOTED = ['connected-node', 'storm-transport']
  assert.deepEqual(Object.keys(page.drawn).sort(), [...KINDS, ...NOTED].map((k) => `d1-${k}`).sort(), 'every chart of the distribution')
  for (const kind of KINDS) {
    // A real run has data for every chart: server samples (reference server), missing
    // counts (zeros are points too), health, connect times.
    assert.ok(page.drawn[`d1-${kind}`] > 0, `d1-${kind} drew points (${page.drawn[`d1-${kind}`]})`)
  }
  assert.deepEqual(page.notes.sort(), NOTED.map((k) => `d1-${k}`), 'no other chart fell back to a "no data" note')
  const deliveries = page.tables['Delivery by namespace, room and event']
  assert.ok(deliveries.includes('room-0') && deliveries.includes('room-1') && deliveries.includes('chat'), 'broadcasts and relayed lines by room')
  assert.ok(page.tables['Emits, acks and joins'].includes('joins (--join)'))
})
