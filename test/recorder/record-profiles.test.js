/**
 * Client profiles from the sessions of one HAR (recorder/profiles.js): Chrome's fixture session
 * recorded again after a reload (the same steps, another sid and token), a second tab that
 * joined another room (its handshake asking for another with ?room=vip), a third that did the
 * first's steps on the /feed namespace, and a socket to another Engine.IO path. The first two
 * are one profile recorded twice, the tabs profiles 2 and 3, the other path is named and left
 * out; client i replays profile [1, 1, 2, 3][i mod 4]. Eight clients replay it with the line
 * record printed against the socket.io 4 chat app (recorded-app.js): each connects to /chat and
 * /feed, and the app's ledger sees each act where and as its profile did, and only listen on
 * the other namespace.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { BIN, ROOT, runCli } from '../helpers/cli.js'
import { waitFor } from '../helpers/wait.js'
import { startRecordedApp } from './recorded-app.js'
import { loadScenario } from '../../simulator/traffic/scenario-hooks.js'

const SID = 'k3J9xQ0aZbC1dE2fAAAB'

/**
 * The fixture's WebSocket entry again, later, with another sid (and what else `change` does to its text).
 * @param {any} entry
 * @param {number} laterS
 * @param {string} sid
 * @param {(text: string) => string} [change]
 */
function again (entry, laterS, sid, change = (text) => text) {
  const copy = JSON.parse(change(JSON.stringify(entry).replaceAll(SID, sid)))
  copy.startedDateTime = new Date(Date.parse(entry.startedDateTime) + laterS * 1000).toISOString()
  for (const m of copy._webSocketMessages) m.time += laterS
  return copy
}

