import { test } from 'node:test'
import assert from 'node:assert/strict'
import { runTest } from '../../runner/index.js'
import { lookAtServer } from '../../runner/look.js'
import { appTargets, normalizeRunOptions } from '../../runner/run-options.js'
import { startIoServer } from '../helpers/io-server.js'

const SECRET = 'run-auth-s3cret'
/** A short run with the embedded collector: one simulator, no ramp, a 1 s heartbeat. */
const QUICK = { simulators: 1, pingInterval: '1s', ramp: '0', messageTimeout: '2s', quiet: true }

/**
 * The reference server's last sample of a distribution.
 * @param {import('../../lib/schema/result-schema.js').RunResult} result
 */
function lastServerSample (result) {
  const samples = result.distributions[0].server
  assert.ok(samples.length > 0, 'the reference server was sampled')
  return /** @type {import('../../lib/schema/result-schema.js').ServerSample} */ (samples.at(-1))
}

test('--auth-token reaches the run\'s reference server: clients with another token are refused and counted; result.json never holds it', async () => {
  const result = await runTest({ ...QUICK, clients: 3, rounds: '1x100', connectTimeout: '1s', authToken: SECRET, auth: '{"token":"not-it-{{i}}"}' })
  const d = result.distributions[0]
  assert.equal(d.clients.connected, 0)
  assert.ok(Object.keys(d.clients.errors ?? {}).some((reason) => /unauthorized/.test(reason)), JSON.stringify(d.clients.errors))
  assert.ok((lastServerSample(result).app?.refused ?? 0) >= 3, JSON.stringify(lastServerSample(result).app))
  assert.equal(result.options.authToken, '(redacted)')
  assert.ok(!JSON.stringify(result).includes(SECRET))
})

test('--auth-token alone: the run\'s simulators bring it from their environment ' +
  '({{env.IOSWARM_AUTH_TOKEN}}), never in their options or the results', async () => {
  assert.equal(normalizeRunOptions({ authToken: SECRET }).simulatorInput.auth, '{"token":"{{env.IOSWARM_AUTH_TOKEN}}"}')
  assert.equal(normalizeRunOptions({ authToken: SECRET, query: 'token=x' }).simulatorInput.auth, undefined, 'an identity of their own wins')
  const result = await runTest({ ...QUICK, clients: 3, rounds: '1x100', authToken: SECRET })
  const d = result.distributions[0]
  assert.equal(d.clients.connected, 3)
  assert.deepEqual(d.messages.map((m) => [m.received, m.missing]), [[3, 0]])
  assert.equal(lastServerSample(result).app?.refused, 0, 'the runner\'s first contact brought it too')
  assert.ok(!JSON.stringify(result).includes(SECRET))
})

test('--namespace (twice): the run\'s server serves each and its broadcasts go into each', async () => {
  const result = await runTest({ ...QUICK, clients: 4, rounds: '2x100', namespace: ['/live', '/chat'] })
  const d = result.distributions[0]
  // One message per id and namespace (the run's merged messages do not name their namespace yet).
  const seen = d.messages.map((m) => [m.id, m.received, m.missing]).sort()
  assert.deepEqual(seen, [['1.1', 4, 0], ['1.1', 4, 0], ['1.2', 4, 0], ['1.2', 4, 0]])
  assert.deepEqual(lastServerSample(result).app?.namespaces, { '/live': 4, '/chat': 4 })
  assert.equal(lastServerSample(result).connected, 4, 'each client is one connection')
  assert.deepEqual(result.options.namespaces, ['/live', '/chat'])
})

test('with the token in the simulators\' handshake (simulate --auth), every client connects; the runner\'s first contact brings it too', async () => {
  const result = await runTest({ ...QUICK, clients: 4, rounds: '1x100', authToken: SECRET, auth: JSON.stringify({ token: SECRET }) })
  const d = result.distributions[0]
  assert.equal(d.clients.connected, 4)
  assert.deepEqual(d.messages.map((m) => [m.received, m.missing]), [[4, 0]])
  assert.equal(lastServerSample(result).app?.refused, 0)
})

test('--rooms R: the run broadcasts round-robin over the simulators\' rooms; each message reaches its room only', async () => {
  const result = await runTest({ ...QUICK, clients: 4, rounds: '4x100', rooms: 2, join: 'join {"room":"{{room}}"}' })
  const d = result.distributions[0]
  assert.equal(result.options.rooms, 2)
  assert.deepEqual(d.messages.map((m) => [m.id, m.received, m.missing]), [['1.1', 2, 0], ['1.2', 2, 0], ['1.3', 2, 0], ['1.4', 2, 0]])
  assert.equal(lastServerSample(result).app?.rooms.joins, 4)
})

test('appTargets reads the simulators\' rooms and namespaces, checked as the broadcaster checks them', () => {
  assert.deepEqual(appTargets({}), { rooms: null, namespaces: null })
  assert.deepEqual(appTargets({ rooms: '3', namespace: '/a' }), { rooms: 3, namespaces: ['/a'] })
  assert.deepEqual(appTargets({ rooms: 1, namespace: ['/a', '/b', '/a'] }), { rooms: 1, namespaces: ['/a', '/b'] })
  assert.throws(() => appTargets({ rooms: 0 }), /^IoswarmError: --rooms must be a whole number from 1/)
  assert.throws(() => appTargets({ namespace: 'chat' }), /^IoswarmError: --namespace must be a namespace/)
})

test('--auth-token: kept for the server, refused with --target', () => {
  assert.equal(normalizeRunOptions({ authToken: SECRET }).authToken, SECRET)
  assert.equal(normalizeRunOptions({}).authToken, null)
  assert.throws(
    () => normalizeRunOptions({ authToken: SECRET, target: 'http://127.0.0.1:1', token: 't' }),
    /^IoswarmError: --auth-token is for the reference server that run starts/
  )
})

test('one look at the server per run: the runner inspects once and hands it to its 3 simulators, which do not look again', async (t) => {
  const { io, url } = await startIoServer(t)
  let sessions = 0
  io.engine.on('connection', () => { sessions++ })
  const run = { ...QUICK, target: url, simulators: 3, clientsPerSimulator: 3, hold: '1s' }
  // What one look costs this server (Engine.IO sessions: the handshake probes and the first contact).
  await lookAtServer(normalizeRunOptions(run), url, () => {})
  const look = sessions
  assert.ok(look > 0, 'a look opens sessions')
  const result = await runTest(run)
  const { connected } = result.distributions[0].clients
  assert.equal(connected, 9, '3 clients in each of 3 simulators')
  assert.equal(sessions - look, connected + look, `the clients and one look, not one per simulator (a look is ${look} sessions)`)
})
