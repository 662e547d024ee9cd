import { test } from 'node:test'
import assert from 'node:assert/strict'
import { startAppServer } from '../../helpers/app-server.js'
import { startTestSwarm } from '../../helpers/swarm.js'
import { waitFor } from '../../helpers/wait.js'
import { runSwarm } from '../../../simulator/swarm/swarm.js'
import { compileEncodedStamp, compileStamp } from '../../../simulator/traffic/behaviours.js'
import { ownId } from '../../../simulator/traffic/own-ids.js'

for (const engine of ['sio', 'lean']) {
  for (const transport of ['websocket', 'polling']) {
    test(`${engine} ${transport}: emitters send chat lines with acks; the server relays them to the room and receivers measure them`, async (t) => {
      const server = await startAppServer(t)
      const swarm = startTestSwarm(t, {
        url: server.url,
        engine,
        transport,
        clients: 6,
        rooms: 2,
        join: 'join {"room":"{{room}}"}',
        emit: 'chat {"room":"{{room}}","text":"line {{seq}} from {{i}}"}',
        emitRate: '20/s',
        emitters: '50%',
        emitAck: true,
        event: 'none'
      })
      // Lines sent while a room member's join ack is still in flight are not expected of it: the
      // lines checked one by one are those first received after every client read its join's ack.
      await server.joinsSettled(6)
      const settledAt = Date.now()
      const heard = server.counts.chats
      await waitFor(() => server.counts.chats >= Math.max(30, heard + 20), {
        timeoutMs: 15000,
        message: () => `20 more chat lines relayed (have ${server.counts.chats})`
      })
      const result = await swarm.stop()
      const emits = /** @type {NonNullable<NonNullable<typeof result.scenario>['emits']>} */ (result.scenario?.emits)
      assert.equal(emits.emitters, 3, '50% of 6 clients, spread over the indices')
      assert.ok(emits.sent >= 30, `sent ${emits.sent}`)
      assert.equal(emits.acked + emits.timedOut + emits.failed, emits.sent, `every emit is accounted for: ${JSON.stringify(emits)}`)
      assert.ok(emits.acked >= 25, `acked ${emits.acked}`)
      assert.equal(emits.timedOut, 0)
      assert.equal(emits.ackTime?.count, emits.acked, 'each ack timed')
      // An ack counted as such came within the ack timeout (10 s by default); how fast is the bench's business.
      assert.ok((emits.ackTime?.max ?? Infinity) <= 10000, `ack max ${emits.ackTime?.max} ms`)
      const lines = result.messages.filter((m) => m.event === 'chat')
      assert.ok(lines.length >= 25, `relayed lines measured: ${lines.length}`)
      // The swarm's stop waits for the copies in flight. (A filter on lines older than 1.5 s at
      // the stop used to match none, and hid a wrong count below.)
      const settled = lines.filter((m) => m.firstAt > settledAt)
      assert.ok(settled.length >= 15, `lines after every join: ${settled.length} of ${lines.length}`)
      for (const m of settled) {
        assert.match(m.id, /^e[0-5]\.\d+$/)
        assert.equal(m.expected, 2, `${m.id}: the room's other two clients expect it (3 per room, the sender not)`)
        assert.deepEqual([m.missing, m.misdelivered, m.duplicates], [0, 0, 0], m.id)
        assert.equal(m.received, 2, `${m.id}: the server sends it back to its sender too, which is not counted`)
        assert.equal(m.absolute?.count, m.received, `${m.id}: absolute latency from the emitter's sentAt, for each counted copy`)
      }
    })
  }

  test(`${engine}: a line's sentAt is stamped on the run's reference clock: a simulator 5 s behind it times its lines as a broadcast, in ms`, async (t) => {
    // The collector measured this process's clock 5 s behind the reference (the broadcasts'
    // sender's clock, which every receiver reads a sentAt on). A line stamped on the local clock
    // read 5,000 ms late at every receiver, its own process's included.
    const OFFSET_MS = 5000
    const server = await startAppServer(t)
    const startedAt = Date.now()
    const swarm = startTestSwarm(t, { url: server.url, engine, clients: 3, emit: 'chat {"text":"hi"}', emitRate: '10/s', emitTiming: 'fixed', event: 'none' },
      { clock: () => ({ offsetMs: OFFSET_MS, uncertaintyMs: 0.5, reference: 'redis' }) })
    // Measured, not only heard: a line the server has heard may not have come back before the stop.
    const measured = () => swarm.closed.filter((m) => m.event === 'chat' && m.received > 0).length
    await waitFor(() => measured() >= 10, { timeoutMs: 15000, message: () => `10 lines measured (have ${measured()}, heard ${server.counts.chats})` })
    const result = await swarm.stop()
    const lines = result.messages.filter((m) => m.event === 'chat' && m.received > 0)
    assert.ok(lines.length >= 10, `lines measured: ${lines.length}`)
    for (const m of lines) {
      const sentAt = /** @type {number} */ (m.sentAt)
      assert.ok(
        sentAt >= startedAt + OFFSET_MS && sentAt <= Date.now() + OFFSET_MS,
        `${m.id}: sentAt ${sentAt} is on the reference clock, ${OFFSET_MS} ms ahead of this one (run from ${startedAt})`
      )
      assert.equal(m.absolute?.count, m.received, m.id)
      assert.ok((m.absolute?.max ?? Infinity) < 2000, `${m.id}: absolute latency max ${m.absolute?.max} ms, not the ${OFFSET_MS} ms offset`)
      assert.equal(m.missing, 0, m.id)
    }
  })

  test(`${engine}: the run ends after the lines in flight: their acks and relayed copies are counted, not failed or missing`, async (t) => {
    // Each line is relayed and acked 300 ms after the server hears it: at any time, lines are in flight.
    const server = await startAppServer(t, { relayDelayMs: 300 })
    const swarm = startTestSwarm(t, {
      url: server.url,
      engine,
      clients: 3,
      emit: 'chat {"text":"hi"}',
      emitRate: '20/s',
      emitTiming: 'fixed',
      emitAck: true,
      event: 'none'
    })
    await waitFor(() => server.counts.chats >= 20, { timeoutMs: 15000, message: () => `20 lines heard (have ${server.counts.chats})` })
    const result = await swarm.stop()
    const emits = result.scenario?.emits
    assert.ok(emits && emits.sent >= 20, JSON.stringify(emits))
    assert.deepEqual([emits.acked, emits.timedOut, emits.failed], [emits.sent, 0, 0], 'every line in flight at the end was acked')
    const lines = result.messages.filter((m) => m.event === 'chat')
    assert.equal(lines.length, emits.sent, 'every line measured')
    // The two others get each line (the sender's copy back is not counted); a line sent before
    // they had connected is not owed to them (a message is expected by the clients connected when
    // it was sent), though the server's relay 300 ms later reaches them: received, never missing.
    for (const m of lines) assert.deepEqual([m.received, m.missing], [2, 0], `${m.id}: the two others`)
    assert.ok(lines.every((m) => m.expected <= 2), JSON.stringify(lines.map((m) => m.expected)))
    assert.ok(
      lines.filter((m) => m.expected === 2).length >= lines.length / 2,
      `most lines sent with all three connected: ${JSON.stringify(lines.map((m) => m.expected))}`
    )
  })

  test(`${engine}: a server that never acks yields timeouts, not a hang`, { timeout: 60000 }, async (t) => {
    const server = await startAppServer(t, { relay: false })
    const stop = new AbortController()
    t.after(() => stop.abort())
    let timedOut = 0
    const options = {
      url: server.url, engine, clients: 2, ramp: 0, duration: 30, emit: 'chat {"text":"hi"}', emitRate: '10/s', emitAck: true, ackTimeout: '200ms'
    }
    const run = runSwarm(options, {
      signal: stop.signal,
      onSample: ({ figures }) => { timedOut += figures?.emits.timedOut ?? 0 }
    })
    // The swarm's own count of emits whose 200 ms passed without an ack (told once a second).
    await waitFor(() => timedOut > 0, { timeoutMs: 15000, message: 'an emit timed out' })
    stop.abort()
    // Pending acks are waited for at most 2 s when a swarm stops: the swarm ends by itself (the test's timeout bounds it).
    const result = await run
    const emits = result.scenario?.emits
    assert.ok(emits && emits.timedOut >= timedOut, `timeouts counted: ${JSON.stringify(emits)}, ${timedOut} told while running`)
    assert.equal(emits.acked, 0)
    assert.equal(emits.ackTime?.count, 0)
    assert.equal(emits.acked + emits.timedOut + emits.failed, emits.sent)
  })
}

