import { test } from 'node:test'
import assert from 'node:assert/strict'
import { runBroadcast } from '../../broadcaster/index.js'
import { estimateClockOffset } from '../../lib/measure/clock-offset.js'
import { mergeEncoded, summarize } from '../../lib/measure/histogram.js'
import { createCollector, waitForRound } from '../../results/index.js'
import { runCli } from '../helpers/cli.js'
import { getRedisUrl } from '../helpers/redis.js'
import { startTestServer, waitForClients } from '../helpers/swarm.js'
import { waitFor } from '../helpers/wait.js'

/**
 * Starts `ioswarm simulate` joined to a run through Redis; resolves with its exit and output.
 * @param {import('node:test').TestContext} t
 * @param {{ url: string, redisUrl: string, runId: string, id: string, clients: number, env?: Record<string, string> }} o
 */
function startSimulator (t, o) {
  const done = runCli(t, ['bin/ioswarm.js', 'simulate', '--json', '--quiet', '--ramp', '0', '--url', o.url, '--clients', String(o.clients),
    '--redis', o.redisUrl, '--run', o.runId, '--id', o.id, '--message-timeout', '3s'], {
    env: o.env,
    timeoutMs: 90000
  })
  return { done, kill: (/** @type {NodeJS.Signals} */ sig) => done.child.kill(sig) }
}

/**
 * A Redis collector and a fresh run id; the run is deleted and the collector closed after.
 * @param {import('node:test').TestContext} t
 * @param {string} redisUrl
 * @param {string} name
 */
async function runCollector (t, redisUrl, name) {
  const collector = await createCollector({ redisUrl })
  const runId = `t-${name}-${process.pid}`
  t.after(async () => {
    await collector.deleteRun(runId)
    await collector.close()
  })
  return { collector, runId }
}

test('three simulators through Redis: totals are sums, percentiles are merged, a killed one goes stale and keeps its reports', async (t) => {
  const redisUrl = await getRedisUrl(t)
  if (!redisUrl) return
  const { collector, runId } = await runCollector(t, redisUrl, 'three')
  await collector.registerRun(runId, { name: 'three', startedAt: Date.now(), options: {} })
  const server = await startTestServer(t)
  const sims = ['s1', 's2', 's3'].map((id) => startSimulator(t, { url: server.url, redisUrl, runId, id, clients: 10 }))
  await waitForClients(server, 30)
  await waitFor(async () => (await collector.listSimulators(runId)).filter((s) => s.alive).length === 3, { message: '3 simulators alive' })

  // Round 1 reaches all three simulators.
  const round1 = await runBroadcast({ url: server.url, token: 'test-token', rounds: '3x100' })
  const r1 = await waitForRound(collector, runId, { round: 1, sent: round1.messages, timeoutMs: 20000 })
  assert.equal(r1.complete, true)
  assert.equal(r1.round?.received, 90)

  // s3 is killed without a chance to flush: it goes stale, its round 1 reports stay.
  sims[2].kill('SIGKILL')
  await waitFor(async () => (await collector.listSimulators(runId)).find((s) => s.id === 's3')?.stale, { timeoutMs: 20000, message: 's3 stale' })
  await waitForClients(server, 20)
  // Round 2 (ids 2.1, 2.2) through the server directly, after s3 is gone.
  for (const seq of [1, 2]) await server.broadcast({ round: 2, seq, count: 1 })
  await waitForRound(collector, runId, { round: 2, sent: [{ id: '2.1' }, { id: '2.2' }], timeoutMs: 20000 })

  await collector.publishControl(runId, { type: 'stop' })
  const [one, two] = await Promise.all([sims[0].done, sims[1].done])
  assert.equal(one.code, 0, one.stderr)
  assert.equal(two.code, 0, two.stderr)
  const results = [JSON.parse(one.stdout), JSON.parse(two.stdout)]

  const messages = await collector.getMessages(runId)
  for (const id of ['1.1', '1.2', '1.3']) {
    const m = messages.find((x) => x.id === id)
    assert.equal(m?.simulators, 3, `${id} reported by all three`)
    assert.equal(m?.received, 30)
    assert.equal(m?.missing, 0)
  }
  for (const id of ['2.1', '2.2']) {
    const m = messages.find((x) => x.id === id)
    const own = results.map((r) => r.messages.find((/** @type {{ id: string }} */ x) => x.id === id))
    assert.equal(m?.simulators, 2)
    assert.equal(m?.received, own[0].received + own[1].received, `${id}: the collector's total is the sum`)
    // Merged percentiles equal those of one histogram of every client's delay.
    const merged = summarize(mergeEncoded(own.map((o) => o.relative.histogram)))
    const percentiles = (/** @type {{ p50: number, p90: number, p99: number, count: number } | undefined} */ s) => [s?.p50, s?.p90, s?.p99, s?.count]
    assert.deepEqual(percentiles(m?.relative), percentiles(merged))
  }
  const statuses = await collector.listSimulators(runId)
  assert.deepEqual(statuses.map((s) => [s.id, s.stale, s.final !== null]), [['s1', false, true], ['s2', false, true], ['s3', true, false]])

  // A report sent again (a simulator re-sending after a reconnect) counts once.
  const again = results[0].messages.find((/** @type {{ id: string }} */ x) => x.id === '2.1')
  await collector.reportMessage(runId, 's1', again)
  assert.equal((await collector.getMessages(runId)).find((x) => x.id === '2.1')?.received, messages.find((x) => x.id === '2.1')?.received)
})

