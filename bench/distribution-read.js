#!/usr/bin/env node
/**
 * End-of-distribution read benchmark: a private redis-server is filled through the real Redis
 * collector with `--simulators` × `--messages` message reports (each a histogram of
 * `--clients` delays), then the end of a distribution reads them, alternately as it did
 * before (getMessages, getRounds and getDeliveries: three scans of the reports stream) and
 * as it does now (getMessageResults: one scan), `--runs` times each, and one scan alone (the
 * XRANGE pages and the JSON of each report: what the one read saves twice). Prints one JSON
 * line: milliseconds of each read, their medians, XRANGE calls per read (Redis INFO
 * commandstats), the scan's milliseconds, the machine and its load.
 *
 *   node bench/distribution-read.js [--simulators 100] [--messages 1000] [--clients 50] [--runs 5]
 */
import os from 'node:os'
import { parseArgs } from 'node:util'
import { performance } from 'node:perf_hooks'
import { Redis } from 'ioredis'
import { createHistogram, encode, recordMs, summarize } from '../lib/measure/histogram.js'
import { hostFacts } from '../lib/host.js'
import { createCollector } from '../results/index.js'
import { readStream } from '../results/collector/redis-streams.js'
import { LIMITS, runKeys } from '../lib/schema/collector-keys.js'
import { startPrivateRedis } from '../test/helpers/redis.js'

const { values } = parseArgs({
  options: {
    simulators: { type: 'string', default: '100' },
    messages: { type: 'string', default: '1000' },
    clients: { type: 'string', default: '50' },
    runs: { type: 'string', default: '5' }
  }
})
const [simulators, messages, clients, runs] = [values.simulators, values.messages, values.clients, values.runs].map(Number)
const ROUND_SIZE = 100
const planned = Array.from({ length: Math.ceil(messages / ROUND_SIZE) }, () => ({ count: ROUND_SIZE, intervalMs: 1000 }))

// A few distinct histograms, shared by the reports: building 100,000 of them is not what is measured.
const shapes = Array.from({ length: 16 }, (_, k) => {
  const h = createHistogram()
  for (let c = 0; c < clients; c++) recordMs(h, (k + 1) * c * 0.13)
  return { ...summarize(h), histogram: encode(h) }
})

/**
 * Simulator s's report of message m, as a simulator sends it.
 * @param {number} s
 * @param {number} m
 * @returns {import('../lib/schema/result-schema.js').MessageReport}
 */
function report (s, m) {
  const relative = shapes[(s + m) % shapes.length]
  return {
    key: `broadcast:r${m}`,
    id: `r${m}`,
    event: 'broadcast',
    namespace: '/',
    room: null,
    round: Math.floor(m / ROUND_SIZE) + 1,
    seq: (m % ROUND_SIZE) + 1,
    sentAt: 1_700_000_000_000 + m,
    firstAt: 1_700_000_000_005 + m,
    received: clients,
    expected: clients,
    missing: 0,
    duplicates: 0,
    misdelivered: 0,
    late: 0,
    relative,
    absolute: { ...relative, negative: 0 },
    floor: { cpuMs: 1, spreadMs: 10 }
  }
}

/** @param {number[]} list */
const median = (list) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)]

const redis = await startPrivateRedis()
// Stopped by a signal, this process does not run its exit handlers: stop the server here.
for (const signal of /** @type {const} */ (['SIGINT', 'SIGTERM'])) process.once(signal, () => { redis.stop().finally(() => process.exit(1)) })
const admin = new Redis(redis.url)
const collector = await createCollector({ redisUrl: redis.url })
try {
  const runId = 'bench'
  await collector.registerRun(runId, { name: 'bench', startedAt: Date.now(), options: {} })
  const fillStart = performance.now()
  for (let s = 0; s < simulators; s++) {
    const id = `sim-${s}`
    await collector.registerSimulator(runId, { id, hostname: 'bench', pid: s, clients, transport: 'websocket', engine: 'lean', startedAt: Date.now() })
    await collector.reportClock(runId, id, { offsetMs: 0, uncertaintyMs: 0.5, reference: 'redis' })
    await Promise.all(Array.from({ length: messages }, (_, m) => collector.reportMessage(runId, id, report(s, m))))
  }
  const fillMs = performance.now() - fillStart

  const xranges = async () => Number(/cmdstat_xrange:calls=(\d+)/.exec(await admin.info('commandstats'))?.[1] ?? 0)
  /** @type {Record<'three' | 'one', { ms: number[], xrange: number[] }>} */
  const timings = { three: { ms: [], xrange: [] }, one: { ms: [], xrange: [] } }
  const reads = {
    three: () => Promise.all([collector.getMessages(runId), collector.getRounds(runId, planned), collector.getDeliveries(runId)]),
    one: () => collector.getMessageResults(runId, { planned })
  }
  for (let r = 0; r < runs; r++) {
    // Alternated, each first every other time: the machine's load drifts.
    /** @type {('three' | 'one')[]} */
    const order = r % 2 === 0 ? ['three', 'one'] : ['one', 'three']
    for (const kind of order) {
      const calls = await xranges()
      const start = performance.now()
      await reads[kind]()
      timings[kind].ms.push(Math.round(performance.now() - start))
      timings[kind].xrange.push(await xranges() - calls)
    }
  }
  /** @type {number[]} */
  const scanMs = []
  for (let r = 0; r < runs; r++) {
    const start = performance.now()
    for (const e of await readStream(admin, runKeys(runId).messages, 1000, LIMITS.messageReports)) JSON.parse(e.report)
    scanMs.push(Math.round(performance.now() - start))
  }
  process.stdout.write(`${JSON.stringify({
    bench: 'distribution-read',
    simulators,
    messages,
    reports: simulators * messages,
    clients,
    fillMs: Math.round(fillMs),
    threeReads: { ms: timings.three.ms, medianMs: median(timings.three.ms), xrangeCalls: timings.three.xrange[0] },
    oneRead: { ms: timings.one.ms, medianMs: median(timings.one.ms), xrangeCalls: timings.one.xrange[0] },
    scanAlone: { ms: scanMs, medianMs: median(scanMs) },
    loadavg: os.loadavg().map((l) => Math.round(l * 100) / 100),
    host: hostFacts()
  })}\n`)
} finally {
  await collector.close()
  admin.disconnect()
  await redis.stop()
}
