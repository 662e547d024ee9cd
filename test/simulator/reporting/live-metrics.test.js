import assert from 'node:assert/strict'
import test from 'node:test'
import { printedUrl, runCli } from '../../helpers/cli.js'
import { createCollector } from '../../../results/collector/index.js'
import { getRedisUrl } from '../../helpers/redis.js'
import { startTestServer, waitForClients } from '../../helpers/swarm.js'
import { sample } from '../../results/make-reports.js'
import { waitFor } from '../../helpers/wait.js'
import { startAppServer } from '../../helpers/app-server.js'
import { checkLiveEmits } from '../../helpers/live-emits.js'

test('simulate --metrics-port serves this simulator\'s clients, samples and messages', { timeout: 60000 }, async (t) => {
  const server = await startTestServer(t, { pingIntervalMs: 5000 })
  const run = runCli(t, ['client.js', '-c', '5', '--url', server.url, '--ramp', '0', '--id', 'simA', '--metrics-port', '0'])
  const url = await printedUrl(run, 'simA: metrics')
  const connected = /ioswarm_clients_connected\{simulator="simA",transport="websocket",run="simA",distribution=""\} 5/
  const text = await waitFor(async () => {
    const body = await (await fetch(url).catch(() => null))?.text()
    return body && connected.test(body) && /ioswarm_simulator_rss_bytes\{simulator="simA"/.test(body) ? body : null
  }, { timeoutMs: 20000, intervalMs: 200, message: 'five connected clients in /metrics' })
  assert.match(String(text), /ioswarm_clients_target\{simulator="simA",transport="websocket",.*\} 5/)
  await server.broadcast({ id: 'm1' })
  await waitFor(async () => /ioswarm_messages_received_total\{simulator="simA",.*\} 5/.test(await (await fetch(url)).text()), {
    timeoutMs: 20000,
    intervalMs: 200,
    message: 'the message report in /metrics'
  })
  assert.equal((await fetch(url.replace(/\/metrics$/, '/other'))).status, 404)
  run.child.kill('SIGTERM')
  assert.equal((await run).code, 0)
})

test('simulate --metrics-port refuses a bad port', async (t) => {
  const bad = await runCli(t, ['client.js', '--url', 'http://127.0.0.1:1', '--metrics-port', '70000'])
  assert.equal(bad.code, 2)
  assert.match(bad.stderr, /--metrics-port must be a whole number from 0 to 65535/)
})

/**
 * Sum of the series of `name` whose labels include `where` (Prometheus text).
 * @param {string} text
 * @param {string} name
 * @param {Record<string, string>} [where]
 */
function sum (text, name, where = {}) {
  let total = 0
  for (const line of text.split('\n')) {
    const m = /^([a-z_]+)\{(.*)\} (\S+)$/.exec(line)
    if (!m || m[1] !== name) continue
    if (Object.entries(where).every(([k, v]) => m[2].includes(`${k}="${v}"`))) total += Number(m[3])
  }
  return total
}

/**
 * Runs `simulate --workers 2 -c 10 --metrics-port` (plus `extra` flags) against a test server:
 * the parent's /metrics has both workers' clients, health and messages; the exit is clean.
 * @param {import('node:test').TestContext} t
 * @param {string[]} extra
 */
async function checkWorkersMetrics (t, extra) {
  const server = await startTestServer(t, { pingIntervalMs: 5000 })
  const run = runCli(
    t,
    ['bin/ioswarm.js', 'simulate', '--workers', '2', '-c', '10', '--url', server.url, '--ramp', '0', '--id', 'wm', '--metrics-port', '0', ...extra],
    { timeoutMs: 60000 }
  )
  const url = await printedUrl(run, 'wm: metrics')
  const workers = ['wm-w1', 'wm-w2']
  const text = await waitFor(async () => {
    const body = await (await fetch(url).catch(() => null))?.text()
    return body && sum(body, 'ioswarm_clients_connected') === 10 && workers.every((w) => sum(body, 'ioswarm_simulator_rss_bytes', { simulator: w }) > 0)
      ? body
      : null
  }, { timeoutMs: 30000, intervalMs: 200, message: 'both workers\' clients and health in the parent\'s /metrics' })
  for (const simulator of workers) {
    assert.equal(sum(String(text), 'ioswarm_clients_connected', { simulator, transport: 'websocket' }), 5)
    assert.equal(sum(String(text), 'ioswarm_clients_target', { simulator }), 5)
    assert.equal(sum(String(text), 'ioswarm_simulator_up', { simulator }), 1)
  }
  assert.equal(sum(String(text), 'ioswarm_clients_connected', { simulator: 'wm' }), 0, 'the workers\' series, not the parent\'s')
  await waitForClients(server, 10)
  await server.broadcast({ id: 'm1' })
  const after = await waitFor(async () => {
    const body = await (await fetch(url)).text()
    return sum(body, 'ioswarm_messages_received_total') === 10 ? body : ''
  }, { timeoutMs: 20000, intervalMs: 200, message: 'the message in /metrics' })
  assert.equal(sum(after, 'ioswarm_message_relative_delay_seconds_count'), 10)
  run.child.kill('SIGTERM')
  const done = await run
  assert.equal(done.code, 0, done.stderr)
  return after
}

test('simulate --workers 2 --metrics-port: the parent serves its workers\' merged view (written to it over IPC)', { timeout: 60000 }, async (t) => {
  await checkWorkersMetrics(t, [])
})

test('simulate --workers 2 --redis --metrics-port: the parent reads its workers back from the run, and only them', { timeout: 60000 }, async (t) => {
  const redisUrl = await getRedisUrl(t)
  if (!redisUrl) return
  const runId = `workers-metrics-${process.pid}-${Date.now()}`
  const collector = await createCollector({ redisUrl })
  t.after(async () => { await collector.deleteRun(runId); await collector.close() })
  // Another simulator of the same run: not one of this command's workers.
  await collector.registerSimulator(runId, { id: 'elsewhere', hostname: 'h', pid: 1, clients: 7, transport: 'websocket', engine: 'sio', startedAt: 1 })
  await collector.reportSample(runId, 'elsewhere', sample(Date.now(), { connected: 7 }))
  const text = await checkWorkersMetrics(t, ['--redis', redisUrl, '--run', runId])
  assert.doesNotMatch(text, /simulator="elsewhere"/)
  assert.deepEqual((await collector.listSimulators(runId)).map((s) => s.id), ['elsewhere', 'wm-w1', 'wm-w2'], 'the workers reported to Redis')
})

test('simulate --metrics-port: emits and acks move during the run, and end as the result has them', { timeout: 90000 }, async (t) => {
  await checkLiveEmits(t, (await startAppServer(t)).url, [])
})

test('simulate --workers 2 --metrics-port: ' +
  'the workers\' emits and acks move during the run, and end as the merged result has them', { timeout: 90000 }, async (t) => {
  await checkLiveEmits(t, (await startAppServer(t)).url, ['--workers', '2'])
})
