import { test } from 'node:test'
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { createRedisCollector } from '../../../results/collector/index.js'
import { formatFleetStatus, readFleetStatus, simulatorState, summarizeFleet } from '../../../infra/fleet/status.js'
import { getRedisUrl } from '../../helpers/redis.js'
import { writeFleet } from '../fixtures/fleet-run.js'

test('alive, finished and stale by host, with totals', async (t) => {
  const redisUrl = await getRedisUrl(t)
  if (!redisUrl) return
  const runId = `fleet-status-${randomUUID()}`
  const collector = await createRedisCollector({ redisUrl })
  t.after(async () => {
    await collector.deleteRun(runId)
    await collector.close()
  })
  await writeFleet(collector, runId)

  const status = await readFleetStatus({ redisUrl, runId })
  assert.equal(status.runId, runId)
  assert.deepEqual(status.hosts.map((h) => [h.hostname, h.simulators.map((s) => [s.id, s.state])]), [
    ['host-2', [['h2-0', 'alive'], ['h2-1', 'finished']]],
    ['host-3', [['h3-0', 'stale']]]
  ])
  assert.deepEqual(status.totals, { alive: 1, finished: 1, stale: 1, clientsConnected: 198, clientsTarget: 600 })
  const text = formatFleetStatus(status)
  assert.match(text, /^host-2: 1\/2 alive$/m)
  assert.match(text, /^ {2}h3-0 {2}stale .* never heartbeat$/m)
  assert.match(text, /^total: 1 alive, 1 finished, 1 stale; 198\/600 clients connected$/m)
})

test('a run nobody joined says so', () => {
  assert.equal(formatFleetStatus(summarizeFleet('r0', [])), 'run r0: no simulator has registered')
  assert.equal(simulatorState(/** @type {any} */ ({ alive: false, final: null })), 'stale')
})
