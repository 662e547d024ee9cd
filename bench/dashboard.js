#!/usr/bin/env node
/**
 * Live-dashboard benchmark: what the stream costs the runner. A memory collector receives what
 * `--simulators` simulators of `--clients` clients send a second (a sample with its clients'
 * emits, and `--messages` closed message reports each with one delay per client), for
 * `--seconds` seconds, twice: without the dashboard (before), then with it and `--pages` pages
 * reading its stream (after; the pages are a child process, so their CPU is not counted). The
 * difference of this process's CPU is the stream's cost: the collector read once a second, the
 * second folded (the reports' HDR histograms merged), the event written to the log and to every
 * page. Prints one JSON line.
 *
 *   node bench/dashboard.js [--simulators 20] [--clients 500] [--messages 1] [--pages 3] [--seconds 20]
 */
import { spawn } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { setTimeout as sleep } from 'node:timers/promises'
import { createHistogram, encode, recordMs, summarize } from '../lib/measure/histogram.js'
import { hostFacts } from '../lib/host.js'
import { createCollector } from '../results/collector/index.js'
import { startDashboard } from '../results/dashboard/index.js'
import { createFigures } from '../simulator/recording/figures.js'

const { values } = parseArgs({
  options: {
    simulators: { type: 'string', default: '20' },
    clients: { type: 'string', default: '500' },
    messages: { type: 'string', default: '1' },
    pages: { type: 'string', default: '3' },
    seconds: { type: 'string', default: '20' }
  }
})
const simulators = Number(values.simulators)
const clients = Number(values.clients)
const messages = Number(values.messages)
const pages = Number(values.pages)
const seconds = Number(values.seconds)

/** One delay per client, spread like a broadcast over a few hundred ms, with a tail. */
function delays () {
  const h = createHistogram()
  for (let c = 0; c < clients; c++) recordMs(h, Math.random() ** 3 * 400)
  return { ...summarize(h), histogram: encode(h) }
}
// Made once: a simulator's work, not the runner's.
const relative = Array.from({ length: 8 }, delays)
const absolute = Array.from({ length: 8 }, () => ({ ...delays(), negative: 0 }))
const second = createFigures()
for (let a = 0; a < 200; a++) { second.sent(); second.ack(null, Math.random() ** 3 * 200) }
const figures = second.take()

/**
 * One phase: `seconds` seconds of the simulators' reports, with or without the dashboard.
 * @param {boolean} watched
 */
async function phase (watched) {
  const collector = await createCollector({})
  const runId = `bench-${watched ? 'after' : 'before'}`
  await collector.registerRun(runId, { name: runId, startedAt: Date.now(), options: {} })
  const dir = await mkdtemp(path.join(tmpdir(), 'ioswarm-bench-dashboard-'))
  const dashboard = watched ? await startDashboard({ port: 0, host: '127.0.0.1', logFile: path.join(dir, 'events.ndjson'), info: { command: 'run' } }) : null
  const readers = dashboard ? spawnPages(new URL('/events', dashboard.server.viewUrl).href) : null
  if (dashboard) while (dashboard.server.pages() < pages) await sleep(20)
  const follow = dashboard?.stream.follow(collector, runId)
  let seq = 0
  const cpu = process.cpuUsage()
  const started = performance.now()
  for (let s = 0; s < seconds; s++) {
    const t = Date.now()
    for (let i = 0; i < simulators; i++) {
      const simId = `sim${i}`
      await collector.reportSample(runId, simId, {
        timeline: { t, connected: clients, byTransport: { websocket: clients, polling: 0 }, connects: 0, disconnects: 0, errors: 0, messages: seq },
        health: { t, loopDelayP50Ms: 1, loopDelayP99Ms: 12, loopDelayMaxMs: 20, elu: 0.3, cpuPct: 30, rssBytes: 2e8, heapUsedBytes: 1e8 },
        figures: /** @type {any} */ (figures)
      })
      for (let m = 0; m < messages; m++) {
        const k = (seq + m) % relative.length
        await collector.reportMessage(runId, simId, /** @type {any} */ ({
          key: `m|${seq + m}`,
          id: String(seq + m),
          event: 'm',
          round: 1,
          seq: seq + m,
          sentAt: t,
          firstAt: t,
          received: clients,
          expected: clients,
          missing: 0,
          duplicates: 0,
          late: 0,
          relative: relative[k],
          absolute: absolute[k]
        }))
      }
    }
    seq += messages
    await sleep(1000 - ((performance.now() - started) % 1000))
  }
  await follow?.stop()
  const used = process.cpuUsage(cpu)
  const wallMs = performance.now() - started
  const pagesOpen = dashboard?.server.pages() ?? 0
  await dashboard?.close()
  const pageEvents = readers ? await readers.done : 0
  await collector.close()
  await rm(dir, { recursive: true, force: true })
  return { cpuPctOfCore: Math.round(((used.user + used.system) / 1000 / wallMs) * 10000) / 100, wallMs: Math.round(wallMs), pagesOpen, pageEvents }
}

/**
 * `pages` readers of the stream in one child process; resolves with the events they read in all.
 * @param {string} url
 */
function spawnPages (url) {
  const code = `const http = require('node:http'); let events = 0, open = ${pages};
const read = (res) => { res.on('data', (d) => { events += String(d).split('\\n\\n').length - 1 }); res.on('end', () => { if (--open === 0) { console.log(events); process.exit(0) } }) };
for (let i = 0; i < ${pages}; i++) http.get(${JSON.stringify(url)}, read)`
  const child = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'inherit'] })
  let out = ''
  child.stdout.on('data', (d) => { out += d })
  return { done: new Promise((resolve) => child.on('close', () => resolve(Number(out.trim()) || 0))) }
}

const before = await phase(false)
const after = await phase(true)
process.stdout.write(`${JSON.stringify({
  bench: 'dashboard',
  simulators,
  clients,
  messagesPerSimulatorSecond: messages,
  pages,
  seconds,
  before,
  after,
  streamCpuPctOfCore: Math.round((after.cpuPctOfCore - before.cpuPctOfCore) * 100) / 100,
  host: hostFacts()
})}\n`)
