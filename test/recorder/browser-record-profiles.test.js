/**
 * Two Socket.IO sessions in one recording, doing different things: a Chromium page (after one
 * login) opens two sockets to /chat of the socket.io 4 app (recorded-app.js), as two tabs would;
 * one joins room-7, says a line and types, the other joins room-9 and sends a binary avatar. The
 * HAR (from the DevTools Protocol) becomes one scenario with two client profiles, client i
 * replaying profile 1 + (i mod 2); 50 clients replay it, and the app's ledger sees 25 of each,
 * each as it saw that session, profile 1 on even clients only.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { BIN, runCli } from '../helpers/cli.js'
import { waitFor } from '../helpers/wait.js'
import { chromiumMissing } from '../results/report/browser-harness.js'
import { recordPage } from './browser-case.js'
import { startRecordedApp } from './recorded-app.js'

const CLIENTS = 50

const TWO_TABS = `<!doctype html><meta charset="utf-8"><title>chat</title><script src="/socket.io.js"></script><script>
const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms))
async function main () {
  const body = JSON.stringify({ user: 'alice', password: 'pw-Alice-2026' })
  const { token } = await (await fetch('/login', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body })).json()
  const open = () => new Promise((resolve) => {
    const socket = io('/chat', { auth: { token, user: 'alice' }, transports: ['websocket'], forceNew: true })
    socket.on('connect', () => resolve(socket))
  })
  const talker = await open()
  const watcher = await open()
  await pause(150)
  await talker.emitWithAck('join', { room: 'room-7' })
  await pause(150)
  await talker.emitWithAck('chat', { room: 'room-7', text: 'hello there' })
  await pause(100)
  talker.emit('typing', { room: 'room-7' })
  await pause(100)
  await watcher.emitWithAck('join', { room: 'room-9' })
  await pause(100)
  await watcher.emitWithAck('avatar', { name: 'me.png', data: new Uint8Array([1, 2, 3]) })
  await pause(100)
  window.done = true
}
main().catch((error) => { window.failed = String(error) })
</script>`

test('two sessions of one HAR replay as two client profiles, each client as its recorded session', { timeout: 60000 }, async (t) => {
  const missing = chromiumMissing()
  if (missing) return t.skip(missing)
  const app = await startRecordedApp(t, { page: TWO_TABS })
  const dir = await mkdtemp(join(tmpdir(), 'ioswarm-record-profiles-'))
  t.after(() => rm(dir, { recursive: true, force: true }))
  await recordPage(t, app.url, join(dir, 'tabs.har'))
  const recorded = await app.entries()
  assert.deepEqual(recorded.map((e) => e.events.map((x) => x.event)), [['join', 'chat', 'typing'], ['join', 'avatar']])

  const record = await runCli(t, [BIN, 'record', '--har', join(dir, 'tabs.har'), '--out', join(dir, 'tabs.mjs')])
  assert.equal(record.code, 0, record.stderr)
  assert.match(record.stderr, /recorded 2 Socket\.IO session\(s\) .*namespaces \/chat as 2 client profiles\n/)
  assert.match(record.stderr, /client i replays profile \[1, 2\]\[i mod 2\]/)
  assert.match(record.stderr, /profile 1 \(sid \S+, websocket\): sent: \/chat join\(room-7\), \/chat chat \(ack\), \/chat typing\n/)
  assert.match(record.stderr, /profile 2 \(sid \S+, websocket\): sent: \/chat join\(room-9\), \/chat avatar \(ack\)\n/)
  const module = await readFile(join(dir, 'tabs.mjs'), 'utf8')
  assert.match(module, /const PROFILE_OF = \[0, 1\]/)
  assert.match(module, /"\/chat": replayChatProfile1 \}/)

  const words = (record.stderr.trim().split('\n').at(-1) ?? '').trim().split(/\s+/).slice(2)
    .map((w) => (w.endsWith('.mjs') || w.endsWith('.csv') ? join(dir, w) : w))
  const replay = runCli(t, [BIN, 'simulate', ...words.filter((w, k) => w !== '--clients' && words[k - 1] !== '--clients'),
    '--clients', String(CLIENTS), '--ramp', '2s', '--duration', '50s', '--json'], { env: { SCENARIO_SPEED: '4' } })
  /** @type {import('./recorded-app.js').LedgerEntry[]} */
  let replayed = []
  const whole = () => replayed.filter((e) => e.events.length >= (e.joins[0] === 'room-7' ? 3 : 2)).length
  await waitFor(async () => {
    // The swarm's look at the server before it starts connects once, and sends nothing.
    replayed = (await app.entries()).slice(recorded.length).filter((e) => e.events.length > 0)
    return replayed.length === CLIENTS && whole() === CLIENTS
  }, { timeoutMs: 40000, message: () => `${CLIENTS} replays done (${whole()} so far)` })
  replay.child.kill('SIGINT')
  const done = await replay
  assert.equal(done.code, 0, done.stderr)

  for (const [k, session] of recorded.entries()) {
    const mine = replayed.filter((e) => e.joins[0] === session.joins[0])
    assert.equal(mine.length, CLIENTS / 2, `profile ${k + 1}: half the clients`)
    for (const entry of mine) {
      assert.equal(entry.user, 'alice')
      assert.deepEqual(entry.events.map((e) => e.event), session.events.map((e) => e.event))
      assert.deepEqual(entry.events.map((e) => e.shape), session.events.map((e) => e.shape))
      assert.deepEqual(entry.joins, session.joins)
    }
  }
  // The talker's line names its client (typed: "hello there #i.1"): profile 1 is on even clients.
  const talkers = replayed.filter((e) => e.joins[0] === 'room-7').map((e) => Number(/#(\d+)\.1$/.exec(e.events[1].text ?? '')?.[1]))
  assert.deepEqual(talkers.sort((a, b) => a - b), Array.from({ length: CLIENTS / 2 }, (_, k) => 2 * k))
  const counts = JSON.parse(done.stdout).custom?.counts ?? {}
  assert.deepEqual([counts.profile1_replays, counts.profile2_replays, counts.replays_complete], [CLIENTS / 2, CLIENTS / 2, CLIENTS])
  assert.equal(counts.steps_done, (CLIENTS / 2) * 3 + (CLIENTS / 2) * 2)
})