test('joins: a refused join is a failure with its reason; a server that does not ack joins takes a client in from the emit', async (t) => {
  const server = await startAppServer(t, { ackJoins: false })
  const swarm = startTestSwarm(t, { url: server.url, engine: 'lean', clients: 3, room: 'full', join: 'join {"room":"{{room}}"}' })
  await waitFor(() => server.counts.joins === 3, { timeoutMs: 10000 })
  // The server heard the joins; a message sent after its refusals is a fence: a client that has
  // it has its refusal too (one socket, in order), so none is still in flight at the stop.
  server.io.emit('broadcast', { id: 'fence', sentAt: Date.now() })
  await waitFor(() => swarm.closed.some((m) => m.id === 'fence'), { timeoutMs: 10000 })
  const refused = await swarm.stop()
  assert.deepEqual([refused.scenario?.joins?.failed, refused.scenario?.joins?.acked], [3, 0])
  assert.deepEqual(refused.scenario?.joins?.reasons, { 'no such room': 3 })

  // A client starts emitting once its join is settled (acked, or its ack timed out): a chat line from each client says
  // its join's 300 ms passed and it counts itself in its room.
  /** @type {Set<string>} */
  const chatted = new Set()
  server.io.on('connection', (socket) => socket.on('chat', () => chatted.add(socket.id)))
  const silent = startTestSwarm(t, {
    url: server.url, engine: 'lean', clients: 2, rooms: 1, join: 'join {"room":"{{room}}"}', ackTimeout: '300ms', emit: 'chat {"text":"hi"}', emitRate: '20/s'
  })
  await waitFor(() => server.roomSize('room-0') === 2, { timeoutMs: 10000 })
  await waitFor(() => chatted.size === 2, { timeoutMs: 10000, message: () => `a chat line from each client (have ${chatted.size})` })
  server.io.to('room-0').emit('broadcast', { id: 'm', sentAt: Date.now(), room: 'room-0' })
  await waitFor(() => silent.closed.some((m) => m.id === 'm'), { timeoutMs: 10000 })
  const result = await silent.stop()
  assert.deepEqual([result.scenario?.joins?.unacked, result.scenario?.joins?.acked], [2, 0])
  const m = result.messages.find((x) => x.id === 'm')
  assert.deepEqual([m?.expected, m?.received, m?.missing], [2, 2, 0])
})

