import { test } from 'node:test'
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { Redis } from 'ioredis'
import { Server } from 'socket.io'
import { io as connect } from 'socket.io-client'
import { attachProbe } from 'ioswarm/probe'
import { createCollector } from '../../../results/collector/index.js'
import { ROOT } from '../../helpers/cli.js'
import { getRedisUrl } from '../../helpers/redis.js'
import { waitFor } from '../../helpers/wait.js'
import { startIoServer } from '../../helpers/io-server.js'

/**
 * A plain socket.io server, as a user would have it, with one websocket and one polling client.
 * @param {import('node:test').TestContext} t
 */
async function plainServerWithClients (t) {
  const { io, url } = await startIoServer(t)
  for (const transport of ['websocket', 'polling']) {
    const client = connect(url, { transports: [transport], forceNew: true, reconnection: false })
    t.after(() => client.close())
  }
  await waitFor(() => io.engine.clientsCount === 2, { message: 'two clients' })
  return io
}

/**
 * @param {import('node:test').TestContext} t
 * @param {string} redisUrl
 */
async function collectorFor (t, redisUrl) {
  const collector = await createCollector({ redisUrl })
  const runId = `probe-${randomUUID().slice(0, 8)}`
  t.after(async () => {
    await collector.deleteRun(runId)
    await collector.close()
  })
  return { collector, runId }
}

test('attachProbe with a Redis URL: samples of a plain socket.io server arrive in the collector', async (t) => {
  const redisUrl = await getRedisUrl(t)
  if (!redisUrl) return
  const io = await plainServerWithClients(t)
  const { collector, runId } = await collectorFor(t, redisUrl)
  const admin = new Redis(redisUrl)
  t.after(() => admin.quit())
  const connections = async () => String(await admin.client('LIST')).trim().split('\n').length
  const before = await connections()
  const probe = attachProbe(io, { redis: redisUrl, run: runId, id: 'api-1', intervalMs: 100 })
  t.after(() => probe.stop())
  await probe.ready
  assert.equal(await connections(), before + 1, 'the probe opened its own connection')
  /** @type {import('../../../lib/schema/result-schema.js').ServerSample[]} */
  let samples = []
  await waitFor(async () => {
    samples = (await collector.getSamples(runId)).server
    return samples.length >= 2
  }, { message: 'two probe samples' })
  const last = samples.at(-1)
  assert.equal(last?.server, 'api-1')
  assert.deepEqual(last?.byTransport, { websocket: 1, polling: 1 })
  assert.equal(last?.connected, 2)
  assert.ok(last && last.rssBytes > 0 && last.heapUsedBytes > 0 && last.cpuPct >= 0 && last.elu >= 0 && last.loopDelayP99Ms >= 0)
  await probe.stop()
  await waitFor(async () => await connections() === before, { message: 'stop() to close the probe\'s connection' })
})

test('attachProbe with your own ioredis client leaves it open', async (t) => {
  const redisUrl = await getRedisUrl(t)
  if (!redisUrl) return
  const io = await plainServerWithClients(t)
  const { collector, runId } = await collectorFor(t, redisUrl)
  const client = new Redis(redisUrl)
  t.after(() => client.quit())
  const probe = attachProbe(io, { redis: client, run: runId, intervalMs: 100 })
  assert.match(probe.id, /^probe-.+-\d+$/)
  await waitFor(async () => (await collector.getSamples(runId)).server.some((s) => s.server === probe.id), { message: 'a sample' })
  await probe.stop()
  assert.equal(await client.ping(), 'PONG')
})

test('attachProbe refuses bad options at once, and reports an unreachable Redis through onError', async (t) => {
  const io = new Server() // not attached to an HTTP server: nothing to close
  assert.throws(() => attachProbe(io, { redis: 'redis://x', run: 'a{b}' }), /attachProbe run must be 1 to 128 characters/)
  assert.throws(() => attachProbe(io, { redis: 'redis://x', run: 'r', intervalMs: 5 }), /intervalMs must be at least 100/)
  /** @type {Error[]} */
  const errors = []
  const probe = attachProbe(io, { redis: 'redis://:pw@127.0.0.1:1', run: 'r', onError: (e) => errors.push(e) })
  await assert.rejects(probe.ready, /cannot use Redis at redis:\/\/:\*\*\*@127\.0\.0\.1:1/)
  assert.equal(errors.length, 1)
  await probe.stop()
})

test('the probe\'s import graph stays light: no socket.io-client, no reports, no aggregation', () => {
  /** @type {Set<string>} */
  const seen = new Set()
  /** @type {Set<string>} */
  const packages = new Set()
  const visit = (/** @type {string} */ file) => {
    if (seen.has(file)) return
    seen.add(file)
    const source = readFileSync(file, 'utf8')
    // Static imports and dynamic import() calls; JSDoc import('…') types are not loaded.
    const specs = [...source.matchAll(/^(?:import|export)\s[^']*?from\s+'([^']+)'/gm), ...source.matchAll(/\bawait import\('([^']+)'\)/g)]
    for (const [, spec] of specs) {
      if (spec.startsWith('.')) visit(path.resolve(path.dirname(file), spec))
      else packages.add(spec)
    }
  }
  visit(path.join(ROOT, 'server/probe/index.js'))
  const files = [...seen].map((f) => path.relative(ROOT, f)).sort()
  // The result schema's entry re-exports the merge rules of the files beside it: data, no code.
  assert.deepEqual(files, [
    'lib/errors.js', 'lib/measure/process-sampler.js', 'lib/redis.js', 'lib/schema/collector-keys.js', 'lib/schema/result-schema.js',
    'lib/schema/simulator-schema.js', 'lib/schema/window-schema.js', 'lib/transports.js', 'server/connections.js', 'server/probe/index.js'
  ])
  assert.deepEqual([...packages].filter((p) => !p.startsWith('node:')), ['ioredis'])
})
