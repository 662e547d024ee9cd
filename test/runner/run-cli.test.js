import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { expectRefusals, runCli } from '../helpers/cli.js'
import { getRedisUrl } from '../helpers/redis.js'
import { closedPort } from '../helpers/ports.js'
import { startIoServer } from '../helpers/io-server.js'
import { existsSync } from 'node:fs'

/**
 * @param {import('node:test').TestContext} t
 */
async function tempDir (t) {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'ioswarm-run-'))
  t.after(() => rm(dir, { recursive: true, force: true }))
  return dir
}

const QUICK = ['--rounds', '2x300,2x200', '--ping-interval', '1s', '--ramp', '500ms', '--quiet']

/**
 * Every message of every round reached every client of every distribution.
 * @param {import('../../lib/schema/result-schema.js').RunResult} result
 * @param {{ name: string, clients: number }[]} expected
 */
function assertComplete (result, expected) {
  assert.equal(result.schemaVersion, 1)
  assert.equal(result.kind, 'run')
  assert.deepEqual(result.distributions.map((d) => d.name), expected.map((e) => e.name))
  for (const [i, d] of result.distributions.entries()) {
    assert.equal(d.clients.connected, expected[i].clients, `${d.name} connected`)
    assert.deepEqual(d.messages.map((m) => m.id), ['1.1', '1.2', '2.1', '2.2'], `${d.name} messages`)
    for (const m of d.messages) {
      assert.equal(m.received, expected[i].clients, `${d.name} ${m.id} received`)
      assert.equal(m.missing, 0)
      assert.ok(m.relative.p99 >= m.relative.p50 && m.relative.count === expected[i].clients)
    }
    assert.deepEqual(d.rounds.map((r) => [r.round, r.messages, r.received]), [[1, 2, 2 * expected[i].clients], [2, 2, 2 * expected[i].clients]])
    assert.ok(d.timeline.length > 0 && d.health.length > 0, 'samples collected')
    assert.ok(d.server.length > 0, 'reference server sampled')
    assert.ok(d.simulatorList.every((s) => !s.stale))
  }
}

test('ioswarm run end to end with the embedded collector: result.json, CSVs and report', async (t) => {
  const out = await tempDir(t)
  const { code, stderr } = await runCli(t, ['bin/ioswarm.js', 'run', '--distributions', '2x10,1x15', ...QUICK, '--out', out, '--assert', 'missing=0'], {
    timeoutMs: 120000
  })
  assert.equal(code, 0, stderr)
  const result = JSON.parse(await readFile(path.join(out, 'result.json'), 'utf8'))
  assert.equal(result.run.collector, 'memory')
  assertComplete(result, [{ name: '2x10', clients: 20 }, { name: '1x15', clients: 15 }])
  assert.deepEqual(result.thresholds.map((/** @type {{ ok: boolean }} */ v) => v.ok), [true])
  const csv = await readFile(path.join(out, 'messages.csv'), 'utf8')
  assert.equal(csv.trim().split('\n').length, 1 + 8, 'a header and one row per message per distribution')
  assert.ok((await stat(path.join(out, 'samples.csv'))).size > 100)
  assert.equal(await readFile(path.join(out, 'reasons.csv'), 'utf8'), 'distribution,kind,reason,count\r\n', 'a clean run: no connect error, no disconnect')
  assert.match(await readFile(path.join(out, 'report.html'), 'utf8'), /<canvas/)
  assert.match(stderr, /round\s+plan\s+messages/, 'summary table on stderr')
})

