import { test } from 'node:test'
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { createCollector } from '../../../results/collector/index.js'
import { runCli } from '../../helpers/cli.js'
import { getRedisUrl } from '../../helpers/redis.js'
import { waitFor } from '../../helpers/wait.js'
import { startTcpChild } from '../processes.js'

const linuxOnly = { skip: process.platform !== 'linux' && 'needs Linux /proc' }

test('ioswarm probe --pid: samples of a running process arrive; it stops when the process exits', linuxOnly, async (t) => {
  const redisUrl = await getRedisUrl(t)
  if (!redisUrl) return
  const collector = await createCollector({ redisUrl })
  const runId = `proc-${randomUUID().slice(0, 8)}`
  t.after(async () => {
    await collector.deleteRun(runId)
    await collector.close()
  })
  const child = await startTcpChild(t)
  const probe = runCli(t, [
    'bin/ioswarm.js', 'probe', '--pid', String(child.pid), '--redis', redisUrl, '--run', runId, '--id', 'legacy-1',
    '--interval', '200ms'
  ])
  /** @type {import('../../../lib/schema/result-schema.js').ServerSample[]} */
  let samples = []
  await waitFor(async () => {
    samples = (await collector.getSamples(runId)).server
    return samples.length >= 2
  }, { timeoutMs: 15000, message: 'two samples from the probe' })
  assert.ok(samples.every((s) => s.server === 'legacy-1' && s.connected === 2 && s.rssBytes > 0 && s.loopDelayP99Ms === null))
  child.stdin?.end()
  const { code, stderr } = await probe
  assert.equal(code, 0, stderr)
  assert.match(stderr, new RegExp(`process ${child.pid} exited; \\d+ samples of pid ${child.pid} sent to run ${runId} as legacy-1`))
})

test('ioswarm probe: a missing process or a bad flag exits 2 naming it', async (t) => {
  const missing = await runCli(t, ['bin/ioswarm.js', 'probe', '--pid', String(2 ** 22), '--redis', 'redis://127.0.0.1:1', '--run', 'r'])
  assert.equal(missing.code, 2)
  assert.match(missing.stderr, process.platform === 'linux' ? /--pid 4194304: no such process/ : /needs Linux/)
  const badRun = await runCli(t, ['bin/ioswarm.js', 'probe', '--pid', '1', '--redis', 'redis://127.0.0.1:1', '--run', 'a:b'])
  assert.equal(badRun.code, 2)
  assert.match(badRun.stderr, /--run must be 1 to 128 characters/)
  const noRun = await runCli(t, ['bin/ioswarm.js', 'probe', '--pid', '1', '--redis', 'redis://127.0.0.1:1'])
  assert.equal(noRun.code, 2)
  assert.match(noRun.stderr, /Missing required argument: run/)
})
