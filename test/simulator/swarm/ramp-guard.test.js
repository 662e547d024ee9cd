/**
 * --ramp-guard against a real socket.io server: the ramp waits while the server refuses
 * handshakes (and opens the rest once it answers again), or while the swarm's own event loop
 * is blocked; without the flag the same ramp goes on. Shapes and counts, no timings.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { SIO_RECONNECTS_UNCAPPED, runSwarm } from '../../../simulator/swarm/swarm.js'
import { normalizeSimOptions } from '../../../simulator/sim-options.js'
import { formatProgress, formatSimSummary } from '../../../simulator/reporting/summary-text.js'
import { holdNotices } from '../../../simulator/swarm/ramp-guard.js'
import { mergeSimMeasures } from '../../../results/merge/measures.js'
import { formatRampGuard } from '../../../results/index.js'
import { startIoServer } from '../../helpers/io-server.js'
import { waitFor } from '../../helpers/wait.js'

const CLIENTS = 60
/** 10 clients a second: the most a client started just before a hold may add, as the server sees it. */
const RAMP = '6s'
const ALLOWED_AFTER_HOLD = 10

/**
 * A socket.io server that refuses handshakes while `refusing` is set, and the clients (by their `u` query) it has seen.
 * @param {import('node:test').TestContext} t
 */
async function refusingServer (t) {
  const state = { refusing: false, refused: 0, seen: new Set() }
  const server = await startIoServer(t, {
    allowRequest: (req, callback) => {
      const u = new URL(req.url ?? '/', 'http://x').searchParams.get('u')
      // The simulator's first look at the server carries no client's query: it is let through.
      if (u !== null) state.seen.add(u)
      const refuse = u !== null && state.refusing
      if (refuse) state.refused++
      callback(refuse ? 'busy' : null, !refuse)
    }
  })
  return { ...server, state }
}

/**
 * A lean swarm over polling against `url`, each client named by its index.
 * @param {import('node:test').TestContext} t
 * @param {string} url
 * @param {Record<string, unknown>} more
 */
function swarm (t, url, more = {}) {
  const controller = new AbortController()
  t.after(() => controller.abort())
  /** @type {import('../../../simulator/swarm/swarm.js').Progress[]} */
  const progress = []
  const result = runSwarm({ url, clients: CLIENTS, engine: 'lean', transport: 'polling', ramp: RAMP, duration: 300, query: 'u={{i}}', ...more }, {
    signal: controller.signal,
    onProgress: (p) => progress.push(p)
  })
  return { progress, stop: () => { controller.abort(); return result } }
}

/**
 * The first progress that says the ramp is held.
 * @param {import('../../../simulator/swarm/swarm.js').Progress[]} progress
 */
async function heldProgress (progress) {
  await waitFor(() => progress.some((p) => p.rampHeld), { timeoutMs: 30000, message: 'a progress saying the ramp is held' })
  return /** @type {import('../../../simulator/swarm/swarm.js').Progress} */ (progress.find((p) => p.rampHeld))
}