test('a chat-like run end to end (rooms, joins, emits with acks): scenario results in result.json, CSVs, summary and thresholds', async (t) => {
  const out = await tempDir(t)
  const { code, stderr } = await runCli(t, [
    'bin/ioswarm.js', 'run', '--simulators', '2', '--clients-per-simulator', '6', '--rounds', '2x300', '--ping-interval', '1s', '--ramp', '500ms',
    '--rooms', '2', '--join', 'join {"room":"{{room}}"}', '--emit', 'chat {"room":"{{room}}","text":"hi from {{i}}"}', '--emit-rate', '4/s',
    '--emitters', '50%', '--emit-ack', '--event', 'broadcast', '--event', 'chat', '--quiet', '--out', out, '--assert', 'misdelivered=0',
    '--assert', 'ack.p99<5s', '--assert', 'duplicated=0', '--assert', 'join.failed=0', '--assert', 'ack.timeouts=0'
  ], { timeoutMs: 120000 })
  assert.equal(code, 0, stderr)
  const result = /** @type {import('../../lib/schema/result-schema.js').RunResult} */ (JSON.parse(await readFile(path.join(out, 'result.json'), 'utf8')))
  assert.deepEqual(result.thresholds?.map((v) => v.ok), [true, true, true, true, true])
  const [d] = result.distributions
  assert.deepEqual([d.scenario?.joins?.sent, d.scenario?.joins?.acked], [12, 12], 'every client joined its room, both simulators merged')
  assert.ok((d.scenario?.emits?.acked ?? 0) > 0 && d.scenario?.emits?.ackTime?.count === d.scenario?.emits?.acked, 'acks timed')
  assert.equal(d.scenario?.emits?.emitters, 6, 'half of the 12 clients, both simulators merged')
  const rows = d.deliveries?.rows ?? []
  assert.deepEqual([...new Set(rows.map((r) => r.room))].sort(), ['room-0', 'room-1'], 'broadcasts and lines went to the rooms')
  assert.ok(rows.some((r) => r.event === 'chat' && r.messages > 0), 'relayed chat lines measured')
  assert.deepEqual([d.deliveries?.total.misdelivered, d.deliveries?.total.missing], [0, 0])
  for (const r of rows.filter((x) => x.event === 'broadcast')) {
    assert.deepEqual([r.expected, r.received], [6 * r.messages, 6 * r.messages], `${r.room}: its 6 clients only`)
  }
  const deliveries = (await readFile(path.join(out, 'deliveries.csv'), 'utf8')).trim().split('\r\n')
  assert.equal(deliveries[0].split(',').slice(0, 4).join(','), 'distribution,scope,namespace,room')
  assert.equal(deliveries.length, 1 + rows.length + 1 + 1, 'the rows, the namespace, the total')
  assert.match((await readFile(path.join(out, 'messages.csv'), 'utf8')).split('\r\n')[0], /,namespace,room,duplicates,misdelivered$/)
  assert.match(stderr, /^copies: misdelivered 0, duplicated 0$/m)
  assert.match(stderr, /^joins \(join\): sent 12, acked 12, failed 0, unacked 0; join time p50 /m)
  // An emit still waiting for its ack when the run ends is cut short (failed): not asserted.
  assert.match(stderr, /^emits \(chat\): 6 emitters, sent \d+, acked \d+, timed out 0, failed \d+( \([^)]*\))?; ack time p50 /m)
  assert.match(stderr, /^deliveries by namespace, room and event \(2 rooms, the top 20 by traffic listed\):$/m)
  assert.match(stderr, /^pass {2}ack\.p99<5s +ack\.p99 [\d.]+ms \(2x6, \d+ acks\)$/m)
})

test('ioswarm run end to end with Redis', async (t) => {
  const redisUrl = await getRedisUrl(t)
  if (!redisUrl) return
  const out = await tempDir(t)
  const { code, stderr } = await runCli(
    t,
    [
      'bin/ioswarm.js',
      'run',
      '--simulators',
      '2',
      '--clients-per-simulator',
      '12',
      ...QUICK,
      '--redis',
      redisUrl,
      '--out',
      out,
      '--transport',
      'websocket:1,polling:1'
    ],
    { timeoutMs: 120000 }
  )
  assert.equal(code, 0, stderr)
  const result = JSON.parse(await readFile(path.join(out, 'result.json'), 'utf8'))
  assert.equal(result.run.collector, 'redis')
  assertComplete(result, [{ name: '2x12', clients: 24 }])
  assert.ok(result.distributions[0].simulatorList.every((/** @type {any} */ s) => s.clock.reference === 'redis'))
})

