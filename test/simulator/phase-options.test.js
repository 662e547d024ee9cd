/**
 * --phases end to end: the real CLI against a real server on port 0, whose own count of
 * connected clients is logged at each connection and disconnect and read at the phases'
 * boundaries the simulator recorded. Also the warning of a --duration shorter than the ramp.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { expectRefusals, runCli } from '../helpers/cli.js'
import { startTestServer } from '../helpers/swarm.js'
import { mergePhases, rampCutWarning } from '../../simulator/phase-options.js'
import { runSwarm } from '../../simulator/swarm/swarm.js'

/**
 * The server's connected count over time, from its own events, and why each client left.
 * @param {Awaited<ReturnType<typeof startTestServer>>} server
 */
function logConnections (server) {
  /** @type {{ t: number, n: number }[]} */
  const log = []
  /** @type {{ t: number, reason: string }[]} */
  const left = []
  let n = 0
  server.io.of('/').on('connection', (socket) => {
    log.push({ t: Date.now(), n: ++n })
    socket.on('disconnect', (reason) => {
      log.push({ t: Date.now(), n: --n })
      left.push({ t: Date.now(), reason })
    })
  })
  return {
    log,
    left,
    /**
     * The count 50 ms before a step's end: the step that follows closes its first client at
     * once, and the server can log that close within the millisecond the simulator ended the
     * step (its wall clock rounded, the server's truncated).
     * @param {number} t wall-clock ms
     */
    before: (t) => log.filter((e) => e.t <= t - 50).at(-1)?.n ?? 0,
    most: () => Math.max(0, ...log.map((e) => e.n))
  }
}

/** @param {string} stdout */
const resultOf = (stdout) => /** @type {import('../../lib/schema/result-schema.js').SimResult} */ (JSON.parse(stdout))

test('the swarm follows --phases: the server\'s count is each hold\'s target, ramp-downs close gracefully and are counted apart from drops', async (t) => {
  const server = await startTestServer(t)
  const seen = logConnections(server)
  const { code, stdout, stderr } = await runCli(t, ['bin/ioswarm.js', 'simulate', '--url', server.url, '--json',
    '--phases', 'ramp 2s to 6, hold 2s, ramp 1s to 2, hold 1s', '--window', '1s'])
  assert.equal(code, 0, stderr)
  // Each window's line, printed as it closes, says its step, as a run's lines do.
  const live = stderr.split('\n').filter((line) => /^ioswarm simulate \S+: window /.test(line))
  assert.ok(live.length >= 3, stderr)
  for (const line of live) assert.match(line, /: window \d\d:\d\d:\d\d–\d\d:\d\d:\d\d, phase [1-4] \((ramp|hold)\): /)
  assert.match(stderr, /6 clients → .*; phases ramp 2000ms to 6, hold 2000ms, ramp 1000ms to 2, hold 1000ms\n/)
  assert.match(
    stderr,
    /phases: ramp 0→6 over \d+ms, hold 6 for \d+ms, ramp 6→2 over \d+ms \(4 closed\), hold 2 for \d+ms; ramped down: 4 clients closed on purpose/
  )
  const result = resultOf(stdout)
  const steps = /** @type {import('../../lib/schema/result-schema.js').PhaseStep[]} */ (result.phases)
  assert.deepEqual(steps.map((s) => [s.kind, s.from, s.to, s.closed]), [['ramp', 0, 6, 0], ['hold', 6, 6, 0], ['ramp', 6, 2, 4], ['hold', 2, 2, 0]])
  for (let n = 1; n < steps.length; n++) assert.equal(steps[n].startMs, steps[n - 1].endMs, 'steps follow each other')
  // Each step starts at the total of those before it (timers: a little late, never early, and
  // a late one does not delay the next) and the run lasts the phases' total, 6 s.
  for (const [n, atMs] of [0, 2000, 4000, 5000, 6000].entries()) {
    const sinceMs = (n < steps.length ? steps[n].startMs : steps[n - 1].endMs) - steps[0].startMs
    assert.ok(sinceMs >= atMs - 5 && sinceMs < atMs + 1000, `step ${n + 1} at ${sinceMs} ms`)
  }
  // The server's own count, at the end of each hold, is the hold's target; never more than the
  // largest.
  assert.equal(seen.before(steps[1].endMs), 6, `at the end of hold 6: ${JSON.stringify(seen.log)} steps ${JSON.stringify(steps)}`)
  assert.equal(seen.before(steps[3].endMs), 2, `at the end of hold 2: ${JSON.stringify(seen.log)} steps ${JSON.stringify(steps)}`)
  assert.equal(seen.most(), 6)
  // The ramp-down is no drop: a Socket.IO disconnect during its step, counted apart.
  const rampedDown = seen.left.filter((l) => l.t >= steps[2].startMs - 100 && l.t <= steps[2].endMs + 100)
  assert.deepEqual(rampedDown.map((l) => l.reason), Array(4).fill('client namespace disconnect'))
  // (The inspection's look at the server, before the first step, is no client of the swarm.)
  const swarmLeft = seen.left.filter((l) => l.t >= steps[0].startMs)
  assert.equal(swarmLeft.length, 6, `the other two leave at the end of the run: ${JSON.stringify(seen.left)}`)
  assert.ok(swarmLeft.every((l) => l.reason === 'client namespace disconnect'), JSON.stringify(seen.left))
  assert.equal(result.rampedDown, 4)
  assert.deepEqual(result.clients.disconnects, { 'io client disconnect': 4 })
  assert.deepEqual(result.clients.storms?.list, [], 'no storm: nothing dropped')
  assert.equal(result.clients.everConnected, 6)
  assert.equal(result.clients.target, 2)
  assert.equal(result.clients.connected, 2)
  assert.equal(result.clients.failed, 0)
})

