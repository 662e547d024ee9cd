/**
 * A connection avalanche (every client at once, --ramp 0) against a real socket.io 4 server
 * that refuses some handshakes: the result has the server's accept time (attempt → Engine.IO
 * open) and the failed handshakes by reason, and the summary says so.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { runSwarm } from '../../../simulator/swarm/swarm.js'
import { formatSimSummary } from '../../../simulator/reporting/summary-text.js'
import { waitFor } from '../../helpers/wait.js'
import { startIoServer } from '../../helpers/io-server.js'

const CLIENTS = 10
const REFUSED = 3

for (const engine of ['lean', 'sio']) {
  test(`an avalanche of ${CLIENTS} clients (${engine}): accept time and failed handshakes by reason`, async (t) => {
    let refused = 0
    // The first contact (the simulator's handshake probe, no cache-busting `t`) passes; then three handshakes are refused.
    const { io, url } = await startIoServer(t, {
      pingInterval: 1000,
      allowRequest: (req, callback) => {
        const refuse = /[?&]t=/.test(req.url ?? '') && refused < REFUSED
        if (refuse) refused++
        callback(refuse ? 'refused' : null, !refuse)
      }
    })
    const controller = new AbortController()
    t.after(() => controller.abort())
    const running = runSwarm({ url, clients: CLIENTS, engine, transport: 'polling', ramp: 0, duration: 60 }, { signal: controller.signal })
    await waitFor(() => io.of('/').sockets.size === CLIENTS, { timeoutMs: 30000, message: () => `${CLIENTS} clients (have ${io.of('/').sockets.size})` })
    controller.abort()
    const result = await running
    const { acceptTime, errors } = result.clients
    assert.ok(acceptTime && acceptTime.count >= CLIENTS, JSON.stringify(acceptTime))
    assert.ok(acceptTime.max !== null && acceptTime.max <= (result.clients.connectTime.max ?? 0), 'accepted before connected')
    assert.deepEqual(errors, { 'xhr poll error (HTTP 403)': REFUSED }, 'the HTTP status of each refusal')
    const summary = formatSimSummary(result)
    assert.match(
      summary,
      new RegExp(
        `avalanche: ${CLIENTS} clients at once \\(--ramp 0\\): handshake accepted \\(Engine.IO open\\) p50 \\S+, p99 \\S+, max \\S+; ` +
        `connected p50 \\S+, p99 \\S+, max \\S+; failed handshakes: ${REFUSED} \\(.+: ${REFUSED}\\)`
      )
    )
  })
}