test('--ramp-guard: the ramp waits while the server refuses handshakes, then opens the rest once it answers', async (t) => {
  const { io, url, state } = await refusingServer(t)
  const s = swarm(t, url, { rampGuard: 'failures=20%' })
  await waitFor(() => io.of('/').sockets.size >= 10, { timeoutMs: 30000, message: 'the first 10 clients' })
  state.refusing = true
  const held = await heldProgress(s.progress)
  assert.match(String(held.rampHeld), /^connect failures /)
  assert.match(formatProgress(held), /ramp held: connect failures /)
  const seenAtHold = state.seen.size
  const refusedAtHold = state.refused
  // The held clients keep trying (their backoff) and keep being refused: time passes, counted by the server.
  await waitFor(() => state.refused >= refusedAtHold + 20, { timeoutMs: 60000, message: () => `20 more refusals (have ${state.refused - refusedAtHold})` })
  assert.ok(state.seen.size <= seenAtHold + ALLOWED_AFTER_HOLD, `no new client while held: ${seenAtHold} seen at the hold, ${state.seen.size} now`)
  assert.ok(state.seen.size < CLIENTS, 'the ramp had not ended')
  state.refusing = false
  const everyone = () => `every client once answered (${s.progress.at(-1)?.connected})`
  await waitFor(() => s.progress.at(-1)?.connected === CLIENTS, { timeoutMs: 120000, message: everyone })
  const result = await s.stop()
  const guard = result.rampGuard
  assert.ok(guard, 'the result records the guard')
  assert.ok(guard.holds >= 1, `holds: ${guard.holds}`)
  assert.ok(guard.heldMs > 0 && guard.longestHoldMs > 0 && guard.longestHoldMs <= guard.heldMs, JSON.stringify(guard))
  const bounds = [guard.loopDelayMs, guard.failuresPct, guard.connectMs, guard.reconnectsPerS]
  assert.deepEqual(bounds, [200, 20, 3000, 50], 'its bounds: the defaults but the one set')
  assert.equal(result.clients.everConnected, CLIENTS)
  const line = /ramp guard \(loop delay over 200 ms, connect time p99 over 3 s or connect failures over 20%\): held \d+ times?, \S+ in all/
  assert.match(formatSimSummary(result), line)
})

test('--ramp-guard: clients refused for good (they never try again) hold the ramp for a while, not forever', async (t) => {
  const { io, url } = await startIoServer(t)
  const seen = new Set()
  // The app's middleware refuses the first 3 clients: socket.io-client stays away after a refused CONNECT.
  io.use((socket, next) => {
    seen.add(socket.handshake.query.u)
    next(Number(socket.handshake.query.u) < 3 ? new Error('not you') : undefined)
  })
  const s = swarm(t, url, { clients: 40, ramp: '20s', rampGuard: '' })
  await heldProgress(s.progress)
  assert.ok(seen.size < 40, `held before the ramp's end (${seen.size} clients seen)`)
  const others = () => `the other 37 clients (${s.progress.at(-1)?.connected})`
  await waitFor(() => s.progress.at(-1)?.connected === 37, { timeoutMs: 120000, message: others })
  const result = await s.stop()
  assert.ok(result.rampGuard && result.rampGuard.holds >= 1, JSON.stringify(result.rampGuard))
  assert.equal(result.clients.errors['not you'], 3)
})

test('without --ramp-guard the same ramp goes on while the server refuses', async (t) => {
  const { io, url, state } = await refusingServer(t)
  const s = swarm(t, url, {})
  await waitFor(() => io.of('/').sockets.size >= 10, { timeoutMs: 30000, message: 'the first 10 clients' })
  state.refusing = true
  const seenThen = state.seen.size
  const more = seenThen + 2 * ALLOWED_AFTER_HOLD
  await waitFor(() => state.seen.size >= more, { timeoutMs: 60000, message: () => `new clients while refused (${state.seen.size})` })
  const result = await s.stop()
  assert.equal(result.rampGuard, undefined)
  assert.ok(s.progress.every((p) => p.rampHeld === undefined), 'no progress speaks of a hold')
})

test('--ramp-guard: the ramp waits while the swarm\'s event loop is blocked, and ends once it is not', async (t) => {
  const { io, url } = await startIoServer(t)
  const s = swarm(t, url, { rampGuard: 'loop=50ms' })
  await waitFor(() => io.of('/').sockets.size >= 5, { timeoutMs: 30000, message: 'the first 5 clients' })
  // The test's own process is the simulator's: a busy loop 150 ms in every 200 ms delays its event loop.
  const busy = setInterval(() => {
    const until = performance.now() + 150
    while (performance.now() < until);
  }, 50)
  t.after(() => clearInterval(busy))
  const held = await heldProgress(s.progress)
  clearInterval(busy)
  assert.match(String(held.rampHeld), /^loop delay \d+(\.\d)? ms$/)
  await waitFor(() => s.progress.at(-1)?.connected === CLIENTS, { timeoutMs: 60000, message: () => `every client (${s.progress.at(-1)?.connected})` })
  const result = await s.stop()
  const guard = result.rampGuard
  assert.ok(guard && guard.holds >= 1 && guard.heldMs > 0, JSON.stringify(guard))
  assert.equal(guard.loopDelayMs, 50)
  assert.equal(result.clients.everConnected, CLIENTS)
})

