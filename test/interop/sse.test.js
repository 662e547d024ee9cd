/**
 * Server-Sent Events subscribers (--protocol sse) against nchan on nginx, a pub/sub server
 * other people wrote (test/helpers/nchan.js): `run` with --publish measuring every published
 * message at every subscriber, and a stream nchan ends, resumed from the Last-Event-ID so the
 * messages published in the gap still arrive.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { runCli } from '../helpers/cli.js'
import { startNchan } from '../helpers/nchan.js'
import { waitFor } from '../helpers/wait.js'
import { sseEngine } from '../../simulator/engines/sse.js'
import { recorder } from '../simulator/engines/lean/helpers.js'

/**
 * @param {import('node:test').TestContext} t
 */
async function tempDir (t) {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'ioswarm-sse-'))
  t.after(() => rm(dir, { recursive: true, force: true }))
  return dir
}

/**
 * Publishes `body` to an nchan channel.
 * @param {string} url the publisher's URL
 * @param {string} body
 */
async function publish (url, body) {
  const res = await fetch(url, { method: 'POST', body })
  await res.text()
  return res.status
}

test('run --protocol sse --publish against nchan: 20 subscribers measure every published message, none missing', async (t) => {
  const nchan = await startNchan(t)
  if (!nchan) return
  const out = await tempDir(t)
  const clients = 20
  const { code, stderr } = await runCli(t, ['bin/ioswarm.js', 'run', '--protocol', 'sse', '--target', `${nchan.http}/sse/news`,
    '--publish', `POST ${nchan.http}/pub/news`, '--message', '{"id":"{{id}}","ts":{{sentAt}}}', '--id-field', 'id', '--sent-at-field', 'ts',
    '--rounds', '3x100,2x100', '--clients', String(clients), '--simulators', '1', '--ramp', '500ms', '--out', out], { timeoutMs: 60000 })
  assert.equal(code, 0, stderr)
  const result = JSON.parse(await readFile(path.join(out, 'result.json'), 'utf8'))
  const [d] = result.distributions
  assert.deepEqual(d.rounds.map((/** @type {any} */ r) => [r.round, r.messages, r.received, r.missing, r.duplicates ?? 0]),
    [[1, 3, 3 * clients, 0, 0], [2, 2, 2 * clients, 0, 0]])
  assert.ok(d.rounds.every((/** @type {any} */ r) => r.absolute && r.absolute.count === r.received), 'absolute latency from the ts the request carried')
  assert.deepEqual([d.publish.requests, d.publish.byStatus], [5, { 201: 5 }], 'nchan answers 201 when the channel has subscribers')
  assert.deepEqual([result.options.protocol, result.options.engine, result.options.event], ['sse', 'sse', 'message'])
})

test('run --protocol sse with rooms: each client\'s channel from --query, each message to its room, only its room expects it', async (t) => {
  const nchan = await startNchan(t)
  if (!nchan) return
  const out = await tempDir(t)
  const rooms = ['--query', 'channel={{room}}', '--rooms', '2', '--room-field', 'room', '--publish', `POST ${nchan.http}/pub/{{room}}`]
  const message = ['--message', '{"id":"{{id}}","ts":{{sentAt}},"room":"{{room}}"}', '--id-field', 'id', '--sent-at-field', 'ts']
  const { code, stderr } = await runCli(t, ['bin/ioswarm.js', 'run', '--protocol', 'sse', '--target', `${nchan.http}/sse-by-query`, ...rooms, ...message,
    '--rounds', '4x100', '--clients', '20', '--simulators', '1', '--ramp', '500ms', '--out', out], { timeoutMs: 60000 })
  assert.equal(code, 0, stderr)
  const [d] = JSON.parse(await readFile(path.join(out, 'result.json'), 'utf8')).distributions
  // Message k went to room-{(k-1) mod 2}: half of the clients each, and no copy reached the other half.
  const expected = [1, 2, 3, 4].map((k) => [`1.${k}`, `room-${(k - 1) % 2}`, 10, 0])
  assert.deepEqual(d.messages.map((/** @type {any} */ m) => [m.id, m.room, m.received, m.missing]), expected)
  assert.deepEqual([d.rounds[0].misdelivered, d.rounds[0].duplicates ?? 0], [0, 0])
})

test('capacity --protocol sse --publish against nchan: each step\'s subscribers measure every message', async (t) => {
  const nchan = await startNchan(t)
  if (!nchan) return
  const out = await tempDir(t)
  const { code, stderr } = await runCli(t, ['bin/ioswarm.js', 'capacity', '--protocol', 'sse', '--target', `${nchan.http}/sse/cap`,
    '--publish', `POST ${nchan.http}/pub/cap`, '--message', '{"id":"{{id}}","ts":{{sentAt}}}', '--id-field', 'id', '--sent-at-field', 'ts',
    '--start', '10', '--max', '20', '--rounds', '2x200', '--simulators', '1', '--ramp', '500ms', '--slo', 'p99<10s', '--out', out], { timeoutMs: 90000 })
  assert.equal(code, 0, stderr)
  const result = JSON.parse(await readFile(path.join(out, 'result.json'), 'utf8'))
  assert.deepEqual(result.steps.map((/** @type {any} */ s) => [s.clients, s.connected, s.expected, s.missing, s.verdict]),
    [[10, 10, 20, 0, 'pass'], [20, 20, 40, 0, 'pass']])
  assert.equal(result.capacity, 20)
})

test('a stream nchan ends is resumed with Last-Event-ID: the messages published in the gap arrive after the reconnect', async (t) => {
  const nchan = await startNchan(t)
  if (!nchan) return
  const { log, events } = recorder()
  // A reconnect well after the publishes below: they fall in the gap (checked, not assumed).
  const backoff = { minMs: 3000, maxMs: 3000, jitter: 0 }
  const url = `${nchan.http}/sse-brief/gap`
  const options = { url, path: '/', namespace: '/', events: ['message'], keepAlive: false, reconnect: true, heartbeatTickMs: 20, backoff }
  const pool = sseEngine.createPool(options, events)
  t.after(() => pool.close())
  pool.connect(0, 'websocket')
  await waitFor(() => log.connectedCount === 1, { message: 'the subscriber connected' })
  assert.equal(await publish(`${nchan.http}/pub/gap`, '{"id":"m1"}'), 201)
  await waitFor(() => log.messages.length === 1, { message: 'm1 received live' })
  await waitFor(() => log.disconnects.length === 1, { message: 'nchan ended the stream (its subscriber timeout)' })
  // nchan answers 202 to a message no subscriber is connected for: it is only kept.
  assert.equal(await publish(`${nchan.http}/pub/gap`, '{"id":"m2"}'), 202)
  assert.equal(await publish(`${nchan.http}/pub/gap`, '{"id":"m3"}'), 202)
  assert.equal(log.attempts, 1, 'both published while the client waited to reconnect')
  await waitFor(() => log.messages.length === 3, { message: 'm2 and m3 after the reconnect' })
  // Without the Last-Event-ID nchan would send a new subscriber the newest message only (m3).
  assert.deepEqual(log.messages.map((m) => /** @type {{ id: string }} */ (m.args[0]).id), ['m1', 'm2', 'm3'])
  assert.equal(log.reconnected, 1)
})
