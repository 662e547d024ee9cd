/**
 * TLS trust (--ca, --insecure) against a real socket.io server over https with a self-signed
 * certificate made by the openssl CLI for the test: both engines and every transport connect
 * with the trust and fail without it; the inspection says which flag fixes a certificate
 * failure; bad --ca input exits 2 naming the flag; --insecure is printed and recorded; every
 * engine times its TLS handshakes, and simulate shows them beside the connect time. The lean
 * engine's built-in WebSocket client sends SNI as ws does, resumes one TLS session across its
 * clients, and fails on a certificate with ws's very reason.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import https from 'node:https'
import { join } from 'node:path'
import { WebSocketServer } from 'ws'
import { engines } from '../../../simulator/engines/index.js'
import { probeHandshake } from '../../../simulator/inspection/handshake.js'
import { inspectionSession } from '../../../simulator/sessions/inspection.js'
import { tlsTrust } from '../../../lib/input/tls-trust.js'
import { certificateAdvice } from '../../../simulator/reporting/summary-text.js'
import { createSourcePorts } from '../../../simulator/wire/source-ports.js'
import { BIN, runCli } from '../../helpers/cli.js'
import { waitFor } from '../../helpers/wait.js'
import { makeCertificate, startHttpsServer } from '../../helpers/https-server.js'

/**
 * Opens `clients` clients and counts their connects and connect errors.
 * @param {import('node:test').TestContext} t
 * @param {'sio' | 'lean' | 'websocket'} engine
 * @param {string} url
 * @param {import('../../../lib/values/parsers.js').Transport} transport
 * @param {import('../../../lib/input/tls-trust.js').TlsTrust | null} tls
 * @param {number} [clients]
 * @param {Record<string, unknown>} [extra] more engine options
 */
function openPool (t, engine, url, transport, tls, clients = 3, extra = {}) {
  const connected = new Set()
  /** @type {string[]} */
  const errors = []
  /** @type {number[]} TLS handshake times the engine reported (TCP up → TLS ready) */
  const tlsMs = []
  const events = {
    secured (/** @type {number} */ ms) { tlsMs.push(ms) },
    attempt () {},
    connected (/** @type {number} */ i) { connected.add(i) },
    upgraded () {},
    message () {},
    unmeasured () {},
    disconnected () {},
    connectError (/** @type {number} */ i, /** @type {string} */ reason) { errors.push(reason) },
    reconnected () {}
  }
  const pool = engines[engine].createPool({ url, path: '/socket.io/', namespace: '/', events: ['*'], keepAlive: true, reconnect: false, tls, ...extra }, events)
  t.after(() => pool.close())
  for (let i = 0; i < clients; i++) pool.connect(i, transport)
  return { connected, errors, clients, tlsMs, pool }
}

/**
 * Every client's connection was timed: a TLS handshake time per client at least (polling POSTs add theirs), each > 0.
 * @param {{ tlsMs: number[], clients: number }} pool
 * @param {string} what
 */
function assertTimed (pool, what) {
  assert.ok(pool.tlsMs.length >= pool.clients, `${what}: ${pool.tlsMs.length} TLS handshakes timed for ${pool.clients} clients`)
  assert.ok(pool.tlsMs.every((ms) => ms > 0 && ms < 30000), `${what}: ${pool.tlsMs}`)
}

/**
 * The clients under test: the sio engine, and the lean engine on each WebSocket client (its
 * polling is the same for both, so the built-in WebSocket client runs the transports that use it).
 * @type {{ name: string, engine: 'sio' | 'lean', extra: Record<string, unknown>, transports: import('../../../lib/values/parsers.js').Transport[] }[]}
 */
const CLIENTS = [
  { name: 'sio', engine: 'sio', extra: {}, transports: ['polling', 'upgrade', 'websocket'] },
  { name: 'lean (ws)', engine: 'lean', extra: { wsClient: 'ws' }, transports: ['polling', 'upgrade', 'websocket'] },
  { name: 'lean (builtin)', engine: 'lean', extra: { wsClient: 'builtin' }, transports: ['upgrade', 'websocket'] }
]

