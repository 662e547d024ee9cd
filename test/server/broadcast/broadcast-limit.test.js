import assert from 'node:assert/strict'
import { test } from 'node:test'
import { io } from 'socket.io-client'
import { CODES } from '../../../lib/errors.js'
import { ADMIN_NAMESPACE } from '../../../lib/protocol.js'
import { createBroadcastLimiter, parseBroadcastRate } from '../../../server/broadcast/broadcast-limit.js'
import { normalizeServeOptions } from '../../../server/server-options.js'
import { startServerProcess } from '../../../runner/processes.js'
import { runCli } from '../../helpers/cli.js'
import { startTestServer } from '../../helpers/swarm.js'

test('rates parse per second and per minute; 0 and off mean no limit; the rest is a usage error', () => {
  assert.equal(parseBroadcastRate('100/s'), 100)
  assert.equal(parseBroadcastRate('600/m'), 10)
  assert.equal(parseBroadcastRate('25'), 25)
  assert.equal(parseBroadcastRate(0), Infinity)
  assert.equal(parseBroadcastRate('off'), Infinity)
  for (const bad of ['-1/s', '10/h', 'fast', '', '1e9999']) {
    assert.throws(
      () => parseBroadcastRate(bad),
      (error) => /** @type {any} */ (error).code === CODES.INVALID_OPTION && /--broadcast-rate/.test(/** @type {Error} */ (error).message),
      bad
    )
  }
})

test('the bucket holds one second of the rate and refills with time', () => {
  let nowMs = 0
  const limiter = createBroadcastLimiter(4, () => nowMs)
  const takes = () => Array.from({ length: 5 }, () => limiter.take().ok)
  assert.deepEqual(takes(), [true, true, true, true, false])
  const refused = limiter.take()
  assert.deepEqual(refused, { ok: false, retryAfterMs: 250 })
  nowMs += 500
  assert.deepEqual(takes(), [true, true, false, false, false])
  nowMs += 10000
  assert.deepEqual(takes(), [true, true, true, true, false], 'never more than the capacity after a long pause')
  assert.ok(createBroadcastLimiter(Infinity).take().ok)
})

test('over the rate, POST /broadcast answers 429 with Retry-After and the admin emit acks an error', async (t) => {
  // 1 a minute: the bucket holds one broadcast and does not refill during the test.
  const server = await startTestServer(t, { broadcastRate: '1/m' })
  const post = (/** @type {string} */ token) => fetch(`${server.url}/broadcast`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: '{}' })
  assert.equal((await post('test-token')).status, 200)
  const limited = await post('test-token')
  assert.equal(limited.status, 429)
  assert.ok(Number(limited.headers.get('retry-after')) >= 1, `retry-after ${limited.headers.get('retry-after')}`)
  assert.match(/** @type {{ error: string }} */ (await limited.json()).error, /rate limit/)
  assert.equal((await post('wrong')).status, 401, 'a stranger is refused for the token, and cannot drain the bucket')

  const admin = io(`${server.url}${ADMIN_NAMESPACE}`, { auth: { token: 'test-token' }, transports: ['websocket'], reconnection: false })
  t.after(() => admin.close())
  const reply = await admin.timeout(5000).emitWithAck('broadcast', {})
  assert.equal(reply.ok, false)
  assert.match(reply.error, /rate limit/)
  assert.ok(reply.retryAfterMs > 0)
})

test('serve --broadcast-rate: 100/s by default, a bad value exits 2 naming the flag', async (t) => {
  assert.equal(normalizeServeOptions({}).broadcastRate, '100/s')
  assert.equal(normalizeServeOptions({ broadcastRate: '600/m' }).broadcastRate, '600/m')
  const { code, stderr } = await runCli(t, ['bin/ioswarm.js', 'serve', '--port', '0', '--broadcast-rate', 'fast'], { timeoutMs: 20000 })
  assert.equal(code, 2)
  assert.match(stderr, /--broadcast-rate/)
})

test('the server the runner starts for itself has no rate limit: fast rounds are not refused', async (t) => {
  const server = await startServerProcess({ token: 'runner-token', pingIntervalMs: 25000 })
  t.after(() => server.stop(3000))
  // Twice the default bucket, at once.
  const statuses = await Promise.all(
    Array.from({ length: 200 }, () =>
      fetch(`${server.url}/broadcast`, { method: 'POST', headers: { authorization: 'Bearer runner-token' }, body: '{}' }).then((r) => r.status)
    )
  )
  assert.deepEqual([...new Set(statuses)], [200])
})
