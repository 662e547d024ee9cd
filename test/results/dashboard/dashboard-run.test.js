/**
 * `ioswarm run --dashboard` end to end: a real run (the reference server on port 0, 2 × 15
 * clients, 5 messages) with the dashboard open: the stream carries growing connected counts
 * and delays; a page that opens late gets the run so far; actions without the token are
 * refused and change nothing, one with it reaches the run's steering; the run exits with pages still open; the NDJSON log is written
 * and `ioswarm report events.ndjson --dashboard` plays it back.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { BIN, runCli } from '../../helpers/cli.js'
import { waitFor } from '../../helpers/wait.js'
import { openEvents, request } from './sse-client.js'

test('run --dashboard: live stream, late page, token rules, log and replay', { timeout: 240000 }, async (t) => {
  const out = await mkdtemp(path.join(tmpdir(), 'ioswarm-dashboard-'))
  t.after(() => rm(out, { recursive: true, force: true }))
  const run = runCli(t, [
    BIN, 'run', '--simulators', '2', '--clients-per-simulator', '15', '--rounds', '5x500', '--ping-interval', '1s',
    '--out', out, '--dashboard'
  ])
  let url = ''
  await waitFor(() => (url = /dashboard: (http:\S+)/.exec(run.output().stderr)?.[1] ?? ''), { timeoutMs: 60000, message: 'the dashboard line' })
  const base = new URL(url)
  const token = base.searchParams.get('token') ?? ''
  assert.ok(token.length >= 16, 'the printed URL carries the token')
  const at = (/** @type {string} */ p) => new URL(p, base).href

  const early = openEvents(t, at('/events'))
  await waitFor(() => early.events[0]?.type === 'hello', { timeoutMs: 30000, message: 'the hello event' })
  assert.equal(early.events[0].command, 'run')

  // Without the token, or with a wrong one: 403, and nothing happens to the run.
  for (const headers of /** @type {Record<string, string>[]} */ ([{}, { authorization: 'Bearer wrong' }])) {
    const refused = await request(at('/api/stop'), { method: 'POST', body: {}, headers })
    assert.equal(refused.status, 403)
  }
  assert.equal((await request(`${at('/api/clients')}?token=nope`, { method: 'POST', body: { clients: 1 } })).status, 403)
  const page = await request(at('/'))
  assert.equal(page.status, 200)
  assert.match(page.text, /data-metric="connected"/)

  await waitFor(() => early.seconds().some((s) => s.clients.connected === 30), { timeoutMs: 60000, message: 'all 30 clients in the stream' })
  // A page opened now gets the run so far before anything new.
  const seenBefore = early.seconds().length
  const late = openEvents(t, at('/events'))
  await waitFor(() => late.seconds().length >= seenBefore, { timeoutMs: 30000, message: 'the late page\'s history' })
  assert.equal(late.events[0].type, 'hello')
  assert.deepEqual(late.seconds().slice(0, seenBefore).map((s) => s.t), early.seconds().slice(0, seenBefore).map((s) => s.t))

  await waitFor(() => early.seconds().some((s) => s.delivery.relative !== null), { timeoutMs: 60000, message: 'a second with delays' })
  const state = await request(at('/api/state'))
  assert.equal(state.status, 200)
  assert.equal(state.json.ended, false)
  assert.deepEqual(state.json.timeline, [], 'no action was taken')
  assert.deepEqual(state.json.actions, ['stop', 'clients', 'emit-rate'])
  // With the token, a bad value reaches the run's steering, is refused with the flag's reason, and is an event of the stream.
  const bad = await request(at('/api/emit-rate'), { method: 'POST', body: { rate: 'often' }, headers: { authorization: `Bearer ${token}` } })
  assert.equal(bad.status, 400)
  assert.match(bad.json.error, /--emit-rate/)
  await waitFor(() => early.events.some((e) => e.type === 'action' && e.action === 'emit-rate' && e.ok === false), {
    timeoutMs: 30000,
    message: 'the refused action in the stream'
  })

  // The run ends with both pages still open: it does not wait for them.
  const done = await run
  assert.equal(done.code, 0, done.stderr)
  await waitFor(() => early.ended && late.ended, { timeoutMs: 30000, message: 'the pages\' streams ended by the run' })

  const seconds = early.seconds()
  const connected = seconds.map((s) => s.clients.connected)
  assert.equal(connected[0] < 30 && connected.includes(30), true, `connected grows to 30: ${connected}`)
  const delays = seconds.filter((s) => s.delivery.relative)
  assert.ok(delays.every((s) => s.delivery.relative.max >= s.delivery.relative.p99 && s.delivery.relative.p99 >= s.delivery.relative.p50))
  const result = JSON.parse(await readFile(path.join(out, 'result.json'), 'utf8'))
  const last = seconds.at(-1)
  assert.equal(
    last.totals.received,
    result.distributions[0].rounds.reduce((/** @type {number} */ s, /** @type {any} */ r) => s + r.received, 0),
    'the stream\'s deliveries equal result.json\'s'
  )
  const end = early.events.find((e) => e.type === 'end')
  assert.equal(end.result, path.join(out, 'result.json'))

  const log = (await readFile(path.join(out, 'events.ndjson'), 'utf8')).trim().split('\n').map((l) => JSON.parse(l))
  assert.equal(log[0].type, 'hello')
  assert.equal(log.at(-1).type, 'end')
  assert.deepEqual(log.filter((e) => e.type === 'second').map((e) => e.t), seconds.map((s) => s.t), 'the log holds the seconds the page got')
  assert.match(await readFile(path.join(out, 'report.html'), 'utf8'), /Second by second/)

  // Played back: the same seconds, then the end.
  const replay = runCli(t, [BIN, 'report', path.join(out, 'events.ndjson'), '--dashboard'])
  let replayUrl = ''
  await waitFor(() => (replayUrl = /dashboard: (http:\S+)/.exec(replay.output().stderr)?.[1] ?? ''), {
    timeoutMs: 60000,
    message: 'the replay\'s dashboard line'
  })
  const played = openEvents(t, new URL('/events', replayUrl).href)
  await waitFor(() => played.events.some((e) => e.type === 'end'), { timeoutMs: 30000, message: 'the replayed end' })
  assert.deepEqual(played.seconds().map((s) => s.t), seconds.map((s) => s.t))
  const replayState = await request(new URL('/api/state', replayUrl).href)
  assert.equal(replayState.json.ended, true)
  assert.equal(replayState.json.hello.replay, true)
  replay.child.kill('SIGTERM')
  const stopped = await replay
  assert.equal(stopped.code, 0, stopped.stderr)
})