test('a failed threshold exits 3 and says which', async (t) => {
  const out = await tempDir(t)
  const { code, stderr } = await runCli(
    t,
    [
      'bin/ioswarm.js', 'run', '--simulators', '1', '--clients', '5', '--rounds', '1x100', '--ping-interval', '1s',
      '--ramp', '0', '--quiet', '--out', out, '--assert', 'p99<0.001ms', '--assert', 'missing=0'
    ],
    { timeoutMs: 60000 }
  )
  assert.equal(code, 3, stderr)
  assert.match(stderr, /p99<0\.001ms/)
  assert.match(stderr, /FAIL/i)
})

test('bad run options exit 2 naming the flag, before anything starts', async (t) => {
  const out = await tempDir(t)
  const aFile = path.join(out, 'a-file')
  await writeFile(aFile, '')
  /** @type {[string[], RegExp][]} */
  const cases = [
    [['--distributions', '0x5'], /--distributions \(simulators in 0x5\) must be a whole number from 1/],
    [['--distributions', 'lots'], /--distributions has "lots"/],
    [['--target', 'http://127.0.0.1:1', '--rounds', '3x100'], /--token is required with --target and --rounds/],
    // --target without --token and without --rounds: no broadcaster, so the run needs its length.
    [['--target', 'http://127.0.0.1:1'], /--duration is required without rounds \(--target without --token/],
    [['--duration', '5s', '--rounds', '3x100'], /--duration is for a run without rounds/],
    [['--rounds', 'none', '--hold', '5s', '--window', '10s'], /--window 10s is longer than --hold 5s/],
    [['--expect-simulators', '3'], /--expect-simulators needs --redis/],
    [['--assert', 'p99 is small'], /--assert/],
    [['--out', path.join(aFile, 'results')], /--out cannot be written/],
    [['--run', 'has spaces'], /--run must be 1 to 100 letters/],
    [['--max-payload', 'lots'], /--max-payload must be a size such as 1000000, 512KB/],
    [['--size', '2000000', '--max-payload', '1MB'], /--max-payload 1000000 is smaller than one message of --size 2000000/],
    [['--ws-client', 'builtin'], /--ws-client works with --engine lean only/],
    [['--metrics-port', '99999'], /--metrics-port must be a whole number from 0 to 65535/],
    [['--metrics-linger', 'soon'], /--metrics-linger must be a duration/],
    [['--auth-token', 'x', '--target', 'http://127.0.0.1:1', '--token', 't'], /--auth-token is for the reference server that run starts/]
  ]
  // --out is given twice when a case sets it: the last one wins.
  await expectRefusals(t, ['bin/ioswarm.js', 'run', '--out', out], cases, { notMatch: /reference server http/ })
})

test('a run that fails before it starts (Redis unreachable) leaves no empty results folder', async (t) => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'ioswarm-norun-'))
  t.after(() => rm(dir, { recursive: true, force: true }))
  const out = path.join(dir, 'results')
  const { code, stderr } = await runCli(t, ['bin/ioswarm.js', 'run', '--redis', `redis://127.0.0.1:${await closedPort()}`, '--out', out, '--rounds', '1x1'])
  assert.equal(code, 1, stderr)
  assert.match(stderr, /cannot use Redis/)
  assert.equal(existsSync(out), false)
})