test('--ramp-guard connect=: the ramp waits while the server answers handshakes slowly, then opens the rest', async (t) => {
  const state = { slowMs: 0, seen: new Set() }
  // A server falling behind: it still accepts every handshake, but late (its queue), never failing one.
  const { io, url } = await startIoServer(t, {
    allowRequest: (req, callback) => {
      const u = new URL(req.url ?? '/', 'http://x').searchParams.get('u')
      if (u !== null) state.seen.add(u)
      if (state.slowMs === 0 || u === null) return callback(null, true)
      setTimeout(() => callback(null, true), state.slowMs)
    }
  })
  const s = swarm(t, url, { rampGuard: 'connect=300ms,failures=99%' })
  await waitFor(() => io.of('/').sockets.size >= 10, { timeoutMs: 30000, message: 'the first 10 clients' })
  state.slowMs = 700
  const held = await heldProgress(s.progress)
  assert.match(String(held.rampHeld), /^slow connects: \d+ of \d+ over 300 ms in 3 s(, \d+ waiting longer)?$/)
  const seenAtHold = state.seen.size
  await new Promise((resolve) => setTimeout(resolve, 2500))
  assert.ok(state.seen.size <= seenAtHold + ALLOWED_AFTER_HOLD, `no new client while held: ${seenAtHold} seen at the hold, ${state.seen.size} now`)
  assert.ok(state.seen.size < CLIENTS, 'the ramp had not ended')
  state.slowMs = 0
  await waitFor(() => s.progress.at(-1)?.connected === CLIENTS, { timeoutMs: 60000, message: () => `every client (${s.progress.at(-1)?.connected})` })
  const result = await s.stop()
  const guard = result.rampGuard
  assert.ok(guard && guard.holds >= 1 && guard.heldMs > 0, JSON.stringify(guard))
  assert.equal(guard.connectMs, 300)
  assert.deepEqual(result.clients.errors, {}, 'slow, never failed')
})

test('--ramp-guard connect=: attempts left unanswered past the bound hold the ramp before any times out', async (t) => {
  /** @type {(() => void)[]} handshakes held while the server stalls (its accept queue full) */
  const held = []
  const state = { stalling: false }
  const { io, url } = await startIoServer(t, {
    allowRequest: (req, callback) => {
      const u = new URL(req.url ?? '/', 'http://x').searchParams.get('u')
      if (!state.stalling || u === null) return callback(null, true)
      held.push(() => callback(null, true))
    }
  })
  // failures=99%: no failure can hold it; within the 20 s connect timeout none fails anyway.
  const s = swarm(t, url, { rampGuard: 'connect=500ms,failures=99%' })
  await waitFor(() => io.of('/').sockets.size >= 10, { timeoutMs: 30000, message: 'the first 10 clients' })
  state.stalling = true
  const stalledAt = performance.now()
  const progress = await heldProgress(s.progress)
  assert.match(String(progress.rampHeld), /^slow connects: \d+ of \d+ over 500 ms in 3 s, \d+ waiting longer$/)
  assert.ok(performance.now() - stalledAt < 15000, 'held while the attempts still wait, before the connect timeout')
  state.stalling = false
  for (const answer of held.splice(0)) answer()
  await waitFor(() => s.progress.at(-1)?.connected === CLIENTS, { timeoutMs: 60000, message: () => `every client (${s.progress.at(-1)?.connected})` })
  const result = await s.stop()
  assert.deepEqual(result.clients.errors, {}, 'held, never failed')
})