test('TLS: --ca and --insecure on every engine and transport, the inspection, and the CLI', async (t) => {
  const files = makeCertificate(t)
  if (files === null) return
  const { url, from, accepted } = await startHttpsServer(t, files)
  const trusted = tlsTrust({ ca: [files.cert] })
  const insecure = tlsTrust({ insecure: true })
  /** @type {Map<string, string>} the connect error without trust, by client and transport */
  const refusals = new Map()
  for (const { name, engine, extra, transports } of CLIENTS) {
    for (const transport of transports) {
      await t.test(`${name} ${transport}: connects with --ca, with --insecure, and not without either`, async (t) => {
        for (const tls of [trusted, insecure]) {
          const pool = openPool(t, engine, url, transport, tls, 3, extra)
          await waitFor(() => pool.connected.size === pool.clients, { message: () => `connected over TLS (errors: ${pool.errors})` })
          assert.deepEqual(pool.errors, [])
          assertTimed(pool, `${name} ${transport}`)
        }
        const refused = openPool(t, engine, url, transport, null, 1, extra)
        await waitFor(() => refused.errors.length > 0, { message: 'a connect error without trust' })
        assert.equal(refused.connected.size, 0)
        refusals.set(`${name} ${transport}`, refused.errors[0])
        // The summary names the flags wherever the reason carries the certificate's code (sio polling says only HTTP 0).
        if (engine === 'lean' || transport === 'websocket') {
          assert.match(certificateAdvice({ [refused.errors[0]]: 1 }), /^TLS: .*--ca FILE.*--insecure/, refused.errors[0])
        }
      })
    }
  }

  await t.test('a certificate failure reads the same on the built-in WebSocket client as on ws', () => {
    assert.equal(refusals.get('lean (ws) websocket'), 'websocket error (DEPTH_ZERO_SELF_SIGNED_CERT)')
    assert.equal(refusals.get('lean (builtin) websocket'), refusals.get('lean (ws) websocket'))
  })

  await t.test('the built-in WebSocket client: SNI as ws sends it, one session resumed by the next clients', async (t) => {
    const byName = url.replace('127.0.0.1', 'localhost')
    for (const [target, servername] of /** @type {const} */ ([[byName, 'localhost'], [url, false]])) {
      const first = accepted.length
      const swarm = openPool(t, 'lean', target, 'websocket', trusted, 1, { wsClient: 'builtin' })
      await waitFor(() => swarm.connected.size === 1, { message: () => `the first client (errors: ${swarm.errors})` })
      // The session ticket comes after the handshake: the next clients of the pool offer it.
      for (let i = 1; i < 4; i++) swarm.pool.connect(i, 'websocket')
      await waitFor(() => swarm.connected.size === 4, { message: () => `3 more clients (errors: ${swarm.errors})` })
      const seen = accepted.slice(first)
      assert.deepEqual(seen.map((c) => c.servername), seen.map(() => servername), `SNI to ${target}`)
      assert.equal(seen[0].resumed, false, 'the first connection is a full handshake')
      assert.ok(seen.slice(1).every((c) => c.resumed), `later connections resume: ${JSON.stringify(seen)}`)
    }
  })

  await t.test('with --source-address too (connections opened by the simulator, then TLS)', async (t) => {
    // An address is no server name (SNI): Node warns once per process (DEP0123) when given one.
    /** @type {string[]} */
    const warnings = []
    const onWarning = (/** @type {Error & { code?: string }} */ w) => { warnings.push(`${w.code}: ${w.message}`) }
    process.on('warning', onWarning)
    t.after(() => process.off('warning', onWarning))
    for (const { name, engine, extra, transports } of CLIENTS) {
      for (const transport of transports) {
        const pool = openPool(t, engine, url, transport, trusted, 2, { sourcePorts: createSourcePorts(['127.0.0.2'], null, 1), ...extra })
        const first = from.length
        await waitFor(() => pool.connected.size === pool.clients, { message: () => `${name} ${transport} connected (errors: ${pool.errors})` })
        assertTimed(pool, `${name} ${transport} with --source-address`)
        // The server saw these clients' TLS connections come from the source address (every pool still open uses it).
        const seen = from.slice(first)
        assert.ok(seen.length >= pool.clients, `${name} ${transport}: ${seen.length} TLS connections for ${pool.clients} clients`)
        assert.deepEqual([...new Set(seen)], ['127.0.0.2'], `${name} ${transport}: TLS connections came from ${seen}`)
      }
    }
    assert.deepEqual(warnings.filter((w) => w.startsWith('DEP0123')), [], 'no IP address sent as the TLS server name')
  })

  await t.test('the plain WebSocket engine (--protocol websocket) over wss:// with --ca, and not without', async (t) => {
    const server = https.createServer({ cert: readFileSync(files.cert), key: readFileSync(files.key) })
    const wss = new WebSocketServer({ server })
    await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)))
    t.after(() => { wss.close(); server.close() })
    const wsUrl = `wss://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (server.address()).port}/feed`
    /** @type {string[]} */
    const reasons = []
    for (const wsClient of ['ws', 'builtin']) {
      const good = openPool(t, 'websocket', wsUrl, 'websocket', trusted, 2, { wsClient })
      await waitFor(() => good.connected.size === 2, { message: () => `${wsClient} connected over wss (errors: ${good.errors})` })
      const bad = openPool(t, 'websocket', wsUrl, 'websocket', null, 1, { wsClient })
      await waitFor(() => bad.errors.length > 0, { message: `a connect error without trust (${wsClient})` })
      reasons.push(bad.errors[0])
    }
    assert.equal(reasons[0], 'self-signed certificate (DEPTH_ZERO_SELF_SIGNED_CERT)')
    assert.equal(reasons[1], reasons[0], 'the built-in client fails as ws does')
    assert.match(certificateAdvice({ [reasons[0]]: 1 }), /^TLS: .*--ca FILE.*--insecure/, 'the summary names the fix')
  })

  await t.test('the handshake probe uses the trust, and a certificate failure names --ca and --insecure', async () => {
    const handshake = await probeHandshake({ url, path: '/socket.io/', http: inspectionSession({ url, path: '/socket.io/', ca: [files.cert] }) })
    assert.equal(handshake.pingIntervalMs, 1000)
    await assert.rejects(probeHandshake({ url, path: '/socket.io/' }), /DEPTH_ZERO_SELF_SIGNED_CERT[: ].*--ca FILE.*--insecure/)
  })

  await t.test('bad --ca input exits 2 naming the flag', async (t) => {
    const cases = [
      [join(files.dir, 'missing.pem'), /--ca cannot read .*missing\.pem.*ENOENT/],
      [files.notPem, /--ca .*not-pem\.txt.* is not a PEM certificate file/]
    ]
    for (const [file, expected] of cases) {
      const run = await runCli(t, [BIN, 'simulate', '--url', url, '--ca', String(file), '-c', '1', '--duration', '1s'])
      assert.equal(run.code, 2, run.stderr)
      assert.match(run.stderr, /** @type {RegExp} */ (expected))
    }
  })

  await t.test('simulate --insecure connects, says so loudly and records it; --ca connects', async (t) => {
    for (const flags of [['--insecure'], ['--ca', files.cert]]) {
      const run = await runCli(t, [BIN, 'simulate', '--url', url, ...flags, '-c', '2', '--duration', '2s', '--ramp', '0', '--engine', 'lean', '--json'])
      assert.equal(run.code, 0, run.stderr)
      const result = JSON.parse(run.stdout)
      assert.equal(result.clients.everConnected, 2, run.stderr)
      assert.equal(result.server.handshakeError, null)
      assert.equal(result.options.insecure, flags[0] === '--insecure')
      // The TLS handshake time is measured and shown beside the connect time.
      assert.ok(result.clients.tlsTime.count >= 2, JSON.stringify(result.clients.tlsTime))
      assert.match(run.stderr, /connected p50 \S+, p99 \S+, max \S+ \(TLS p50 \S+, p99 \S+\)/)
      if (flags[0] === '--insecure') assert.match(run.stderr, /INSECURE: TLS certificates were NOT verified/)
      else assert.doesNotMatch(run.stderr, /INSECURE/)
    }
  })
})
