#!/usr/bin/env node
/**
 * Long fuzzing run of the lean engine's decoding: the properties of
 * test/fuzz/lean-properties.js, round-robin in batches with fresh seeds, for `--minutes`.
 * The properties run in a worker thread; the main thread is a watchdog that reports a hang
 * (a batch with no progress for --hang-seconds) instead of waiting forever. Prints one JSON
 * line per finding and one summary line at the end; exits 1 on any finding.
 *
 *   node bench/fuzz.js [--minutes 10] [--batch 2000] [--hang-seconds 30]
 */
import { parseArgs } from 'node:util'
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads'
import fc from 'fast-check'
import { hostFacts } from '../lib/host.js'
import { createHarness, leanProperties } from '../test/fuzz/lean-properties.js'

if (isMainThread) await watch()
else fuzz(workerData)

async function watch () {
  const { values } = parseArgs({
    options: { minutes: { type: 'string', default: '10' }, batch: { type: 'string', default: '2000' }, 'hang-seconds': { type: 'string', default: '30' } }
  })
  const minutes = Number(values.minutes)
  const batch = Number(values.batch)
  const hangMs = Number(values['hang-seconds']) * 1000
  if (!(minutes > 0) || !(batch > 0) || !(hangMs > 0)) throw new Error('--minutes, --batch and --hang-seconds must be positive numbers')
  const startedAt = Date.now()
  const worker = new Worker(new URL(import.meta.url), { workerData: { deadline: startedAt + minutes * 60000, batch } })
  /** @type {Record<string, { runs: number, failures: number }>} */
  const byProperty = {}
  let lastProgressAt = Date.now()
  let current = ''
  let hung = false
  const watchdog = setInterval(() => {
    if (Date.now() - lastProgressAt < hangMs) return
    hung = true
    process.stdout.write(`${JSON.stringify({ finding: 'hang', property: current, silentMs: Date.now() - lastProgressAt })}\n`)
    worker.terminate()
  }, 1000)
  worker.on('message', (m) => {
    lastProgressAt = Date.now()
    if (m.kind === 'start') current = m.property
    if (m.kind === 'batch') {
      const p = (byProperty[m.property] ??= { runs: 0, failures: 0 })
      p.runs += m.runs
      if (m.failed) {
        p.failures++
        process.stdout.write(`${JSON.stringify({ finding: 'property failed', property: m.property, seed: m.seed, report: m.report })}\n`)
      }
    }
  })
  const exit = await new Promise((resolve) => {
    worker.on('exit', resolve)
    worker.on('error', (error) => {
      process.stdout.write(`${JSON.stringify({ finding: 'crash', error: String(error?.stack ?? error) })}\n`)
      resolve(1)
    })
  })
  clearInterval(watchdog)
  const runs = Object.values(byProperty).reduce((sum, p) => sum + p.runs, 0)
  const failures = Object.values(byProperty).reduce((sum, p) => sum + p.failures, 0) + (hung ? 1 : 0)
  const seconds = Math.round((Date.now() - startedAt) / 1000)
  process.stdout.write(`${JSON.stringify({ bench: 'fuzz', minutes, seconds, runs, failures, hung, workerExit: exit, byProperty, host: hostFacts() })}\n`)
  process.exitCode = failures > 0 || (exit !== 0 && !hung) ? 1 : 0
}

/**
 * The worker: batches of every property until the deadline.
 * @param {{ deadline: number, batch: number }} options
 */
function fuzz ({ deadline, batch }) {
  const port = /** @type {import('node:worker_threads').MessagePort} */ (parentPort)
  const harness = { all: createHarness(false), filtered: createHarness(true) }
  const properties = Object.entries(leanProperties(harness))
  // Bounded by the deadline: one batch of each property per pass.
  while (Date.now() < deadline) {
    for (const [property, prop] of properties) {
      const seed = (Math.random() * 2 ** 31) | 0
      port.postMessage({ kind: 'start', property })
      const details = fc.check(prop, { numRuns: batch, seed })
      const report = details.failed ? fc.defaultReportMessage(details) : null
      port.postMessage({ kind: 'batch', property, runs: details.numRuns, failed: details.failed, seed, report })
    }
  }
  harness.all.close()
  harness.filtered.close()
}
