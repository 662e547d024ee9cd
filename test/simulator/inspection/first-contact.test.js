/**
 * A first contact that no client can pass stops before the swarm: a self-signed server and no
 * --ca. The look names the fault and the fix, and simulate, run and capacity exit 2 with
 * nothing started, instead of ramping a swarm that can only count failures; --wait-for-server
 * does not wait for a certificate to become trusted. The same for a --login server whose
 * certificate is not trusted.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { BIN, runCli } from '../../helpers/cli.js'
import { makeCertificate, startHttpsServer } from '../../helpers/https-server.js'
import { startIoServer } from '../../helpers/io-server.js'
import { inspectServer, normalizeSimOptions } from '../../../simulator/index.js'

const FIX =
  new RegExp(/DEPTH_ZERO_SELF_SIGNED_CERT on polling and on WebSocket: .*give its CA \(or the certificate itself\) with --ca FILE, /.source +
    /or skip verification with --insecure.*no client can connect with this trust, so nothing was started/.source)

test('a certificate no client trusts stops simulate, run and capacity before the swarm: exit 2, the fault and the fix', async (t) => {
  const files = makeCertificate(t)
  if (!files) return
  const { url } = await startHttpsServer(t, files)
  const runs = await Promise.all([
    ['simulate', '--url', url, '-c', '5', '--duration', '30s'],
    ['run', '--target', url, '--rounds', 'none', '--hold', '30s', '--clients', '5', '--simulators', '1'],
    ['capacity', '--target', url, '--rounds', 'none', '--slo', 'p99<1s', '--simulators', '1', '--start', '2', '--max', '4']
  ].map((args) => runCli(t, [BIN, ...args], { timeoutMs: 90000 })))
  for (const [i, { code, stderr }] of runs.entries()) {
    assert.equal(code, 2, `${['simulate', 'run', 'capacity'][i]}: ${stderr}`)
    assert.match(stderr, FIX)
    assert.doesNotMatch(stderr, /connected \d+\/|simulators \d+\/\d+|clients ×/, 'no swarm started')
  }
})

test('--wait-for-server does not wait for a certificate to be trusted; --ca passes the look', async (t) => {
  const files = makeCertificate(t)
  if (!files) return
  const { url } = await startHttpsServer(t, files)
  const waited = inspectServer(normalizeSimOptions({ url, waitForServer: '10m' }))
  await assert.rejects(waited, (error) => {
    assert.equal(/** @type {import('../../../lib/errors.js').IoswarmError} */ (error).exitCode, 2)
    assert.match(/** @type {Error} */ (error).message, FIX)
    return true
  })
  const server = await inspectServer(normalizeSimOptions({ url, ca: files.cert }))
  assert.equal(server.handshakeError, null)
  assert.equal(server.eio, 4)
})

test('a --login server whose certificate no client trusts stops simulate and run before the swarm: exit 2 and the fix', async (t) => {
  const files = makeCertificate(t)
  if (!files) return
  const { url: loginServer } = await startHttpsServer(t, files)
  // The app itself is plain HTTP: only the login's server has the certificate.
  const { url } = await startIoServer(t)
  const login = ['--login', `POST ${loginServer}/login user=u{{i}}`]
  const runs = await Promise.all([
    ['simulate', '--url', url, '-c', '3', '--duration', '30s', ...login],
    ['run', '--target', url, '--rounds', 'none', '--hold', '30s', '--clients', '3', '--simulators', '1', ...login]
  ].map((args) => runCli(t, [BIN, ...args], { timeoutMs: 90000 })))
  for (const [i, { code, stderr }] of runs.entries()) {
    assert.equal(code, 2, `${['simulate', 'run'][i]}: ${stderr}`)
    assert.match(
      stderr,
      new RegExp(/--login POST https:\/\/127\.0\.0\.1:\d+\/login failed: DEPTH_ZERO_SELF_SIGNED_CERT: /.source +
        /.*--ca FILE.*--insecure; no client can log in with this trust, so nothing was started/.source)
    )
  }
})

test('a namespace that refuses an identity every client shares stops simulate, ' +
  'run and capacity before the swarm; one that differs per client does not', async (t) => {
  const { io, url } = await startIoServer(t)
  let refusals = 0
  io.use((socket, next) => {
    if (socket.handshake.auth?.token === 'good') return next()
    refusals++
    next(new Error('no token'))
  })
  const runs = await Promise.all([
    ['simulate', '--url', url, '-c', '5', '--duration', '30s'],
    ['run', '--target', url, '--rounds', 'none', '--hold', '30s', '--clients', '5', '--simulators', '1'],
    ['capacity', '--target', url, '--rounds', 'none', '--slo', 'p99<1s', '--simulators', '1', '--start', '2', '--max', '4', '--auth', '{"token":"bad"}']
  ].map((args) => runCli(t, [BIN, ...args], { timeoutMs: 90000 })))
  for (const [i, { code, stderr }] of runs.entries()) {
    assert.equal(code, 2, `${['simulate', 'run', 'capacity'][i]}: ${stderr}`)
    assert.match(
      stderr,
      new RegExp(/the server refused namespace \/: no token: every client sends this same identity, /.source +
        /so none can connect and nothing was started; give what the server wants \(--auth, --query, --header, --cookie, --login/.source)
    )
    assert.doesNotMatch(stderr, /connected \d+\/|simulators \d+\/\d+|clients ×/, 'no swarm started')
  }
  assert.equal(refusals, 3, 'one look each, no client after it')
  // A token that differs per client: the first one's refusal says nothing of the others, so the look only names it.
  const server = await inspectServer(normalizeSimOptions({ url, auth: '{"token":"{{i}}"}' }))
  assert.equal(server.diagnosis, 'the server refused namespace /: no token')
})