test('a --target with no Engine.IO at its path (404 on both transports): exit 2 with the diagnosis, before any simulator starts', async (t) => {
  const http = await import('node:http')
  const plain = http.createServer((req, res) => res.writeHead(404).end('no app here'))
  await new Promise((resolve) => plain.listen(0, '127.0.0.1', () => resolve(undefined)))
  t.after(() => new Promise((resolve) => plain.close(() => resolve(undefined))))
  const target = `http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (plain.address()).port}`
  const dir = await tempDir(t)
  const { code, stderr } = await runCli(t, [
    'bin/ioswarm.js', 'run', '--target', target, '--token', 'x', '--out', path.join(dir, 'results'), '--rounds', '1x100'
  ])
  assert.equal(code, 2, stderr)
  assert.match(
    stderr,
    new RegExp(/no Engine\.IO handshake at http:\/\/127\.0\.0\.1:\d+\/socket\.io\/ \(polling: polling handshake answered /.source +
      /HTTP 404 .*"no app here"; websocket: Unexpected server response: 404\): nothing was started; check --url and --path/.source)
  )
  // The first line states the swarm the run would make; nothing after it may show a simulator.
  const [layout, ...rest] = stderr.split('\n')
  assert.match(layout, /^run \S+: 2 simulators × 100 = 200 clients; target /)
  assert.doesNotMatch(rest.join('\n'), /simulator|connected \d/, 'no simulator started')
  assert.equal(existsSync(path.join(dir, 'results')), false)
})

test('ioswarm run --protocol websocket: a whole local test against the plain WebSocket reference server, both clients (one with --auth-token)', async (t) => {
  for (const wsClient of ['ws', 'builtin']) {
    const out = await tempDir(t)
    const auth = wsClient === 'builtin' ? ['--auth-token', 'fan-token'] : []
    const { code, stderr } = await runCli(
      t,
      [
        'bin/ioswarm.js',
        'run',
        '--protocol',
        'websocket',
        '--ws-client',
        wsClient,
        '--distributions',
        '2x10',
        ...QUICK,
        ...auth,
        '--out',
        out,
        '--assert',
        'missing=0'
      ],
      { timeoutMs: 120000 }
    )
    assert.equal(code, 0, stderr)
    const result = JSON.parse(await readFile(path.join(out, 'result.json'), 'utf8'))
    assert.equal(result.options.protocol, 'websocket')
    assert.equal(result.options.wsClient, wsClient)
    assertComplete(result, [{ name: '2x10', clients: 20 }])
    assert.ok(result.distributions[0].simulatorList.every((/** @type {{ engine: string }} */ s) => s.engine === 'websocket'))
    assert.deepEqual(result.distributions[0].server.at(-1).byTransport, { websocket: 20, polling: 0 }, 'the server counts them')
    assert.match(await readFile(path.join(out, 'report.html'), 'utf8'), /protocol<\/td><td>websocket/)
  }
})

