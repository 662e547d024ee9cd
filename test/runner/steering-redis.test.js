/**
 * Steering a run whose simulators report through Redis (a private redis-server): the clients
 * action reaches every simulator as a control message naming each one's share of the whole,
 * and the reference server's own count follows.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createSteering, runTest } from '../../runner/index.js'
import { getRedisUrl } from '../helpers/redis.js'
import { waitFor } from '../helpers/wait.js'

test('--redis: clients N goes to every simulator through Redis, each its share; the server counts them', async (t) => {
  const redisUrl = await getRedisUrl(t)
  if (!redisUrl) return
  const steering = createSteering({ command: 'run' })
  /** @type {string[]} */
  const lines = []
  const running = runTest({
    redis: redisUrl,
    simulators: 2,
    clientsPerSimulator: 2,
    maxClients: 8,
    rounds: 'none',
    window: '1s',
    hold: '60s',
    pingInterval: '1s',
    ramp: '200ms',
    quiet: true
  }, { steering, log: (line) => lines.push(line) })
  t.after(async () => {
    await steering.act('stop', {}, 'api')
    await running.catch(() => {})
  })
  const connected = async () => {
    const url = lines.map((l) => /reference server (http:\/\/\S+)/.exec(l)?.[1]).find(Boolean)
    return url ? Number((/** @type {any} */ (await (await fetch(new URL('/stats', url))).json())).connected) : -1
  }
  await waitFor(async () => (await connected()) === 4, { timeoutMs: 60000, message: () => `4 connections: ${lines.join('\n')}` })
  // Each simulator registered before its clients connected: both get their share.
  const grown = await steering.act('clients', { clients: 7 }, 'api')
  assert.ok(grown.ok, JSON.stringify(grown))
  assert.equal(grown.ok && grown.event.message, '7 clients over 2 simulators, sent through Redis (each up to its own room)')
  await waitFor(async () => (await connected()) === 7, { timeoutMs: 60000, message: 'the server counts 4 + 3 connections' })
  await steering.act('stop', {}, 'api')
  const result = await running
  assert.deepEqual(result.actions?.map((a) => [a.action, a.value, a.ok]), [['clients', 7, true], ['stop', null, true]])
})
