import { test } from 'node:test'
import assert from 'node:assert/strict'
import { expectRefusals, runCli } from '../helpers/cli.js'
import { startTestServer } from '../helpers/swarm.js'
import { missingDocumentedFields } from '../helpers/documented-fields.js'
import { closedPort } from '../helpers/ports.js'
import { waitFor } from '../helpers/wait.js'
import { startIoServer } from '../helpers/io-server.js'

test('--help explains the command and exits 0', async (t) => {
  const { code, stdout } = await runCli(t, ['client.js', '--help-all'])
  assert.equal(code, 0)
  for (const flag of ['--clients', '--transport', '--ramp', '--duration', '--keep-alive', '--event', '--json', '--max-payload', '--ws-client']) {
    assert.ok(stdout.includes(flag), `help mentions ${flag}`)
  }
  assert.match(stdout, /websocket:70,polling:30/)
  assert.match(stdout, /--ws-client[\s\S]*builtin\s+\(lean\s+default,\s+leaner\)\s+or\s+ws[\s\S]*\[choices: "ws",\s+"builtin"\]/)
})

test('bad input exits 2 with a message naming the flag, before any socket opens', async (t) => {
  const url = ['--url', 'http://127.0.0.1:1']
  /** @type {[string[], RegExp][]} */
  const cases = [
    [['-c', '0', ...url], /--clients must be a whole number from 1/],
    [['-c', 'abc', ...url], /--clients must be a whole number .*"abc"/],
    [['-t', 'smoke-signals', ...url], /--transport has an unknown transport "smoke-signals": must be one of websocket, polling, upgrade/],
    [['-t', 'websocket:70,polling:-3', ...url], /--transport weight of polling must be a positive number/],
    [['--url', 'not a url'], /--url must be a URL/],
    [['--url', ''], /--url must be a URL/],
    [['--ramp', 'later', ...url], /--ramp must be a duration/],
    [['--engine', 'warp', ...url], /--engine must be one of sio, lean, got "warp"/],
    [['--engine', 'lean', '--parser', 'msgpack', ...url], /--parser msgpack works with --engine sio only/],
    [['--max-payload', 'huge', ...url], /--max-payload must be a size such as 1000000, 512KB, 10MB or 1MiB/],
    [['--ramp-guard', 'loop=1ms', ...url], /--ramp-guard loop= must be at least 10ms/],
    [['--max-payload', '1GB', ...url], /--max-payload must be from 1000 to 268435456 bytes, got "1GB"/],
    [['--engine', 'lean', '--ws-client', 'undici', ...url], /--ws-client must be one of ws, builtin, got "undici"/],
    [['--ws-client', 'builtin', ...url], /--ws-client works with --engine lean only; --engine sio uses socket\.io-client's own WebSocket/],
    [['--no-such-flag', ...url], /Unknown argument/],
    // Scenarios: templates, feeders, rooms, emits.
    [['--auth', '{"token":{{tokn}}}', ...url], /--auth has an unknown placeholder \{\{tokn\}\}/],
    [['--auth', '{"token":', ...url], /--auth must be a JSON template/],
    [['--header', 'X-User: {{row.user}}', ...url], /--header uses \{\{row.user\}\}, which needs a feeder/],
    [['--feeder', '/no/such/users.csv', ...url], /--feeder cannot read "\/no\/such\/users.csv"/],
    [['--emitters', '150%', ...url], /--emitters must be a share from 0% \(exclusive\) to 100%, or a count of clients, got "150%"/],
    [['--rooms', '0', ...url], /--rooms must be a whole number from 1 to 1000000, got "0"/],
    [['--emit-rate', 'often', ...url], /--emit-rate must be a rate per client such as 1\/10s/],
    [['--join', 'join {"room":"{{rom}}"}', '--rooms', '2', ...url], /--join has an unknown placeholder \{\{rom\}\}/],
    [['--scenario', 'hooks.txt', ...url], /--scenario must be a JavaScript module/]
  ]
  await expectRefusals(t, ['client.js'], cases, { notMatch: /connected \d+\// })
})

test('--json prints a result with every documented field', async (t) => {
  const server = await startTestServer(t)
  const run = runCli(t, ['client.js', '-c', '5', '--url', server.url, '--ramp', '0', '--duration', '4', '--json', '-t', 'websocket:1,polling:1'], {
    onStderr: () => {}
  })
  // Broadcast once the clients are in (the CLI's own 60 s bound ends the wait if they never come).
  let ended = false
  run.finally(() => { ended = true }).catch(() => {})
  await waitFor(() => ended || server.io.of('/').sockets.size === 5, {
    timeoutMs: 60000, message: () => `5 clients on the server (have ${server.io.of('/').sockets.size})`
  })
  assert.equal(ended, false, 'the clients connected before the run ended')
  await server.broadcast({ round: 1, count: 2 })
  const { code, stdout, stderr } = await run
  assert.equal(code, 0, stderr)
  const result = JSON.parse(stdout)
  // Every field the result's types document (lib/schema/result-schema.js SimResult, walked into its nested types).
  assert.deepEqual(missingDocumentedFields(result, 'SimResult'), [], 'documented fields missing from the result')
  assert.equal(result.schemaVersion, 1)
  assert.equal(result.kind, 'simulator')
  assert.deepEqual(result.clients.target, 5)
  assert.equal(result.clients.connected, 5)
  assert.equal(result.clients.failed, 0)
  assert.equal(result.messages.length, 2)
  for (const m of result.messages) {
    for (const field of ['id', 'received', 'missing', 'relative', 'absolute', 'floor']) assert.ok(field in m, field)
    for (const field of ['cpuMs', 'spreadMs']) assert.equal(typeof m.floor[field], 'number', `floor.${field}`)
    for (const field of ['mean', 'p50', 'p90', 'p99', 'max']) assert.equal(typeof m.relative[field], 'number', field)
    assert.equal(m.received, 5)
  }
  assert.ok(Array.isArray(result.health.samples) && result.health.samples.length >= 3)
  assert.ok(Array.isArray(result.timeline) && result.timeline.length >= 3)
  assert.equal(result.options.transport, 'websocket:1,polling:1')
  assert.equal(result.agent.keepAlive, true)
  assert.match(stderr, /message\s+received\s+missing/, 'summary table on stderr')
  assert.match(stderr, /abs p99\s+floor\s+busy\n/, 'the simulator\'s floor per message')
  assert.match(stderr, /\n *1\.1 .*\d(ms|s)\s+(\d+%|-)\n/, 'a floor and busy share on the first message')
})

test('IOSWARM_* variables set options, and one meant for another command is no error', async (t) => {
  const port = await closedPort()
  const { code, stdout, stderr } = await runCli(t, ['client.js', '--duration', '1', '--ramp', '0', '--json'], {
    env: { IOSWARM_CLIENTS: '2', IOSWARM_URL: `http://127.0.0.1:${port}`, IOSWARM_TOKEN: 'for-serve-and-broadcast' },
    timeoutMs: 20000
  })
  assert.equal(code, 1, stderr) // nobody listens on that port: no client connected
  assert.doesNotMatch(stderr, /Unknown argument/)
  assert.equal(JSON.parse(stdout).clients.target, 2)
})

test('a server that is not there: counted connect errors, a clear summary, exit 1', async (t) => {
  const port = await closedPort()
  const { code, stderr, stdout } = await runCli(t, ['client.js', '-c', '3', '--url', `http://127.0.0.1:${port}`, '--ramp', '0', '--duration', '2', '--json'])
  assert.equal(code, 1)
  assert.match(stderr, /no client ever connected to http:\/\/127\.0\.0\.1:\d+ \(connect errors: .*ECONNREFUSED.*\)/)
  const result = JSON.parse(stdout)
  assert.equal(result.clients.failed, 3)
  assert.ok(Object.values(result.clients.errors).reduce((a, b) => Number(a) + Number(b), 0) >= 3)
  assert.match(result.server.handshakeError, /no Engine.IO handshake/)
})

test('a server that is not socket.io (404 on both transports): stops before the swarm with exit 2 and says so, --wait-for-server or not', async (t) => {
  const http = await import('node:http')
  const plain = http.createServer((req, res) => { res.writeHead(404); res.end('nothing here') })
  await new Promise((resolve) => plain.listen(0, '127.0.0.1', () => resolve(undefined)))
  t.after(() => plain.close())
  const { port } = /** @type {import('node:net').AddressInfo} */ (plain.address())
  const { code, stderr } = await runCli(t, ['client.js', '-c', '2', '-t', 'polling', '--url', `http://127.0.0.1:${port}`, '--ramp', '0', '--duration', '30'])
  assert.equal(code, 2, stderr)
  assert.match(
    stderr,
    new RegExp(/no Engine.IO handshake .*HTTP 404 \(nothing at \/socket.io\/: is --path right\? socket.io.s default is \/socket.io\/\): /.source +
      /"nothing here"; websocket: Unexpected server response: 404\): nothing was started; check --url and --path/.source)
  )
  assert.doesNotMatch(stderr, /connected \d+\//, 'no swarm started')
  const waited = await runCli(t, ['client.js', '-c', '2', '--url', `http://127.0.0.1:${port}`, '--duration', '30', '--wait-for-server', '1s'])
  assert.equal(waited.code, 2, waited.stderr)
  assert.match(waited.stderr, /nothing was started; check --url and --path \(still, after --wait-for-server 1 s\)/)
})

test('SIGTERM stops the simulator, which still prints its result', async (t) => {
  const server = await startTestServer(t)
  let signalled = false
  const { code, stdout } = await runCli(t, ['bin/ioswarm.js', 'simulate', '-c', '3', '--url', server.url, '--ramp', '0', '--json'], {
    onStderr: (text, child) => {
      if (!signalled && /connected 3\/3/.test(text)) {
        signalled = true
        child.kill('SIGTERM')
      }
    }
  })
  assert.ok(signalled, 'the simulator reported 3 connected clients')
  assert.equal(code, 0)
  assert.equal(JSON.parse(stdout).clients.everConnected, 3)
})

test('events that arrive but are not measured are counted, and the summary says how to measure them (both engines)', async (t) => {
  const server = await startTestServer(t)
  for (const engine of ['sio', 'lean']) {
    const run = runCli(t, ['client.js', '-c', '3', '--engine', engine, '--url', server.url, '--ramp', '0', '--duration', '3', '--json'])
    await waitFor(() => server.io.of('/').sockets.size === 3, { message: '3 clients' })
    server.io.emit('news', { id: `n-${engine}` })
    server.io.emit('news', { id: `m-${engine}` })
    const { code, stdout, stderr } = await run
    assert.equal(code, 0, stderr)
    const result = JSON.parse(stdout)
    assert.deepEqual(result.messages, [])
    assert.deepEqual(result.clients.unmeasuredEvents, { news: 6 }, engine)
    assert.match(
      stderr,
      new RegExp(/messages: none received\. Measured "broadcast", but other events arrived: /.source +
        /"news" ×6\. Measure them with --event news \(or --event '\*' for every event\)/.source),
      engine
    )
    await waitFor(() => server.io.of('/').sockets.size === 0, { message: 'the clients gone' })
  }
})

test('the URL\'s query string reaches the server\'s handshake on both engines and transports; a refused first contact stops, saying why', async (t) => {
  const { io, url } = await startIoServer(t)
  io.use((socket, next) => (socket.handshake.query.token === 's3cret' ? next() : next(new Error('no token'))))
  for (const engine of ['sio', 'lean']) {
    for (const transport of ['websocket', 'polling']) {
      const ok = await runCli(t, [
        'client.js', '-c', '2', '--engine', engine, '-t', transport, '--url', `${url}/?token=s3cret`, '--ramp', '0',
        '--duration', '1', '--json', '--quiet'
      ])
      assert.equal(ok.code, 0, ok.stderr)
      assert.equal(JSON.parse(ok.stdout).clients.everConnected, 2, `${engine} ${transport}`)
    }
  }
  // Every client would send the same (missing) token: the look's refusal stops it before the swarm.
  const refused = await runCli(t, ['client.js', '-c', '2', '--url', url, '--ramp', '0', '--duration', '1', '--json', '--quiet', '--no-reconnect'])
  assert.equal(refused.code, 2, refused.stderr)
  assert.match(
    refused.stderr,
    new RegExp(/^ioswarm: the server refused namespace \/: no token: every client sends this same identity, /.source +
      /so none can connect and nothing was started; give what the server wants \(--auth, --query/.source, 'm')
  )
  assert.equal(refused.stdout, '', 'no result: nothing was started')
})

test('--protocol websocket: Socket.IO-only flags and bad templates exit 2 naming the flag, before any socket opens', async (t) => {
  const base = ['--protocol', 'websocket', '--url', 'ws://127.0.0.1:1/feed']
  await expectRefusals(t, ['bin/ioswarm.js', 'simulate', ...base], [
    [['--namespace', '/chat'], /--namespace is a Socket\.IO option, not for --protocol websocket/],
    [['--parser', 'msgpack'], /--parser is a Socket\.IO option/],
    [['-t', 'polling'], /--transport polling is a Socket\.IO transport/],
    [['--eio', '3'], /--eio is a Socket\.IO option/],
    [['--send-on-open', '{"op": "sub", "n": {{nope}}}'], /--send-on-open has an unknown placeholder \{\{nope\}\}/],
    [['--send-on-open', '{"op": '], /--send-on-open must be a JSON template/],
    [['--match', 'type'], /--match must be FIELD=VALUE/]
  ])
  const { code, stderr } = await runCli(t, ['bin/ioswarm.js', 'simulate', '--url', 'http://127.0.0.1:1', '--match', 'type=score'], { timeoutMs: 15000 })
  assert.equal(code, 2)
  assert.match(stderr, /--match works with --protocol websocket only/)
  const help = await runCli(t, ['bin/ioswarm.js', 'simulate', '--help'])
  for (const flag of ['--protocol', '--send-on-open', '--subprotocol', '--match']) assert.ok(help.stdout.includes(flag), `help mentions ${flag}`)
})
