import assert from 'node:assert/strict'
import test from 'node:test'
import { runCli } from '../helpers/cli.js'
import { freePort } from '../helpers/ports.js'
import { startTestServer } from '../helpers/swarm.js'
import { waitFor } from '../helpers/wait.js'

test('simulate --metrics-port serves this simulator\'s clients, samples and messages', { timeout: 60000 }, async (t) => {
  const server = await startTestServer(t, { pingIntervalMs: 5000 })
  const port = await freePort()
  const run = runCli(t, ['client.js', '-c', '5', '--url', server.url, '--ramp', '0', '--id', 'simA', '--metrics-port', String(port)])
  const url = `http://127.0.0.1:${port}/metrics`
  const connected = /ioswarm_clients_connected\{simulator="simA",transport="websocket",run="simA",distribution=""\} 5/
  const text = await waitFor(async () => {
    const body = await (await fetch(url).catch(() => null))?.text()
    return body && connected.test(body) && /ioswarm_simulator_rss_bytes\{simulator="simA"/.test(body) ? body : null
  }, { timeoutMs: 20000, intervalMs: 200, message: 'five connected clients in /metrics' })
  assert.match(String(text), /ioswarm_clients_target\{simulator="simA",transport="websocket",.*\} 5/)
  await server.broadcast({ id: 'm1' })
  await waitFor(async () => /ioswarm_messages_received_total\{simulator="simA",.*\} 5/.test(await (await fetch(url)).text()), { timeoutMs: 20000, intervalMs: 200, message: 'the message report in /metrics' })
  assert.equal((await fetch(`http://127.0.0.1:${port}/other`)).status, 404)
  run.child.kill('SIGTERM')
  assert.equal((await run).code, 0)
})

test('simulate --metrics-port refuses a bad port and --workers', async (t) => {
  const bad = await runCli(t, ['client.js', '--url', 'http://127.0.0.1:1', '--metrics-port', '70000'])
  assert.equal(bad.code, 2)
  assert.match(bad.stderr, /--metrics-port must be a whole number from 0 to 65535/)
  const workers = await runCli(t, ['client.js', '--url', 'http://127.0.0.1:1', '--metrics-port', '0', '--workers', '2'])
  assert.equal(workers.code, 2)
  assert.match(workers.stderr, /--metrics-port cannot be used with --workers/)
})
