import { test } from 'node:test'
import assert from 'node:assert/strict'
import { startTestServer, startTestSwarm, waitForClients, waitForClientsReady } from '../helpers/swarm.js'

const CLIENTS = 10
const MESSAGES = 5000
const MAX_OPEN = 50
const KEEP = 100

for (const engine of ['lean', 'sio']) {
  test(`${engine}: a server flooding ${MESSAGES} distinct messages: at most ${MAX_OPEN} are recorded at once, every copy is accounted for`, async (t) => {
    // A short heartbeat: after the flood, two pongs from each client prove it read every frame before them.
    const server = await startTestServer(t, { pingIntervalMs: 200 })
    const swarm = startTestSwarm(t, { url: server.url, clients: CLIENTS, engine, maxOpenMessages: MAX_OPEN, keepMessages: KEEP })
    await waitForClients(server, CLIENTS)
    // As fast as the server can: one emit per message, in batches so the test stays bounded.
    for (let m = 0; m < MESSAGES; m++) {
      server.io.emit('broadcast', { id: `flood-${m}`, round: 1, seq: m, sentAt: Date.now() })
      if (m % 500 === 499) await new Promise((resolve) => setImmediate(resolve))
    }
    // Every copy is either in a kept report, a rollup, or counted as untracked.
    /** @param {import('../../lib/schema/result-schema.js').SimResult} r */
    const copies = (r) => r.messages.reduce((s, m) => s + m.received + m.duplicates + m.late, 0) +
      (r.messageRollups ?? []).reduce((s, g) => s + g.received + g.duplicates + g.late, 0) +
      (r.recorder?.untrackedReceipts ?? 0)
    await waitForClientsReady(server, CLIENTS)
    const result = await swarm.stop()
    assert.ok(result.recorder, 'the result says what the recorder bounds cost')
    assert.equal(copies(result), CLIENTS * MESSAGES, 'each copy sent is counted exactly once')
    assert.ok(result.recorder.untrackedMessages > 0, 'a flood this fast must exceed the open-message bound')
    assert.ok(result.messages.length <= KEEP, `kept ${result.messages.length} whole, at most ${KEEP}`)
    const recorded = result.messages.length + (result.messageRollups ?? []).reduce((s, g) => s + g.messages, 0)
    assert.equal(recorded + result.recorder.untrackedMessages, MESSAGES)
    assert.equal(swarm.closed.length, recorded, 'the collector hook got every recorded message whole')
  })
}
