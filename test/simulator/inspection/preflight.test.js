import { test } from 'node:test'
import assert from 'node:assert/strict'
import { CODES, IoswarmError } from '../../../lib/errors.js'
import { parseTransportMix } from '../../../lib/values/parsers.js'
import { checkPreflight, FD_MARGIN, needOf, pollingShareOf, readLimits, upgradeShareOf } from '../../../simulator/inspection/preflight.js'
import { normalizeSimOptions } from '../../../simulator/sim-options.js'
import { POST_CONNECTIONS } from '../../../simulator/wire/limits.js'
import { execFile } from 'node:child_process'
import { ROOT } from '../../helpers/cli.js'

const LIMITS = { fdSoft: 20000, fdHard: 20000, ports: 28232, portRange: '32768 60999', freeBytes: 8 * 1024 ** 3 }
const need = (/** @type {Partial<import('../../../simulator/inspection/preflight.js').Need>} */ over) => ({
  clients: 1000,
  processes: 1,
  destinations: 1,
  engine: 'lean',
  pollingShare: 0,
  ...over
})

test('a run well inside the limits passes with no warning, and says what it needs', () => {
  const result = checkPreflight(need({ clients: 1000 }), LIMITS)
  assert.deepEqual(result.warnings, [])
  assert.equal(result.needs.fdsPerProcess, 1000 + FD_MARGIN)
  assert.equal(result.needs.portsPerDestination, 1000)
})

test('socket.io-client polling needs two descriptors per client; more than the fd limit stops with the limit, the numbers and how to raise it', () => {
  assert.throws(() => checkPreflight(need({ clients: 12000, engine: 'sio', pollingShare: 1 }), LIMITS), (error) => {
    assert.ok(error instanceof IoswarmError)
    assert.equal(error.code, CODES.LIMIT)
    assert.equal(error.exitCode, 2)
    assert.match(error.message, /file descriptors per process \(ulimit -n\): needs 24064, limit 20000/)
    assert.match(error.message, /ulimit -n 24064/)
    assert.match(error.message, /--workers 2/)
    return true
  })
})

for (const httpClient of ['undici', 'builtin']) {
  test(`lean polling on ${httpClient} needs one descriptor per client and a bounded pool for posts; upgrading clients two`, () => {
    // 19,000 polling clients fit one process under a 20,000 descriptor limit (two per client would need 38,064).
    const options = (/** @type {string} */ transport) =>
      normalizeSimOptions({ url: 'http://127.0.0.1:3000', clients: 19000, engine: 'lean', transport, httpClient })
    const polling = checkPreflight(needOf(options('polling'), 1), LIMITS)
    assert.equal(polling.needs.fdsPerProcess, 19000 + POST_CONNECTIONS + FD_MARGIN)
    assert.throws(() => checkPreflight(needOf(options('upgrade'), 1), LIMITS), (error) => {
      assert.match(/** @type {Error} */ (error).message, /needs 38192, limit 20000.*--workers 2`?$/m)
      assert.doesNotMatch(/** @type {Error} */ (error).message, /--http-client/)
      return true
    })
  })
}
test('the pool of posts is per source address, and never more than the clients', () => {
  const twoAddresses = checkPreflight(need({ clients: 4000, pollingShare: 1, upgradeShare: 0, sourceAddresses: 2 }), LIMITS)
  assert.equal(twoAddresses.needs.fdsPerProcess, 4000 + 2 * POST_CONNECTIONS + FD_MARGIN)
  assert.equal(checkPreflight(need({ clients: 100, pollingShare: 1, upgradeShare: 0 }), LIMITS).needs.fdsPerProcess, 200 + FD_MARGIN)
  assert.equal(upgradeShareOf(parseTransportMix('websocket:2,polling:1,upgrade:1')), 0.25)
})

test('socket.io-client polling over the fd limit is told that the lean engine needs about one descriptor per polling client', () => {
  assert.throws(() => checkPreflight(need({ clients: 12000, engine: 'sio', pollingShare: 1 }), LIMITS), /--workers 2, or poll with --engine lean/)
})

test('workers divide the descriptors per process; destinations divide the ports', () => {
  assert.throws(
    () => checkPreflight(need({ clients: 40000 }), LIMITS),
    /ephemeral ports per \(source address, destination\).*needs 40000, limit 28232.*--source-address.*ip addr add.*more destinations/s
  )
  const result = checkPreflight(need({ clients: 40000, processes: 4, destinations: 2 }), LIMITS)
  assert.equal(result.needs.fdsPerProcess, 10000 + FD_MARGIN)
  assert.equal(result.needs.portsPerDestination, 20000)
  assert.equal(result.warnings.length, 0)
})

test('over 80 % of a limit is a warning, not an error', () => {
  const result = checkPreflight(need({ clients: 17000, processes: 1, destinations: 1 }), LIMITS)
  assert.equal(result.warnings.length, 1)
  assert.match(result.warnings[0], /file descriptors per process.*needs 17064, limit 20000/)
})

test('memory is estimated by engine and transport', () => {
  const small = { ...LIMITS, freeBytes: 200 * 1024 ** 2 }
  assert.ok(checkPreflight(need({ clients: 1000, engine: 'lean' }), small))
  assert.throws(() => checkPreflight(need({ clients: 3000, engine: 'sio', pollingShare: 1 }), small), /memory \(available now\): needs \d+ MiB, limit 200 MiB/)
})

test('the polling share of a transport mix counts upgrade clients', () => {
  assert.equal(pollingShareOf(parseTransportMix('websocket')), 0)
  assert.equal(pollingShareOf(parseTransportMix('websocket:2,polling:1,upgrade:1')), 0.5)
})

test('this machine\'s limits are read from /proc', { skip: process.platform !== 'linux' && 'Linux only' }, () => {
  const limits = readLimits()
  assert.ok(limits.fdSoft > 0 && limits.fdHard >= limits.fdSoft)
  assert.ok(limits.ports > 0 && limits.freeBytes > 0)
})

test('simulate with more clients than the hard fd limit exits 2 before connecting', async () => {
  // A lowered hard limit (sh's ulimit) makes the test the same on every machine; nothing listens on port 9.
  const run = await new Promise((resolve) => {
    const args = ['-c', 'ulimit -n 512 && exec "$0" "$@"', process.execPath,
      'bin/ioswarm.js', 'simulate', '-c', '600', '--url', 'http://127.0.0.1:9', '--duration', '5s']
    execFile('sh', args,
      { cwd: ROOT, timeout: 20000, env: { ...process.env, NO_COLOR: '1' } },
      (error, stdout, stderr) => resolve({ code: error ? /** @type {any} */ (error).code : 0, stdout, stderr }))
  })
  assert.equal(run.code, 2, run.stderr)
  assert.match(run.stderr, /file descriptors per process \(ulimit -n\): needs 664, limit 512/)
  assert.match(run.stderr, /ulimit -n 664.*hard limit 512.*--workers 2/)
  assert.equal(run.stdout, '')
})

test('needOf: what a swarm of these options needs, over its processes (the swarm\'s and --workers\' one reading)', () => {
  const options = normalizeSimOptions({
    url: 'http://127.0.0.1-127.0.0.2:3000',
    clients: 900,
    engine: 'lean',
    transport: 'websocket:50,polling:20,upgrade:30',
    httpClient: 'undici'
  })
  assert.deepEqual(needOf(options, 3), {
    clients: 900,
    processes: 3,
    destinations: 2,
    sourceAddresses: 1,
    engine: 'lean',
    pollingShare: 0.5,
    upgradeShare: 0.3
  })
})
