import { test } from 'node:test'
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { io } from 'socket.io-client'
import { createCollector } from '../../results/collector/index.js'
import { expectRefusals, runCli } from '../helpers/cli.js'
import { getRedisUrl } from '../helpers/redis.js'
import { waitFor } from '../helpers/wait.js'
import { startServeProcess } from './processes.js'

test('serve --help lists the cluster, adapter, parser and transport knobs', async (t) => {
  const { code, stdout } = await runCli(t, ['bin/ioswarm.js', 'serve', '--help'])
  assert.equal(code, 0)
  const flags = [
    '--cluster', '--adapter', '--redis', '--run', '--parser', '--per-message-deflate', '--ping-interval', '--ping-timeout', '--max-http-buffer-size',
    '--auth-token', '--namespace', '--relay-event', '--relay-rate'
  ]
  for (const flag of flags) {
    assert.ok(stdout.includes(flag), flag)
  }
})

test('serve: an impossible combination exits 2 before anything listens', async (t) => {
  const { code, stderr } = await runCli(t, ['bin/ioswarm.js', 'serve', '--port', '0', '--cluster', '2', '--adapter', 'redis'])
  assert.equal(code, 2)
  assert.match(stderr, /--redis is required with --adapter redis/)
})

test('serve: a bad --namespace, --relay-event or --relay-rate exits 2 naming the flag', async (t) => {
  /** @type {[string[], RegExp][]} */
  const cases = [
    [['--namespace', 'chat'], /--namespace must be a namespace: \/ followed by/],
    [['--namespace', '/ioswarm-admin'], /--namespace must not be the admin namespace/],
    [['--relay-event', 'disconnect'], /--relay-event must be an event name of 1 to 200 characters, not one of connect/],
    [['--relay-rate', 'lots'], /--relay-rate must be a positive number per second or minute/]
  ]
  await expectRefusals(t, ['bin/ioswarm.js', 'serve', '--port', '0'], cases)
})

test('serve: an unreachable Redis for the adapter exits 1 with the redacted URL', async (t) => {
  const { code, stderr } = await runCli(t, ['bin/ioswarm.js', 'serve', '--port', '0', '--adapter', 'redis', '--redis', 'redis://user:hunter2@127.0.0.1:1'])
  assert.equal(code, 1)
  assert.match(stderr, /cannot use Redis at redis:\/\/user:\*\*\*@127\.0\.0\.1:1/)
  assert.doesNotMatch(stderr, /hunter2/)
})

test('serve --cluster 1 --json prints the primary and worker pids; SIGTERM stops every process', async (t) => {
  const server = await startServeProcess(t, ['--cluster', '1', '--parser', 'msgpack'])
  assert.equal(server.workers.length, 1)
  assert.match(server.stderr(), /1 workers .*adapter memory, parser msgpack/)
  const stats = await server.stats()
  assert.equal(stats.workers.length, 1)
  assert.equal(stats.workers[0].pid, server.workers[0].pid)
  process.kill(server.pid, 'SIGTERM')
  assert.equal(await server.exited, 0)
  assert.throws(() => process.kill(server.workers[0].pid, 0), /ESRCH/, 'the worker is gone too')
})

test('serve --redis --run (one process): samples reported under --id, with the clients it counts', async (t) => {
  const redisUrl = await getRedisUrl(t)
  if (!redisUrl) return
  const runId = `solo-${randomUUID().slice(0, 8)}`
  const collector = await createCollector({ redisUrl })
  t.after(async () => {
    await collector.deleteRun(runId)
    await collector.close()
  })
  const server = await startServeProcess(t, ['--redis', redisUrl, '--run', runId, '--id', 'solo'])
  assert.match(server.stderr(), new RegExp(`reporting samples to run ${runId} as solo\\n`))
  const client = io(server.url, { transports: ['websocket'], reconnection: false, forceNew: true })
  t.after(() => client.close())
  await waitFor(async () => (await collector.getSamples(runId)).server.some((s) => s.server === 'solo' && s.connected === 1),
    { timeoutMs: 10000, message: 'a sample from solo counting the client' })
})
