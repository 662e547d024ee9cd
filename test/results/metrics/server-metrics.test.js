import assert from 'node:assert/strict'
import test from 'node:test'
import { io } from 'socket.io-client'
import { createServerMetrics } from '../../../results/metrics/server-metrics.js'
import { runCli } from '../../helpers/cli.js'
import { startOtlpReceiver } from '../../helpers/otlp-receiver.js'
import { waitFor } from '../../helpers/wait.js'

test('server metrics: connected by transport, broadcasts, emits, process sample', async () => {
  const m = createServerMetrics({ server: 'srv' })
  m.observeSample(/** @type {any} */ ({ t: 1, connected: 3, byTransport: { websocket: 2, polling: 1 }, cpuPct: 25, rssBytes: 1e8, loopDelayP99Ms: 4 }))
  m.observeBroadcast(2, 3)
  const text = await m.registry.metrics()
  assert.match(text, /ioswarm_server_clients_connected\{transport="polling",server="srv"\} 1/)
  assert.match(text, /ioswarm_server_emits_total\{server="srv"\} 6/)
  assert.match(text, /ioswarm_server_broadcasts_total\{server="srv"\} 2/)
  assert.match(text, /ioswarm_server_loop_delay_p99_seconds\{server="srv"\} 0.004/)
})

test('ioswarm serve --metrics-port serves the reference server\'s own metrics, and --otlp pushes them', { timeout: 30000 }, async (t) => {
  const receiver = await startOtlpReceiver(t)
  let stderr = ''
  const serve = runCli(t, ['bin/ioswarm.js', 'serve', '--port', '0', '--host', '127.0.0.1', '--token', 'tok', '--id', 'ref', '--metrics-port', '0',
    '--otlp', receiver.url, '--otlp-interval', '200ms'], { onStderr: (text) => { stderr = text } })
  const url = /** @type {RegExpExecArray} */ (
    await waitFor(() => /listening on (http:\/\/\S+)/.exec(stderr), { timeoutMs: 15000, message: () => `serve listening (stderr: ${stderr})` })
  )[1]
  const metrics = /** @type {RegExpExecArray} */ (/metrics (http:\/\/127\.0\.0\.1:\d+\/metrics)\n/.exec(stderr))?.[1]
  assert.ok(metrics, `serve says where its metrics are: ${stderr}`)
  const socket = io(url, { transports: ['websocket'] })
  t.after(() => socket.close())
  await new Promise((resolve) => socket.once('connect', () => resolve(undefined)))
  const response = await fetch(new URL('/broadcast', url), {
    method: 'POST',
    headers: { authorization: 'Bearer tok', 'content-type': 'application/json' },
    body: '{}'
  })
  assert.equal(response.status, 200)
  await waitFor(async () => {
    const text = await (await fetch(metrics)).text()
    return /ioswarm_server_clients_connected\{transport="websocket",server="ref"\} 1/.test(text) && /ioswarm_server_emits_total\{server="ref"\} 1/.test(text)
  }, { timeoutMs: 10000, intervalMs: 100, message: 'one client and one emit in /metrics' })
  await waitFor(() => receiver.latest('ioswarm_server_emits', { server: 'ref' })[0]?.value === 1, { timeoutMs: 10000, message: 'the emit pushed over OTLP' })
  assert.equal(receiver.latest('ioswarm_server_emits')[0].resource['ioswarm.command'], 'serve')
  serve.child.kill('SIGTERM')
  assert.equal((await serve).code, 0)
})

test('serve --metrics-port or --otlp with --cluster is refused naming the flag', async (t) => {
  for (const [flag, value] of [['--metrics-port', '0'], ['--otlp', 'http://127.0.0.1:4318']]) {
    const { code, stderr } = await runCli(t, ['bin/ioswarm.js', 'serve', '--cluster', '2', flag, value])
    assert.equal(code, 2)
    assert.match(stderr, new RegExp(`${flag} gives one process's metrics`))
  }
})
