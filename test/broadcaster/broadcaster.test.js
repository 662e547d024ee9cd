import { test } from 'node:test'
import assert from 'node:assert/strict'
import { runBroadcast } from '../../broadcaster/index.js'
import { startTestServer } from '../helpers/swarm.js'
import { closedPort } from '../helpers/ports.js'

test('rounds are sent on schedule with round.seq ids, over HTTP and over the admin socket', async (t) => {
  const server = await startTestServer(t)
  /** @type {unknown[]} */
  const seen = []
  server.io.on('connection', () => {})
  const original = server.io.emit.bind(server.io)
  server.io.emit = (/** @type {string} */ event, /** @type {unknown[]} */ ...args) => { seen.push(args[0]); return original(event, ...args) }
  for (const via of /** @type {const} */ (['http', 'socket'])) {
    seen.length = 0
    /** @type {number[]} */
    const rounds = []
    const result = await runBroadcast({ url: server.url, token: 'test-token', rounds: '3x100,2x50', size: 32, via }, {
      onRoundEnd: (round) => { rounds.push(round) }
    })
    assert.deepEqual(result.messages.map((m) => m.id), ['1.1', '1.2', '1.3', '2.1', '2.2'], via)
    assert.deepEqual(rounds, [1, 2])
    assert.equal(seen.length, 5)
    assert.ok(result.messages.every((m) => m.error === null && typeof m.sentAt === 'number'))
    // Scheduled from the round start: message k of round 1 goes out about k × 100 ms after the first.
    const r1 = result.messages.filter((m) => m.round === 1).map((m) => m.requestedAt - result.messages[0].requestedAt)
    assert.ok(r1[2] >= 195 && r1[2] < 600, `third message at +${r1[2]} ms`)
  }
})

test('a wrong token stops the broadcast with a clear error', async (t) => {
  const server = await startTestServer(t)
  await assert.rejects(runBroadcast({ url: server.url, token: 'nope', rounds: '2x10' }), /refused the token \(HTTP 401/)
  await assert.rejects(runBroadcast({ url: server.url, token: 'nope', rounds: '2x10', via: 'socket' }), /refused the token/)
})

test('a server that is not there fails the broadcast with the reason', async () => {
  await assert.rejects(runBroadcast({ url: `http://127.0.0.1:${await closedPort()}`, token: 't', rounds: '1x10' }), /every broadcast so far failed: POST .* failed: ECONNREFUSED/)
})

test('bad options are usage errors naming the flag', async () => {
  await assert.rejects(runBroadcast({ url: 'http://x', token: '', rounds: '1x1' }), /--token is required/)
  await assert.rejects(runBroadcast({ url: 'http://x', token: 't', rounds: 'soon' }), /--rounds/)
  await assert.rejects(runBroadcast({ url: 'http://x', token: 't', size: -4 }), /--size/)
})