test('--ramp-guard: bad bounds are refused, naming the flag and what is allowed', () => {
  const url = 'http://127.0.0.1:1'
  const refused = (/** @type {unknown} */ rampGuard, /** @type {RegExp} */ why) =>
    assert.throws(() => normalizeSimOptions({ url, rampGuard }), (/** @type {any} */ e) => /^--ramp-guard/.test(e.flag) && why.test(e.message))
  refused('speed=3', /key=value pairs among loop, failures, connect, reconnects/)
  refused('loop', /key=value pairs/)
  refused('loop=5ms', /loop= must be at least 10ms/)
  refused('loop=fast', /loop= must be a duration/)
  refused('failures=100%', /failures= must be a share from 0% to 99%/)
  refused('connect=50ms', /connect= must be at least 100ms \(a connect's time\), or off/)
  refused('connect=soon', /connect= must be a duration/)
  refused('reconnects=0/s', /reconnects= must be reconnect attempts a second per process from 1/)
  assert.deepEqual(normalizeSimOptions({ url, rampGuard: '' }).rampGuard, { loopDelayMs: 200, failuresPct: 5, connectMs: 3000, reconnectsPerS: 50 })
  const some = normalizeSimOptions({ url, rampGuard: 'reconnects=20/s, loop=1s' }).rampGuard
  assert.deepEqual(some, { loopDelayMs: 1000, failuresPct: 5, connectMs: 3000, reconnectsPerS: 20 })
  assert.equal(normalizeSimOptions({ url, rampGuard: 'connect=off' }).rampGuard?.connectMs, 0)
  assert.equal(normalizeSimOptions({ url, rampGuard: 'connect=750' }).rampGuard?.connectMs, 750, 'ms when no unit is given')
  // Bounds handed over already parsed (a parent process's normalised options) stay as they were, `off` included.
  const parsed = /** @type {any} */ (normalizeSimOptions({ url, rampGuard: 'connect=off,loop=1s' }).rampGuard)
  assert.deepEqual(normalizeSimOptions({ url, rampGuard: parsed }).rampGuard, parsed)
  assert.equal(normalizeSimOptions({ url }).rampGuard, null)
})

test('--ramp-guard over several processes: holds, time held and deferred reconnects summed, the longest hold the longest', () => {
  const guard = (/** @type {number} */ holds, /** @type {number} */ heldMs, /** @type {number} */ deferredReconnects) =>
    ({ loopDelayMs: 200, failuresPct: 5, connectMs: 3000, reconnectsPerS: 50, holds, heldMs, longestHoldMs: heldMs, deferredReconnects })
  const measures = /** @type {import('../../../lib/schema/result-schema.js').SimMeasures[]} */ (/** @type {unknown} */ ([
    { rampGuard: guard(1, 1000, 3) }, { rampGuard: guard(2, 4000, 0) }, {}
  ]))
  assert.deepEqual(mergeSimMeasures(measures).rampGuard, { ...guard(3, 5000, 3), longestHoldMs: 4000 })
  assert.equal(mergeSimMeasures(measures.slice(2)).rampGuard, undefined, 'no guard, no record')
  const never = 'ramp guard (loop delay over 200 ms, connect time p99 over 3 s or connect failures over 5%): never held; reconnects deferred over 50/s: 0'
  assert.deepEqual(formatRampGuard(guard(0, 0, 0)), [never])
  const unwatched = 'ramp guard (loop delay over 200 ms or connect failures over 5%): never held; reconnects deferred over 50/s: 0'
  assert.deepEqual(formatRampGuard({ ...guard(0, 0, 0), connectMs: 0 }), [unwatched], 'connect=off, or a result from before the bound')
})

test('--ramp-guard reconnects=5/s: a swarm refused at every handshake reconnects at most 5 a second, the rest deferred', async (t) => {
  const { url, state } = await refusingServer(t)
  state.refusing = true
  const startedAt = performance.now()
  const s = swarm(t, url, { clients: 40, ramp: 0, rampGuard: 'reconnects=5/s' })
  // Every client is refused at once, then tries again after its backoff (1 … 5 s): about 13 a second uncapped.
  await waitFor(() => state.refused >= 40 + 30, { timeoutMs: 60000, message: () => `30 reconnects refused (have ${state.refused - 40})` })
  const result = await s.stop()
  const elapsedS = (performance.now() - startedAt) / 1000
  const guard = result.rampGuard
  assert.ok(guard && guard.deferredReconnects > 0, JSON.stringify(guard))
  const reconnects = result.clients.attempts - 40
  // The bucket holds one second's worth and fills at 5 a second: never more, however slow or fast the machine.
  assert.ok(reconnects <= 5 + 5 * elapsedS + 1, `${reconnects} reconnect attempts in ${elapsedS.toFixed(1)} s`)
  assert.equal(result.clients.everConnected, 0)
})

test('--ramp-guard: while the ramp is held, reconnects go at a tenth of their cap', async (t) => {
  const { state, url } = await refusingServer(t)
  state.refusing = true
  // 60 clients in 3 s, every one refused: held within a second or two, with dozens started and retrying.
  const s = swarm(t, url, { ramp: '3s', rampGuard: 'reconnects=20/s' })
  await heldProgress(s.progress)
  const refusedAtHold = state.refused
  const heldAt = performance.now()
  await new Promise((resolve) => setTimeout(resolve, 5000))
  const retries = state.refused - refusedAtHold
  const elapsedS = (performance.now() - heldAt) / 1000
  const result = await s.stop()
  assert.ok(s.progress.at(-1)?.rampHeld, 'still held at the end')
  // 2 a second while held (a tenth of 20), a bucket of one such second, and those already on their way.
  assert.ok(retries <= 2 * elapsedS + 2 + 3, `${retries} retries in ${elapsedS.toFixed(1)} s held (uncapped they come at ≈ 15 a second)`)
  assert.ok(result.rampGuard && result.rampGuard.deferredReconnects > 0, JSON.stringify(result.rampGuard))
})

test('--ramp-guard with --engine sio: the swarm says its reconnects are not capped', async (t) => {
  const { url } = await refusingServer(t)
  /** @type {string[]} */
  let warnings = []
  const controller = new AbortController()
  t.after(() => controller.abort())
  const running = runSwarm({ url, clients: 1, engine: 'sio', ramp: 0, duration: 300, rampGuard: '' }, {
    signal: controller.signal,
    onStart: ({ preflight }) => { warnings = preflight.warnings; controller.abort() }
  })
  await running
  assert.ok(warnings.includes(SIO_RECONNECTS_UNCAPPED), warnings.join('\n'))
})

test('a worker says its held ramp at most once every 10 s, and only when it was held', () => {
  const notice = holdNotices()
  /** @type {(string | null)[]} */
  const lines = []
  for (let s = 1; s <= 30; s++) {
    // Held in seconds 3 and 4 (loop delay), then 25 (failures); never from 5 to 24.
    const rampHeld = s === 3 || s === 4 ? `loop delay ${s}00 ms` : s === 25 ? 'connect failures 50% (1 of 2 in 3 s)' : null
    lines.push(notice({ elapsedMs: s * 1000, rampHeld }))
  }
  assert.deepEqual(lines.flatMap((line, k) => (line === null ? [] : [[k + 1, line]])), [
    [10, 'ramp held 2 s of the last 10 s (last: loop delay 400 ms)'],
    [30, 'ramp held 1 s of the last 10 s (last: connect failures 50% (1 of 2 in 3 s))']
  ])
})