test('ioswarm run --protocol websocket refuses what only Socket.IO has, naming the flag', async (t) => {
  const out = await tempDir(t)
  await expectRefusals(t, ['bin/ioswarm.js', 'run', '--protocol', 'websocket', '--out', out], [
    [['--via', 'socket'], /--via socket emits on the socket\.io reference server's admin namespace/],
    [['--transport', 'upgrade'], /--transport upgrade is a Socket\.IO transport/],
    [['--namespace', '/chat'], /--namespace is a Socket\.IO option/],
    [['--send-on-open', '{"a": {{nope}}}'], /--send-on-open has an unknown placeholder/]
  ])
})

/**
 * A socket.io server on port 0 that counts its clients: how many at once at most, how many
 * connections in all, and when the first came and the last left (its own clock).
 * @param {import('node:test').TestContext} t
 */
async function startCountingServer (t) {
  const { io, url } = await startIoServer(t, { pingInterval: 1000 })
  const seen = { now: 0, peak: 0, connects: 0, firstAt: 0, lastAt: 0 }
  io.on('connection', (socket) => {
    seen.connects++
    seen.now++
    seen.peak = Math.max(seen.peak, seen.now)
    if (seen.firstAt === 0) seen.firstAt = performance.now()
    socket.on('disconnect', () => { seen.now--; seen.lastAt = performance.now() })
  })
  const reset = () => Object.assign(seen, { peak: 0, connects: 0, firstAt: 0, lastAt: 0 })
  return { url, seen, reset }
}

test('the same --clients, --duration and --ramp on simulate --workers 4 and run --simulators 4: ' +
  'the same clients for the same time, or run refuses with both readings', async (t) => {
  const server = await startCountingServer(t)
  const same = ['--clients', '8', '--duration', '3s', '--ramp', '1s']
  const simulate = await runCli(t, ['bin/ioswarm.js', 'simulate', '--url', server.url, '--workers', '4', ...same, '--quiet', '--json'], { timeoutMs: 60000 })
  assert.equal(simulate.code, 0, simulate.stderr)
  const simulated = /** @type {import('../../lib/schema/result-schema.js').SimResult} */ (JSON.parse(simulate.stdout))
  const simSeen = { ...server.seen }
  assert.deepEqual([simSeen.peak, simulated.options.durationMs], [8, 3000], 'simulate: 8 clients in all, for 3 s')

  // The same words on run: both readings, with numbers and their spellings; nothing started.
  const out = await tempDir(t)
  server.reset()
  const bare = await runCli(t, ['bin/ioswarm.js', 'run', '--target', server.url, '--simulators', '4', ...same, '--out', path.join(out, 'bare')], {
    timeoutMs: 30000
  })
  assert.equal(bare.code, 2, bare.stderr)
  assert.match(
    bare.stderr,
    new RegExp(/--clients 8 with --simulators 4 has two readings: 4 simulators × 8 = 32 clients \(the old reading: /.source +
      /--clients-per-simulator 8\), or 8 clients in all, 2 per simulator \(the new one: --total-clients 8\)/.source)
  )
  const clientsSpelled = await runCli(t, [
    'bin/ioswarm.js', 'run', '--target', server.url, '--simulators', '4', '--total-clients', '8', '--duration', '3s', '--ramp', '1s',
    '--out', path.join(out, 'half')
  ], { timeoutMs: 30000 })
  assert.equal(clientsSpelled.code, 2, clientsSpelled.stderr)
  assert.match(
    clientsSpelled.stderr,
    new RegExp(/--duration 3s with --ramp 1 s has two readings: hold the clients 3s after the ramp, 4 s in all \(the old reading: /.source +
      /--hold 3s\), or 3s in all, the ramp included, held 2 s after the ramp \(the new one: --total-duration 3s\)/.source)
  )
  assert.equal(server.seen.connects, 0, 'a refused run starts no client')

  // Spelled out: what simulate did, split over 4 simulators.
  const run = await runCli(t, [
    'bin/ioswarm.js', 'run', '--target', server.url, '--simulators', '4', '--total-clients', '8', '--total-duration', '3s', '--ramp', '1s',
    '--window', '1s', '--out', path.join(out, 'run')
  ], { timeoutMs: 60000 })
  assert.equal(run.code, 0, run.stderr)
  assert.match(run.stderr, /^run \S+: 4 simulators × 2 = 8 clients; target /m)
  const result = /** @type {import('../../lib/schema/result-schema.js').RunResult} */ (JSON.parse(await readFile(path.join(out, 'run', 'result.json'), 'utf8')))
  // As many connections in all as simulate's (its clients, and the one first look at the server).
  assert.deepEqual(
    [server.seen.peak, server.seen.connects, result.distributions[0].clients.target],
    [8, simSeen.connects, 8],
    'run: 8 clients in all, as simulate'
  )
  assert.deepEqual([result.options.durationMs, result.options.durationIs, result.options.holdMs, result.options.clients],
    [3000, 'the whole run, the ramp included', null, '8'], 'the result says what the length and the clients meant')
  // The run's clients stayed as long as simulate's did: its end is counted from the simulators' start, not from the ramp's end.
  assert.ok(server.seen.lastAt - server.seen.firstAt >= 2000 && simSeen.lastAt - simSeen.firstAt >= 2000, 'both held their clients to the end of the 3 s')
})