test('a simulator whose clock is 4 s off measures its offset through Redis and corrects absolute latency', async (t) => {
  const redisUrl = await getRedisUrl(t)
  if (!redisUrl) return
  const { collector, runId } = await runCollector(t, redisUrl, 'skew')
  // The server runs in this process: its clock is ours, measured against Redis TIME.
  const sender = await estimateClockOffset(() => collector.time(), { reference: 'redis' })
  await collector.registerRun(runId, {
    name: 'skew',
    startedAt: Date.now(),
    options: { senderClockOffsetMs: sender.offsetMs, senderClockUncertaintyMs: sender.uncertaintyMs }
  })
  const server = await startTestServer(t)
  const sim = startSimulator(t, { url: server.url, redisUrl, runId, id: 'skewed', clients: 5, env: { IOSWARM_CLOCK_SKEW_MS: '4000' } })
  await waitForClients(server, 5)
  await runBroadcast({ url: server.url, token: 'test-token', rounds: '3x100' })
  await waitFor(async () => (await collector.getMessages(runId)).length === 3, { timeoutMs: 20000 })
  await collector.publishControl(runId, { type: 'stop' })
  const { code, stdout, stderr } = await sim.done
  assert.equal(code, 0, stderr)
  const result = JSON.parse(stdout)
  assert.equal(result.clock.reference, 'redis')
  assert.ok(
    Math.abs(result.clock.offsetMs + 4000) <= result.clock.uncertaintyMs + 2,
    `offset ${result.clock.offsetMs} ± ${result.clock.uncertaintyMs} should be about -4000`
  )
  // The absolute delays carry the uncertainty of the clock that corrected them: the skewed simulator's, as the collector has it.
  const skewed = (await collector.listSimulators(runId)).find((s) => s.id === 'skewed')
  assert.ok(skewed && skewed.clock.uncertaintyMs > 0, `the simulator's clock uncertainty: ${JSON.stringify(skewed?.clock)}`)
  for (const m of await collector.getMessages(runId)) {
    assert.ok(m.absolute, 'absolute latency measured')
    // Uncorrected it would be about 4,000 ms; corrected it is the real loopback latency.
    assert.ok(m.absolute.p50 < 1000, `absolute p50 ${m.absolute.p50} ms after correction`)
    assert.equal(m.absolute.uncertaintyMs, skewed.clock.uncertaintyMs)
  }
})