test('--phases with --workers: each ramp target is split over the workers and the merged steps sum them', async (t) => {
  const server = await startTestServer(t)
  const seen = logConnections(server)
  const { code, stdout, stderr } = await runCli(t, ['bin/ioswarm.js', 'simulate', '--url', server.url, '--json', '--workers', '2',
    '--phases', 'ramp 1s to 5, hold 1s, ramp 0s to 0, hold 1s'])
  assert.equal(code, 0, stderr)
  const result = resultOf(stdout)
  const steps = /** @type {import('../../lib/schema/result-schema.js').PhaseStep[]} */ (result.phases)
  assert.deepEqual(steps.map((s) => [s.kind, s.from, s.to, s.closed]), [['ramp', 0, 5, 0], ['hold', 5, 5, 0], ['ramp', 5, 0, 5], ['hold', 0, 0, 0]])
  assert.equal(result.rampedDown, 5)
  // Ramped down to 0, the summary says the peak and the profile, not "0 clients, connected 0/0".
  assert.match(stderr, /: phases to 5 clients, 5\/5 ever connected, 5 closed by the ramp-downs \(/)
  assert.match(stderr, /clients: phases to 5 clients, 5\/5 ever connected, 5 closed by the ramp-downs, connected 0 at the end/)
  assert.doesNotMatch(stderr, /: 0 clients/)
  assert.equal(result.clients.everConnected, 5)
  // The workers start a little apart, so their steps do too: the server's count from the peak on
  // is the profile's, 5 → 0.
  assert.equal(seen.most(), 5)
  const peak = seen.log.findIndex((e) => e.n === 5)
  assert.deepEqual(seen.log.slice(peak + 1).map((e) => e.n), [4, 3, 2, 1, 0], JSON.stringify(seen.log))
})

test('with --session-lifetime, a client a ramp-down closed gets no new session in its place', async (t) => {
  const server = await startTestServer(t)
  const seen = logConnections(server)
  // Clients 1 and 2 are closed at 1 s, before their first lifetime (1.5 s) ends; client 0 churns.
  const result = await runSwarm({ url: server.url, engine: 'lean', phases: 'ramp 0s to 3, hold 1s, ramp 0s to 1, hold 2s', sessionLifetime: '1.5s' })
  const steps = /** @type {import('../../lib/schema/result-schema.js').PhaseStep[]} */ (result.phases)
  assert.equal(result.rampedDown, 2)
  assert.equal(seen.before(steps[1].endMs), 3, JSON.stringify(seen.log))
  const after = seen.log.filter((e) => e.t > steps[2].startMs + 100)
  assert.ok(after.every((e) => e.n <= 1), `at most client 0 after the ramp-down: ${JSON.stringify(seen.log)}`)
  assert.ok(/** @type {number} */ (result.churn?.sessionsClosed) >= 1, 'client 0 churned')
})

test('a step `at RATE` sets --emit\'s rate while it lasts; acks awaited when a ramp-down or the end closes the client count as closed', async (t) => {
  const server = await startTestServer(t)
  /** @type {number[]} */
  const lines = []
  // When each line was sent, by the simulator's own stamp (its arrival may lag under load).
  // 'talk': an event the reference server does not relay nor ack. Only client 0's lines are acked: clients 2 and 3 (closed by the ramp-down) and 1 (closed by the end) await theirs.
  server.io.of('/').on('connection', (socket) => socket.on('talk', (/** @type {{ sentAt: number, text: string }} */ line, /** @type {unknown} */ ack) => {
    lines.push(line.sentAt)
    if (line.text === 'hi 0' && typeof ack === 'function') ack('ok')
  }))
  const result = await runSwarm({
    url: server.url,
    engine: 'lean',
    phases: 'ramp 0s to 4, hold 1500ms, hold 1500ms at 20/s, ramp 0s to 2, hold 1500ms',
    emit: 'talk {"text":"hi {{i}}"}',
    emitRate: '1/10s',
    emitTiming: 'fixed',
    emitAck: true,
    ackTimeout: '30s',
    window: '1s'
  })
  const ran = /** @type {import('../../lib/schema/result-schema.js').PhaseStep[]} */ (result.phases)
  assert.deepEqual(ran.map((s) => s.emitIntervalMs), [undefined, undefined, 50, undefined, undefined])
  const emits = /** @type {NonNullable<NonNullable<typeof result.scenario>['emits']>} */ (result.scenario?.emits)
  assert.ok(emits.acked > 0 && emits.acked < emits.sent, JSON.stringify(emits))
  assert.deepEqual([emits.timedOut, emits.failed, emits.closed], [0, 0, emits.sent - emits.acked], 'closed on purpose, not failed')
  // The windows count them too, and each carries its step's label (as a run's windows do).
  const windows = result.windows ?? []
  // (Those the run's end closes are in the last window: the windows sum to the total.)
  const inWindows = windows.reduce((n, w) => n + (w.emits.closed ?? 0), 0)
  assert.equal(inWindows, emits.closed, `${inWindows} of ${emits.closed}`)
  assert.ok(windows.some((w) => (w.emits.closed ?? 0) > 0 && w.startAt < ran[3].endMs), 'some closed by the ramp-down, before the last hold')
  for (const w of windows) {
    const middle = (w.startAt + w.endAt) / 2
    const found = ran.findIndex((s) => middle < s.endMs)
    const n = found === -1 ? ran.length - 1 : found
    assert.deepEqual(/** @type {{ phase?: unknown }} */ (w).phase, { index: n + 1, kind: ran[n].kind }, `window ${w.startAt}`)
  }
  /** @param {number} from @param {number} to */
  const between = (from, to) => lines.filter((at) => at > from && at <= to).length
  // 4 clients at 20/s for the step (1.5 s, longer on a stalled host): never more than the rate allows over the step's
  // real length, and at 1/10s under one each per step, so two a client say the rate changed. (How close to 120 a quiet
  // host comes is a bench's question, not a test's.)
  const fast = between(ran[2].startMs, ran[2].endMs)
  const fastSeconds = (ran[2].endMs - ran[2].startMs) / 1000
  assert.ok(fast >= 8 && fast <= 4 * (fastSeconds * 20 + 1), `at 20/s: ${fast} lines in ${fastSeconds} s`)
  assert.ok(between(ran[0].startMs, ran[1].endMs) <= 4, `before: ${between(ran[0].startMs, ran[1].endMs)} lines`)
  assert.ok(between(ran[3].startMs, ran[4].endMs) <= 4, `after: ${between(ran[3].startMs, ran[4].endMs)} lines`)
  assert.equal(result.scenario?.emits?.sent, lines.length, 'every line sent reached the server')
})

test('bad --phases, or --phases with a flag it replaces, exits 2 naming the flags before any socket opens', async (t) => {
  const url = ['--url', 'http://127.0.0.1:1']
  /** @type {[string[], RegExp][]} */
  const cases = [
    [['--phases', 'jump 5s'], new RegExp(/--phases step 1 must be "ramp DURATION to CLIENTS" or "hold DURATION", /.source +
      /each optionally followed by "at RATE" \(--emit's rate in the step, as --emit-rate: 2\/s\), separated by commas: 'ramp 60s to 2000, /.source +
      /hold 3m at 2\/s, ramp 20s to 0'; got "jump 5s"/.source)],
    [['--phases', 'ramp to 5'], /--phases step 1 must be "ramp DURATION to CLIENTS".*; got "ramp to 5"/],
    [['--phases', 'hold'], /--phases step 1 must be .*; got "hold"/],
    [['--phases', 'ramp 2s to 5', '--duration', '10s'], /--phases cannot go with --duration \(the run lasts the phases' total\): drop --duration/],
    [['--phases', 'ramp 2s to 5', '--ramp', '1s'], /--phases cannot go with --ramp/],
    [['--phases', 'ramp 2s to 5', '-c', '5'], /--phases cannot go with --clients \(the swarm's size is the largest ramp target\)/],
    [['--phases', 'ramp 2s to 5 at 2/s'], /--phases "at RATE" sets the rate of --emit in a step: give --emit/],
    [['--phases', 'ramp 2s to 5 at fast', '--emit', 'chat {}'], /--phases step 1 must be a rate per client such as 1\/10s/]
  ]
  await expectRefusals(t, ['bin/ioswarm.js', 'simulate', ...url], cases, { notMatch: /clients →/ })
})

test('a --duration shorter than the ramp is said before the start, with the clients that will not start, and kept in the result', async (t) => {
  const server = await startTestServer(t)
  const { code, stdout, stderr } = await runCli(t, [
    'bin/ioswarm.js', 'simulate', '--url', server.url, '--json', '-c', '10', '--ramp', '10s', '--duration', '1s'
  ])
  assert.equal(code, 0, stderr)
  const warning = '--duration 1000 ms is shorter than the ramp, 10000 ms (--ramp): 8 of 10 clients will never start (the run ends first); ' +
    'make --duration longer than --ramp, or use --phases'
  assert.ok(stderr.indexOf(`ioswarm simulate: warning: ${warning}\n`) !== -1, stderr)
  assert.ok(stderr.indexOf(warning) < stderr.indexOf('clients →'), 'before the start line')
  const result = resultOf(stdout)
  assert.ok(result.preflight?.warnings.includes(warning))
  assert.ok(result.clients.attempts <= 2, `at most 2 started: ${result.clients.attempts}`)
})

test('rampCutWarning counts the clients a short --duration leaves unstarted, and is silent otherwise', () => {
  // simulate -c 50 --ramp 20s --duration 5s: clients start every 400 ms, 13 by 5 s.
  assert.match(String(rampCutWarning({ clients: 50, rampMs: 20000, durationMs: 5000 })), /: 37 of 50 clients will never start/)
  assert.match(
    String(rampCutWarning({ clients: 4, rampMs: 25000, rampSource: 'handshake pingInterval', durationMs: 1000 })),
    /the ramp, 25000 ms \(handshake pingInterval\): 3 of 4/
  )
  assert.equal(rampCutWarning({ clients: 50, rampMs: 20000, durationMs: 20000 }), null)
  assert.equal(rampCutWarning({ clients: 50, rampMs: 20000, durationMs: null }), null)
  assert.equal(rampCutWarning({ clients: 1, rampMs: 20000, durationMs: 1 }), null)
  assert.equal(rampCutWarning({ clients: 50, rampMs: 0, durationMs: 1000 }), null)
})

test('mergePhases sums the workers\' steps and keeps their widest boundaries', () => {
  /** @param {number} from @param {number} to @param {number} closed @param {number} startMs */
  const step = (from, to, closed, startMs) => ({ kind: /** @type {const} */ ('ramp'), startMs, endMs: startMs + 1000, from, to, closed })
  const a = /** @type {any} */ ({ phases: [step(0, 3, 0, 100), step(3, 1, 2, 1100)], rampedDown: 2 })
  const b = /** @type {any} */ ({ phases: [step(0, 2, 0, 90), step(2, 0, 2, 1095)], rampedDown: 2 })
  assert.deepEqual(mergePhases([a, b]), {
    phases: [{ ...step(0, 5, 0, 90), endMs: 1100 }, { ...step(5, 1, 4, 1095), endMs: 2100 }],
    rampedDown: 4
  })
  const plain = /** @type {any} */ ({})
  assert.equal(mergePhases([plain]), null)
})