test('compileStamp: a copy with the id and send time set, the argument left as it was, on every path', () => {
  const first = { text: 'hi', id: 'kept in place', meta: { room: 'r' } }
  const copies = [
    compileStamp('id', 'sentAt', first)(first, 'e1.2', 3.5), // a constant template's argument
    compileStamp('id', 'sentAt')(first, 'e1.2', 3.5), // a rendered one
    compileStamp('id', 'sentAt')({ ...first }, 'e1.2', 3.5)
  ]
  for (const stamped of copies) assert.equal(JSON.stringify(stamped), '{"text":"hi","id":"e1.2","meta":{"room":"r"},"sentAt":3.5}')
  const nested = compileStamp('meta.id', null)(first, 'e1.2', 3.5)
  assert.deepEqual(nested, { text: 'hi', id: 'kept in place', meta: { room: 'r', id: 'e1.2' } })
  assert.deepEqual(compileStamp(null, 'sentAt')(first, 'e1.2', 3.5), { ...first, sentAt: 3.5 })
  assert.deepEqual(first, { text: 'hi', id: 'kept in place', meta: { room: 'r' } }, 'the argument is not changed')
})

test('compileEncodedStamp: a constant template\'s JSON, stamped, is what JSON.stringify writes of the stamped arguments', () => {
  const templates = [
    [{ text: 'hi' }],
    [{ sentAt: null, text: 'é\u2028"\\', id: null }], // the time's field before the id's
    [{ text: 'hi', meta: { id: 'inner', sentAt: 1 } }, 2, 'two', null, [1, { b: 2 }]],
    [{}],
    [{ id: '\u0001ioswarm:id', sentAt: 'x' }]
  ]
  const ids = [ownId(0, 1), ownId(16666, 4294967295), ownId(123456789, 7)]
  // Whole microseconds, as the stamp has them: today's, on a whole or tenth of a millisecond, the
  // edges of the fraction table, and what it leaves to String() (negative, past it, not finite).
  const times = [1733433600123456, 1733433600123000, 1733433600123450, 1733433600123001, 0, 1, 500, 999, 1000,
    2 ** 42 * 1000 - 1, 2 ** 42 * 1000, 2 ** 53 - 1, -1500, -1, Number.NaN, Infinity]
  for (let k = 0; k < 2000; k++) times.push(Math.round(Math.random() * 2 ** 42 * 1000))
  for (const args of templates) {
    const encode = compileEncodedStamp('id', 'sentAt', args)
    assert.ok(encode !== null, JSON.stringify(args))
    const stamp = compileStamp('id', 'sentAt', /** @type {Record<string, unknown>} */ (args[0]))
    for (const id of ids) {
      for (const us of times) {
        const stamped = [stamp(/** @type {Record<string, unknown>} */ (args[0]), id, us / 1000), ...args.slice(1)]
        assert.equal(encode(id, us), JSON.stringify(stamped).slice(1, -1), `${JSON.stringify(args)} ${id} ${us} µs`)
      }
    }
  }
  // Where it does not apply, the engine encodes the arguments itself.
  assert.equal(compileEncodedStamp('msgId', 'sentAt', [{ text: 'hi' }]), null, 'other fields')
  assert.equal(compileEncodedStamp('id', null, [{ text: 'hi' }]), null, 'no time stamped')
  assert.equal(compileEncodedStamp('id', 'sentAt', null), null, 'placeholders')
  assert.equal(compileEncodedStamp('id', 'sentAt', ['text']), null, 'no object first')
  assert.equal(compileEncodedStamp('id', 'sentAt', [[1]]), null)
  assert.equal(compileEncodedStamp('id', 'sentAt', [{ text: '\u0001ioswarm:id\u0001' }]), null, 'a mark in the template itself')
  assert.equal(compileEncodedStamp('id', 'sentAt', [{ n: 1n }]), null, 'what JSON cannot write')
})
