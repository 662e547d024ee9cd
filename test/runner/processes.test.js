import { test } from 'node:test'
import assert from 'node:assert/strict'
import { startServerProcess } from '../../runner/processes.js'

test('the reference server process takes any token, even one that looks like a flag', async (t) => {
  const token = '-27jmXZwTCcDsAeEavQIy'
  const server = await startServerProcess({ token, pingIntervalMs: 1000 })
  t.after(() => server.stop())
  const refused = await fetch(`${server.url}/broadcast`, { method: 'POST', headers: { authorization: 'Bearer wrong' } })
  assert.equal(refused.status, 401)
  const accepted = await fetch(`${server.url}/broadcast`, { method: 'POST', headers: { authorization: `Bearer ${token}` } })
  assert.equal(accepted.status, 200)
  await server.stop()
  assert.equal((await server.exited).code, 0, 'SIGTERM stops it cleanly')
})

test('a stopped (SIGSTOP) child still gets its SIGTERM and exits cleanly, not by the SIGKILL after the grace', async (t) => {
  const server = await startServerProcess({ token: 'x', pingIntervalMs: 1000 })
  t.after(() => { if (server.running()) server.process.kill('SIGKILL') })
  server.process.kill('SIGSTOP')
  // The grace is long enough that a SIGKILL after it would show as signal 'SIGKILL'.
  await server.stop(15000)
  assert.deepEqual(await server.exited, { code: 0, signal: null }, 'resumed, handled SIGTERM')
  assert.equal(server.running(), false)
})
