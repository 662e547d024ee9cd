import { test } from 'node:test'
import assert from 'node:assert/strict'
import { fileURLToPath } from 'node:url'
import { startAppServer } from '../helpers/app-server.js'
import { startTestSwarm } from '../helpers/swarm.js'
import { waitFor } from '../helpers/wait.js'

const example = (/** @type {string} */ name) => fileURLToPath(new URL(`../../examples/${name}`, import.meta.url))

for (const engine of ['sio', 'lean']) {
  test(`${engine}: examples/chat.js joins rooms, says lines with acks, and the relayed lines are measured`, async (t) => {
    process.env.CHAT_LINE_EVERY_MS = '100'
    t.after(() => { delete process.env.CHAT_LINE_EVERY_MS })
    const server = await startAppServer(t)
    const swarm = startTestSwarm(t, { url: server.url, engine, clients: 4, rooms: 2, event: 'chat', scenario: example('chat.js') })
    // Lines sent while a room member's join ack is in flight are not expected of it: the lines checked are those first
    // received after every client read its join's ack (the swarm's stop waits for copies still on their way).
    await server.joinsSettled(4)
    const settledAt = Date.now()
    const heard = server.counts.chats
    await waitFor(() => server.counts.chats >= Math.max(20, heard + 10),
      { timeoutMs: 15000, message: () => `10 more lines heard (have ${server.counts.chats})` })
    const result = await swarm.stop()
    const hooks = result.scenario?.hooks
    assert.deepEqual(hooks?.errors, {}, 'no hook threw')
    assert.equal(hooks?.calls.onConnect, 4)
    assert.ok((hooks?.emits.acked ?? 0) >= 20, `acked lines: ${JSON.stringify(hooks?.emits)}`)
    assert.equal(hooks?.emits.ackTime.count, hooks?.emits.acked)
    const lines = result.messages.filter((m) => m.event === 'chat' && m.firstAt > settledAt)
    assert.ok(lines.length >= 5, `lines measured: ${lines.length}`)
    for (const m of lines) {
      assert.equal(m.expected, 1, `${m.id}: the other client of the room expects it`)
      assert.deepEqual([m.missing, m.misdelivered, m.duplicates], [0, 0, 0], m.id)
      assert.ok(m.absolute, 'timed from the line\'s sentAt')
    }
  })

  test(`${engine}: examples/live-score.js logs in with a token, follows one match, and counts scores of other matches as misdelivered`, async (t) => {
    const server = await startAppServer(t, { authToken: 's3cret' })
    const swarm = startTestSwarm(t, { url: server.url, engine, clients: 6, rooms: 3, event: 'score', scenario: example('live-score.js') })
    await waitFor(() => ['room-0', 'room-1', 'room-2'].every((r) => server.roomSize(r) === 2), { timeoutMs: 15000, message: 'two fans per match' })
    await server.joinsSettled()
    server.io.to('room-0').emit('score', { id: 's1', sentAt: Date.now(), room: 'room-0', home: 1, away: 0 })
    server.io.to('room-1').to('room-2').emit('score', { id: 's2', sentAt: Date.now(), room: 'room-1', home: 0, away: 2 })
    await waitFor(() => ['s1', 's2'].every((id) => swarm.closed.some((m) => m.id === id)), { timeoutMs: 15000 })
    const result = await swarm.stop()
    const byId = Object.fromEntries(result.messages.map((m) => [m.id, m]))
    assert.deepEqual([byId.s1.expected, byId.s1.received, byId.s1.misdelivered], [2, 2, 0])
    assert.deepEqual([byId.s2.expected, byId.s2.received, byId.s2.misdelivered], [2, 2, 2], 'room-2\'s fans got room-1\'s score')
    assert.equal(result.clients.everConnected, 6)

    process.env.SCORE_TOKEN = 'wrong'
    t.after(() => { delete process.env.SCORE_TOKEN })
    const refused = startTestSwarm(t, { url: server.url, engine, clients: 2, rooms: 3, event: 'score', scenario: example('live-score.js') })
    await waitFor(() => (refused.progress?.errors ?? 0) >= 2, { timeoutMs: 10000, message: 'two refusals counted' })
    const r = await refused.stop()
    assert.equal(r.clients.everConnected, 0)
    assert.ok((r.clients.errors.unauthorized ?? 0) >= 2, JSON.stringify(r.clients.errors))
  })
}