test('a reload, two more tabs and a socket elsewhere: three profiles in the recorded proportion, replayed as such', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'ioswarm-record-profiles-'))
  t.after(() => rm(dir, { recursive: true, force: true }))
  const har = JSON.parse(await readFile(join(ROOT, 'test/fixtures/har/chrome-websocket.har'), 'utf8'))
  const ws = har.log.entries.find((/** @type {any} */ e) => e._resourceType === 'websocket')
  har.log.entries.push(
    // After a reload the page logged in again: its CONNECT carries another token.
    again(ws, 10, 'reloadedSidAAAAAAAAAAAB', (text) => text.replace('c2lnbmF0dXJlLW9mLWFsaWNl', 'YW5vdGhlci1zaWduYXR1cmU')),
    again(ws, 20, 'secondTabSidAAAAAAAAAAB', (text) => text.replaceAll('room-7', 'room-9').replaceAll('room=lobby', 'room=vip')),
    again(ws, 30, 'otherPathSidAAAAAAAAAAB', (text) => text.replace('ws://app.test/socket.io/', 'ws://app.test/other-io/')),
    again(ws, 40, 'feedTabSidAAAAAAAAAAAAB', (text) => text.replaceAll('/chat,', '/feed,'))
  )
  await writeFile(join(dir, 'tabs.har'), JSON.stringify(har))
  const record = await runCli(t, [BIN, 'record', '--har', join(dir, 'tabs.har'), '--out', join(dir, 'tabs.mjs')])
  assert.equal(record.code, 0, record.stderr)
  assert.match(record.stderr, /recorded 5 Socket\.IO session\(s\) .*namespaces \/chat, \/feed as 3 client profiles\n/)
  assert.match(record.stderr, /client i replays profile \[1, 1, 2, 3\]\[i mod 4\]/)
  assert.match(record.stderr, /profile 1 \(sid k3J9xQ0aZbC1dE2fAAAB, websocket, recorded 2 times\): sent: \/chat join\(room-7\),/)
  assert.match(record.stderr, /profile 2 \(sid secondTabSidAAAAAAAAAAB, websocket\): sent: \/chat join\(room-9\),/)
  assert.match(record.stderr, /profile 3 \(sid feedTabSidAAAAAAAAAAAAB, websocket\): sent: \/feed join\(room-7\),/)
  assert.match(record.stderr, /not replayed: sid otherPathSidAAAAAAAAAAB .*; it used another Engine\.IO path \(\/other-io\/\): a run has one --path/)
  assert.match(record.stderr, /received: \/chat chat ×9, \/feed chat ×3/, 'what the four replayed sessions received')
  const module = await readFile(join(dir, 'tabs.mjs'), 'utf8')
  assert.match(module, /const PROFILE_OF = \[0, 0, 1, 2\]/)
  assert.match(module, /Not replayed: session otherPathSidAAAAAAAAAAB: it used another Engine\.IO path/)
  assert.match(module, /await step\(5, \d+, "join room-9"/, 'profile 2 numbers its steps after profile 1\'s')
  // The second tab's handshake asked for another room (?room=vip): each profile's handshake is its own.
  const hooks = await loadScenario(join(dir, 'tabs.mjs'))
  const ctx = (/** @type {number} */ i) => /** @type {any} */ ({ i, row: { user: `u${i}` }, login: { token: `tk${i}` } })
  const handshakes = [0, 1, 2, 3, 4, 6].map((i) => hooks.identity?.(i, ctx(i)))
  assert.deepEqual(handshakes.map((h) => h?.query?.room), ['lobby', 'lobby', 'vip', 'lobby', 'lobby', 'vip'])
  assert.deepEqual(handshakes[2]?.auth, { token: 'tk2', user: 'u2' })

  // The chat app's own password for alice; its namespaces check the login's token in the auth, as the fixture's app did.
  const app = await startRecordedApp(t)
  await writeFile(join(dir, 'users.csv'), 'user,password\nalice,pw-Alice-2026\n')
  const clients = 8
  const line = (record.stderr.trim().split('\n').at(-1) ?? '').trim().split(/\s+/).slice(2)
  const placed = (/** @type {string} */ w) => (w.endsWith('.mjs') ? join(dir, w) : w)
  const words = line.map((w, k) => line[k - 1] === '--url' ? app.url : line[k - 1] === '--feeder' ? join(dir, 'users.csv') : placed(w))
  assert.deepEqual(words.filter((w, k) => words[k - 1] === '--namespace'), ['/chat', '/feed'])
  const run = runCli(t, [BIN, 'simulate', ...words.filter((w, k) => w !== '--clients' && words[k - 1] !== '--clients'),
    '--clients', String(clients), '--ramp', '300ms', '--duration', '30s', '--json'], { env: { SCENARIO_SPEED: '0' } })
  const replayed = () => [...app.ledger.values()].filter((e) => e.events.length >= 4)
  await waitFor(() => replayed().length === clients, { timeoutMs: 20000, message: () => `${clients} replays (${replayed().length} so far)` })
  run.child.kill('SIGINT')
  const done = await run
  assert.equal(done.code, 0, done.stderr)
  const byClient = new Map(replayed().map((e) => [Number(/#(\d+)\.1$/.exec(e.events[1].text ?? '')?.[1]), e]))
  assert.deepEqual([...byClient.keys()].sort(), [0, 1, 2, 3, 4, 5, 6, 7])
  for (const [i, entry] of byClient) {
    const where = [['/chat', 'room-7'], ['/chat', 'room-7'], ['/chat', 'room-9'], ['/feed', 'room-7']][i % 4]
    assert.deepEqual([entry.nsp, ...entry.joins], where, `client ${i}`)
    assert.deepEqual(entry.events.map((e) => e.event), ['join', 'chat', 'avatar', 'typing'], `client ${i}`)
  }
  // Every client connected to both namespaces (and the swarm's look before the run to /chat): on the other one it only listened.
  const idle = [...app.ledger.values()].filter((e) => e.events.length === 0)
  assert.deepEqual([idle.filter((e) => e.nsp === '/chat').length - 1, idle.filter((e) => e.nsp === '/feed').length], [2, 6])
  const counts = JSON.parse(done.stdout).custom.counts
  assert.deepEqual([counts.profile1_replays, counts.profile2_replays, counts.profile3_replays, counts.replays_complete], [4, 2, 2, 8])
})
