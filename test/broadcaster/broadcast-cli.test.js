import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createCollector } from '../../results/index.js'
import { runCli } from '../helpers/cli.js'
import { getRedisUrl } from '../helpers/redis.js'
import { startTestServer, waitForClients } from '../helpers/swarm.js'
import { waitFor } from '../helpers/wait.js'

test('broadcast --redis --run prints each round\'s results across the run\'s simulators', async (t) => {
  const redisUrl = await getRedisUrl(t)
  if (!redisUrl) return
  const runId = `t-bcast-${process.pid}`
  const collector = await createCollector({ redisUrl })
  t.after(async () => {
    await collector.deleteRun(runId)
    await collector.close()
  })
  const server = await startTestServer(t)
  const sims = ['a', 'b'].map((id) => runCli(t, ['bin/ioswarm.js', 'simulate', '--quiet', '--ramp', '0', '--url', server.url, '--clients', '8',
    '--redis', redisUrl, '--run', runId, '--id', id, '--message-timeout', '3s'], { timeoutMs: 60000 }))
  await waitForClients(server, 16)
  await waitFor(async () => (await collector.listSimulators(runId)).filter((s) => s.alive).length === 2, { message: 'both simulators alive' })

  const { code, stdout, stderr } = await runCli(t, ['bin/ioswarm.js', 'broadcast', '--url', server.url, '--token', 'test-token',
    '--redis', redisUrl, '--run', runId, '--rounds', '2x100,1x100', '--message-timeout', '3s', '--json'], { timeoutMs: 60000 })
  assert.equal(code, 0, stderr)
  assert.match(stderr, /clock offset to Redis: -?\d+\.\d+ ms ± \d+\.\d+ ms/)
  assert.match(stderr, /round 1: 2 messages × 2 simulators, reached 32, missing 0, relative p50 /)
  assert.match(
    stderr,
    /round 1: .*; simulator floor p50 [\d.]+m?s max [\d.]+m?s \(in a [\d.]+m?s spread\), busiest \d+%/,
    'the simulators\' floor, through Redis'
  )
  assert.match(stderr, /round 2: 1 messages × 2 simulators, reached 16, missing 0/)
  const result = JSON.parse(stdout)
  assert.deepEqual(result.rounds.map((/** @type {any} */ r) => [r.round, r.complete, r.result.received]), [[1, true, 32], [2, true, 16]])

  await collector.publishControl(runId, { type: 'stop' })
  for (const sim of await Promise.all(sims)) assert.equal(sim.code, 0, sim.stderr)
})

test('broadcast --run without --redis is a usage error', async (t) => {
  const { code, stderr } = await runCli(t, ['bin/ioswarm.js', 'broadcast', '--token', 't', '--run', 'x'], { timeoutMs: 15000 })
  assert.equal(code, 2)
  assert.match(stderr, /--run needs --redis/)
})
