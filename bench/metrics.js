#!/usr/bin/env node
/**
 * Live-metrics benchmark: the CPU cost of one Prometheus scrape of `ioswarm run
 * --metrics-port` at a given run shape, and of feeding one closed message report (decoding
 * its HDR histograms into the buckets). The state is what a run of `--simulators` ×
 * `--clients` leaves after `--messages` messages: every simulator registered, sampled, and
 * one report per message whose histogram holds one delay per client. A scrape's cost depends
 * on the number of series (simulators × metrics), not on clients; feeding a report depends on
 * its histogram's distinct values. Also the cost of turning the registry into OpenTelemetry
 * data for one `--otlp` push (before the SDK encodes it). And the clients' emits: what one
 * second of `--acks` acked emits costs the simulator (its figures taken and encoded) and the
 * runner (a sample's figures fed), and the figures' bytes in the sample. Prints one JSON line.
 *
 *   node bench/metrics.js [--simulators 20] [--clients 500] [--messages 50] [--scrapes 200] [--acks 1000]
 */
import { parseArgs } from 'node:util'
import { performance } from 'node:perf_hooks'
import { createHistogram, encode, recordMs, summarize } from '../lib/measure/histogram.js'
import { hostFacts } from '../lib/host.js'
import { createRunMetrics } from '../results/metrics/index.js'
import { registryToScopeMetrics } from '../results/metrics/otlp/otlp-convert.js'
import { createFigures } from '../simulator/recording/figures.js'

const { values } = parseArgs({
  options: {
    simulators: { type: 'string', default: '20' },
    clients: { type: 'string', default: '500' },
    messages: { type: 'string', default: '50' },
    scrapes: { type: 'string', default: '200' },
    acks: { type: 'string', default: '1000' }
  }
})
const simulators = Number(values.simulators)
const clients = Number(values.clients)
const messages = Number(values.messages)
const scrapes = Number(values.scrapes)
const acks = Number(values.acks)

/** One delay per client, spread like a broadcast over a few hundred ms, with a tail. */
function delays () {
  const h = createHistogram()
  for (let c = 0; c < clients; c++) recordMs(h, Math.random() ** 3 * 400)
  return { ...summarize(h), histogram: encode(h) }
}

const metrics = createRunMetrics({ run: 'bench', distribution: `${simulators}x${clients}` })
/** @type {any[]} */
const reports = Array.from({ length: messages }, (_, i) => ({
  key: `m|${i}`,
  id: String(i),
  event: 'm',
  round: 1,
  seq: i,
  sentAt: 1,
  firstAt: 1,
  received: clients,
  expected: clients,
  missing: 0,
  duplicates: 0,
  late: 0,
  relative: delays(),
  absolute: { ...delays(), negative: 0 }
}))
let feedCpuUs = 0
for (let s = 0; s < simulators; s++) {
  const id = `sim${s}`
  metrics.observeSimulator({ id, clients, transport: 'websocket:70,polling:30' })
  metrics.observeSample(id, {
    timeline: { t: 1, connected: clients, byTransport: { websocket: clients * 0.7, polling: clients * 0.3 }, connects: 1, disconnects: 0, errors: 0, messages },
    health: { t: 1, loopDelayP50Ms: 1, loopDelayP99Ms: 12, loopDelayMaxMs: 20, elu: 0.3, cpuPct: 30, rssBytes: 2e8, heapUsedBytes: 1e8 }
  })
  const cpu = process.cpuUsage()
  for (const report of reports) metrics.observeMessage(id, report)
  const used = process.cpuUsage(cpu)
  feedCpuUs += used.user + used.system
}
metrics.observeRounds(/** @type {any} */ ([{ round: 1, count: messages, messages, missing: 0, relative: reports[0].relative, absolute: reports[0].absolute }]))
const swarm = simulators * clients
metrics.observeServerSample(/** @type {any} */ ({
  t: 1, connected: swarm, byTransport: { websocket: swarm * 0.7, polling: swarm * 0.3 }, cpuPct: 80, rssBytes: 5e8, loopDelayP99Ms: 15
}))

// The clients' emits: a second of `acks` acked emits per simulator, taken (simulator) and fed (runner), 20 seconds each.
const SECONDS = 20
let takeCpuUs = 0
let figuresFeedCpuUs = 0
let figuresBytes = 0
for (let t = 2; t < 2 + SECONDS; t++) {
  for (let s = 0; s < simulators; s++) {
    const taking = process.cpuUsage()
    const second = createFigures()
    for (let a = 0; a < acks; a++) {
      second.sent()
      second.ack(null, Math.random() ** 3 * 200)
    }
    const figures = /** @type {import('../lib/schema/result-schema.js').SecondFigures} */ (second.take())
    const took = process.cpuUsage(taking)
    takeCpuUs += took.user + took.system
    figuresBytes = JSON.stringify(figures).length
    const feeding = process.cpuUsage()
    metrics.observeSample(`sim${s}`, {
      timeline: { t, connected: clients, byTransport: { websocket: clients, polling: 0 }, connects: 0, disconnects: 0, errors: 0, messages: 0 },
      health: { t, loopDelayP50Ms: 1, loopDelayP99Ms: 12, loopDelayMaxMs: 20, elu: 0.3, cpuPct: 30, rssBytes: 2e8, heapUsedBytes: 1e8 },
      figures
    })
    const fed = process.cpuUsage(feeding)
    figuresFeedCpuUs += fed.user + fed.system
  }
}

for (let i = 0; i < 20; i++) await metrics.registry.metrics() // warm up
const cpu = process.cpuUsage()
const started = performance.now()
let bytes = 0
for (let i = 0; i < scrapes; i++) bytes = (await metrics.registry.metrics()).length
const wallMs = performance.now() - started
const used = process.cpuUsage(cpu)
const series = (await metrics.registry.getMetricsAsJSON()).reduce((n, m) => n + /** @type {any} */ (m).values.length, 0)

// --otlp: what one push costs before the SDK's own encoding (read the registry, convert).
const otlpCpu = process.cpuUsage()
for (let i = 0; i < scrapes; i++) {
  registryToScopeMetrics(/** @type {any} */ (await metrics.registry.getMetricsAsJSON()), { startMs: 0, endMs: 1, version: 'bench' })
}
const otlpUsed = process.cpuUsage(otlpCpu)

process.stdout.write(`${JSON.stringify({
  bench: 'metrics',
  simulators,
  clients: simulators * clients,
  messages,
  series,
  scrapeBytes: bytes,
  scrapeCpuUs: Math.round((used.user + used.system) / scrapes),
  scrapeWallUs: Math.round(wallMs * 1000 / scrapes),
  feedCpuUsPerReport: Math.round(feedCpuUs / (simulators * messages)),
  otlpConvertCpuUs: Math.round((otlpUsed.user + otlpUsed.system) / scrapes),
  acksPerSecond: acks,
  figuresBytes,
  figuresTakeCpuUs: Math.round(takeCpuUs / (SECONDS * simulators)),
  figuresFeedCpuUs: Math.round(figuresFeedCpuUs / (SECONDS * simulators)),
  host: hostFacts(),
  node: process.version
})}\n`)
