/**
 * The one emit machinery (simulator/traffic/emitting.js): an ack's end is told by the error's code,
 * not its text, and every emit that asked for an ack is counted once: sent = acked + timed
 * out + failed, for --emit and for a scenario's emitWithAck, on both engines, against a
 * server that acks some lines, never acks others and drops the connection with acks pending.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ackClosed, ackTimeout } from '../../../lib/errors.js'
import { countAck, createEmitCounts, recordEmitCounts } from '../../../simulator/traffic/emitting.js'
import { startTestSwarm } from '../../helpers/swarm.js'
import { waitFor } from '../../helpers/wait.js'
import { startIoServer } from '../../helpers/io-server.js'

test('an ack is counted by its error\'s code: a timeout by IOSWARM_ERR_ACK_TIMEOUT, a close on purpose by IOSWARM_ERR_ACK_CLOSED, whatever the text', () => {
  const counts = createEmitCounts()
  countAck(counts, null, 12)
  countAck(counts, ackTimeout(), 200)
  // The text socket.io-client gives a timeout, without the code: a failure like any other.
  countAck(counts, new Error('operation has timed out'), 5)
  countAck(counts, new Error('socket has been disconnected'), 5)
  // The swarm closed the client on purpose first (a ramp down, the run's end): closed, not failed.
  countAck(counts, ackClosed(), 5)
  const { ackTime, ...rest } = recordEmitCounts(counts)
  assert.deepEqual(rest, { sent: 0, acked: 1, timedOut: 1, failed: 2, closed: 1, reasons: { 'operation has timed out': 1, 'socket has been disconnected': 1 } })
  assert.equal(ackTime.count, 1, 'only the ack is timed')
})

/**
 * A server that acks two lines in three, never acks the third, and drops each connection
 * (acks still pending) at its 30th line.
 * @param {import('node:test').TestContext} t
 */
async function startUnreliableServer (t) {
  const { io, port } = await startIoServer(t)
  const counts = { dropped: 0 }
  io.on('connection', (socket) => {
    let n = 0
    socket.on('chat', (/** @type {unknown} */ _line, /** @type {((a: unknown) => void) | undefined} */ ack) => {
      n++
      if (n === 30) {
        counts.dropped++
        return socket.disconnect(true)
      }
      if (n % 3 !== 0) ack?.({ ok: true })
    })
  })
  return { url: `http://127.0.0.1:${port}`, counts }
}

/** @param {{ counts: { dropped: number } }} server */
const dropped = (server) => ({ timeoutMs: 20000, message: () => `both connections dropped at their 30th line (${server.counts.dropped})` })

/**
 * @param {{ sent: number, acked: number, timedOut: number, failed: number, closed?: number } | undefined} emits
 */
function assertEveryEmitCounted (emits) {
  assert.ok(emits, 'emits recorded')
  assert.equal(
    emits.acked + emits.timedOut + emits.failed + (emits.closed ?? 0),
    emits.sent,
    `sent = acked + timed out + failed + closed: ${JSON.stringify(emits)}`
  )
  assert.ok(emits.acked > 0 && emits.timedOut > 0 && emits.failed > 0, `each kind of end happened: ${JSON.stringify(emits)}`)
}

for (const engine of ['sio', 'lean']) {
  test(`${engine}: --emit --emit-ack: acked, timed out and failed add up to sent`, async (t) => {
    const server = await startUnreliableServer(t)
    const swarm = startTestSwarm(t, {
      url: server.url, engine, clients: 2, emit: 'chat {"text":"hi"}', emitRate: '20/s', emitTiming: 'fixed', emitAck: true, ackTimeout: '500ms', event: 'none'
    })
    await waitFor(() => server.counts.dropped >= 2, dropped(server))
    const result = await swarm.stop()
    assertEveryEmitCounted(result.scenario?.emits)
  })

  test(`${engine}: a scenario's emitWithAck: acked, timed out and failed add up to sent`, async (t) => {
    const server = await startUnreliableServer(t)
    const dir = mkdtempSync(join(tmpdir(), 'ioswarm-emitting-'))
    t.after(() => rmSync(dir, { recursive: true, force: true }))
    const scenario = join(dir, 'lines.js')
    writeFileSync(scenario, `
      export function onConnect (socket) {
        socket.every(50, () => socket.emitWithAck('chat', { text: 'hi' }).catch(() => {}))
      }
    `)
    const swarm = startTestSwarm(t, { url: server.url, engine, clients: 2, scenario, ackTimeout: '500ms', event: 'none' })
    await waitFor(() => server.counts.dropped >= 2, dropped(server))
    const result = await swarm.stop()
    assertEveryEmitCounted(result.scenario?.hooks?.emits)
    assert.deepEqual(result.scenario?.hooks?.errors, {})
  })
}
