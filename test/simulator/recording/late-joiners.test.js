/**
 * "A message counts as missing for a client that was connected when it was sent": a client that
 * connected between a message's send and its first receipt in the simulator was never owed it.
 * A server that takes its recipients at once and delivers to them later (a busy relay, a ramp)
 * while new clients connect in the gap: before the fix the new clients counted as missing.
 * The order is forced by the server, never by timing: it takes the recipients of a line sent
 * once the first clients have all spoken (so they knew they were connected), lets the others
 * connect only then, and delivers once those have spoken too, at least 400 ms after the send.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { startTestSwarm } from '../../helpers/swarm.js'
import { waitFor } from '../../helpers/wait.js'
import { wallMs } from '../../../lib/measure/clock.js'
import { startIoServer } from '../../helpers/io-server.js'

const FIRST = 3
const LATE = 2

/**
 * A socket.io server that admits FIRST clients, then relays one `line` (socket.broadcast.emit's
 * recipients, taken when it arrives) and broadcasts one `tick` (stamped then) late: to all but
 * one of their recipients, and to one client that connected after they were sent.
 * @param {import('node:test').TestContext} t
 */
async function startLateServer (t) {
  const { io, port } = await startIoServer(t)
  /** Connections admitted and not closed yet (the swarm's look at the server is one, briefly). */
  let admitted = 0
  let gateOpen = false
  /** @type {(() => void)[]} */
  const held = []
  const admit = (/** @type {import('socket.io').Socket} */ socket, /** @type {(err?: Error) => void} */ next) => {
    admitted++
    socket.conn.once('close', () => {
      admitted--
      if (!gateOpen && admitted < FIRST) held.shift()?.()
    })
    next()
  }
  // Past FIRST open connections, clients wait here until the messages were sent.
  io.use((socket, next) => (gateOpen || admitted < FIRST ? admit(socket, next) : held.push(() => admit(socket, next))))
  const openGate = () => {
    gateOpen = true
    for (const release of held.splice(0)) release()
  }
  /** The clients connected before the messages were sent. @type {Set<import('socket.io').Socket>} */
  const first = new Set()
  /** @type {import('socket.io').Socket[]} */
  const late = []
  /** @type {Set<import('socket.io').Socket>} */
  const spoke = new Set()
  let allSpokeAt = 0
  /** @type {Promise<{ lineId: string, tickId: string }> | null} */
  let sent = null

  /**
   * @param {import('socket.io').Socket} sender
   * @param {{ id: string, sentAt: number }} line
   */
  async function sendLate (sender, line) {
    const recipients = [...io.of('/').sockets.values()].filter((s) => s !== sender)
    const tick = { id: 'tick-1', sentAt: Date.now() }
    const tickRecipients = [...io.of('/').sockets.values()]
    assert.deepEqual([recipients.length, tickRecipients.length], [FIRST - 1, FIRST])
    const gapOver = new Promise((resolve) => setTimeout(resolve, 400))
    // Clearly after both sends on any clock's millisecond, before anyone else connects.
    await waitFor(() => Date.now() >= tick.sentAt + 20, { intervalMs: 5 })
    openGate()
    await waitFor(() => late.length === LATE && late.every((s) => spoke.has(s)), { timeoutMs: 20000, message: 'the late clients to speak' })
    await gapOver
    const unlucky = recipients[1] // connected when both were sent; gets neither: missing
    for (const s of [...recipients, late[0]]) if (s !== unlucky) s.emit('line', line)
    for (const s of [...tickRecipients, late[0]]) if (s !== unlucky) s.emit('tick', tick)
    return { lineId: line.id, tickId: tick.id }
  }

  io.on('connection', (socket) => {
    if (gateOpen) late.push(socket)
    else {
      first.add(socket)
      socket.on('disconnect', () => first.delete(socket))
    }
    socket.on('line', (/** @type {{ id: string, sentAt: number }} */ line) => {
      // A client speaks only once it knows it is connected: its connect time is before its line.
      spoke.add(socket)
      if (allSpokeAt === 0 && first.size === FIRST && [...first].every((s) => spoke.has(s))) allSpokeAt = wallMs()
      // The line studied: sent after the first clients all knew they were connected.
      if (sent === null && allSpokeAt > 0 && line.sentAt > allSpokeAt && first.has(socket)) sent = sendLate(socket, line)
    })
  })
  return { url: `http://127.0.0.1:${port}`, sent: () => sent }
}

test('clients that connected after a line or a broadcast was sent do not expect it (one that gets it: ' +
  'received); one connected at the send that never gets it is missing', async (t) => {
  const server = await startLateServer(t)
  const swarm = startTestSwarm(t, {
    url: server.url,
    engine: 'lean',
    clients: FIRST + LATE,
    emit: 'line {"text":"hi {{i}}"}',
    emitRate: '20/s',
    event: 'tick',
    messageTimeout: '6s'
  })
  await waitFor(() => server.sent() !== null, { timeoutMs: 20000, message: 'a line after the first clients spoke' })
  const { lineId, tickId } = await /** @type {Promise<{ lineId: string, tickId: string }>} */ (server.sent())
  await waitFor(() => [lineId, tickId].every((id) => swarm.closed.some((m) => m.id === id)), {
    timeoutMs: 30000, message: () => `both messages closed (have ${swarm.closed.map((m) => m.id)})`
  })
  const result = await swarm.stop()
  const byId = Object.fromEntries(result.messages.filter((m) => m.id === lineId || m.id === tickId).map((m) => [m.id, m]))
  const counts = (/** @type {import('../../../lib/schema/result-schema.js').MessageReport} */ m) =>
    ({ expected: m.expected, received: m.received, missing: m.missing, misdelivered: m.misdelivered ?? 0, duplicates: m.duplicates, echo: m.echo ?? 0 })
  // Before the fix: every client connected at the first receipt was expected (line 4, tick 5), so the late ones were missing too.
  assert.deepEqual(counts(byId[lineId]), { expected: FIRST - 1, received: 2, missing: 1, misdelivered: 0, duplicates: 0, echo: 0 },
    'the line: its sender\'s two peers expected, one missing; the late client that got it received, not expected')
  assert.deepEqual(counts(byId[tickId]), { expected: FIRST, received: 3, missing: 1, misdelivered: 0, duplicates: 0, echo: 0 },
    'the broadcast: the three connected at its send expected, one missing')
})
