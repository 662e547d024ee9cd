/**
 * Client profiles from the sessions of one HAR (recorder/profiles.js): Chrome's fixture session
 * recorded again after a reload (the same steps, another sid), a second tab that joined another
 * room, and a socket to another Engine.IO path. The first two are one profile recorded twice,
 * the tab is profile 2, the other path is named and left out; client i replays profile
 * [1, 1, 2][i mod 3]. Six clients replay it against the socket.io 4 chat app (recorded-app.js),
 * whose ledger sees clients 2 and 5 in room-9, the others in room-7, each with the recorded events.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { BIN, ROOT, runCli } from '../helpers/cli.js'
import { waitFor } from '../helpers/wait.js'
import { startRecordedApp } from './recorded-app.js'

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

test('a reload, a second tab and a socket elsewhere: two profiles in the recorded proportion, replayed as such', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'ioswarm-record-profiles-'))
  t.after(() => rm(dir, { recursive: true, force: true }))
  const har = JSON.parse(await readFile(join(ROOT, 'test/fixtures/har/chrome-websocket.har'), 'utf8'))
  const ws = har.log.entries.find((/** @type {any} */ e) => e._resourceType === 'websocket')
  har.log.entries.push(
    again(ws, 10, 'reloadedSidAAAAAAAAAAAB'),
    again(ws, 20, 'secondTabSidAAAAAAAAAAB', (text) => text.replaceAll('room-7', 'room-9')),
    again(ws, 30, 'otherPathSidAAAAAAAAAAB', (text) => text.replace('ws://app.test/socket.io/', 'ws://app.test/other-io/'))
  )
  await writeFile(join(dir, 'tabs.har'), JSON.stringify(har))
  const record = await runCli(t, [BIN, 'record', '--har', join(dir, 'tabs.har'), '--out', join(dir, 'tabs.mjs')])
  assert.equal(record.code, 0, record.stderr)
  assert.match(record.stderr, /recorded 4 Socket\.IO session\(s\) .* as 2 client profiles\n/)
  assert.match(record.stderr, /client i replays profile \[1, 1, 2\]\[i mod 3\]/)
  assert.match(record.stderr, /profile 1 \(sid k3J9xQ0aZbC1dE2fAAAB, websocket, recorded 2 times\): sent: \/chat join\(room-7\),/)
  assert.match(record.stderr, /profile 2 \(sid secondTabSidAAAAAAAAAAB, websocket\): sent: \/chat join\(room-9\),/)
  assert.match(record.stderr, /not replayed: sid otherPathSidAAAAAAAAAAB .*; it used another Engine\.IO path \(\/other-io\/\): a run has one --path/)
  assert.match(record.stderr, /received: \/chat chat ×9/, 'what the three replayed sessions received')
  const module = await readFile(join(dir, 'tabs.mjs'), 'utf8')
  assert.match(module, /const PROFILE_OF = \[0, 0, 1\]/)
  assert.match(module, /Not replayed: session otherPathSidAAAAAAAAAAB: it used another Engine\.IO path/)
  assert.match(module, /await step\(5, \d+, "join room-9"/, 'profile 2 numbers its steps after profile 1\'s')

  // The chat app's own password for alice, and its /chat checks the login's token in the auth, as the fixture's did.
  const app = await startRecordedApp(t)
  await writeFile(join(dir, 'users.csv'), 'user,password\nalice,pw-Alice-2026\n')
  const clients = 6
  const run = runCli(t, [BIN, 'simulate', '--url', app.url, '--transport', 'websocket', '--namespace', '/chat', '--scenario', join(dir, 'tabs.mjs'),
    '--feeder', join(dir, 'users.csv'), '--clients', String(clients), '--ramp', '300ms', '--duration', '30s', '--json'], { env: { SCENARIO_SPEED: '0' } })
  const replayed = () => [...app.ledger.values()].filter((e) => e.events.length >= 4)
  await waitFor(() => replayed().length === clients, { timeoutMs: 20000, message: () => `${clients} replays (${replayed().length} so far)` })
  run.child.kill('SIGINT')
  const done = await run
  assert.equal(done.code, 0, done.stderr)
  const byClient = new Map(replayed().map((e) => [Number(/#(\d+)\.1$/.exec(e.events[1].text ?? '')?.[1]), e]))
  assert.deepEqual([...byClient.keys()].sort(), [0, 1, 2, 3, 4, 5])
  for (const [i, entry] of byClient) {
    assert.deepEqual(entry.joins, [i % 3 === 2 ? 'room-9' : 'room-7'], `client ${i}`)
    assert.deepEqual(entry.events.map((e) => e.event), ['join', 'chat', 'avatar', 'typing'], `client ${i}`)
  }
  const counts = JSON.parse(done.stdout).custom.counts
  assert.deepEqual([counts.profile1_replays, counts.profile2_replays, counts.replays_complete], [4, 2, 6])
})
