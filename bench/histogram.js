#!/usr/bin/env node
/**
 * What one summary of a delay histogram costs (lib/measure/histogram.js summarize: count, mean, min,
 * max, p50/p90/p99), paid by every closed message report (relative and absolute), window, node
 * row and ack/reply figure. Histograms of several shapes and sizes, each summarised --runs
 * times after a warm-up; one JSON line per shape, then a summary line.
 *
 *   node bench/histogram.js [--runs 2000] [--root DIR]
 *
 * `--root DIR`: the ioswarm tree whose lib/measure/histogram.js is measured (a base checkout, for
 * before/after), default this one.
 */
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { pathToFileURL, fileURLToPath } from 'node:url'
import { hostFacts } from '../lib/host.js'

const { values } = parseArgs({ options: { runs: { type: 'string', default: '2000' }, root: { type: 'string' } } })
const runs = Number(values.runs)
if (!Number.isInteger(runs) || runs < 1 || runs > 1_000_000) {
  throw new Error(`--runs must be a whole number from 1 to 1,000,000, got ${JSON.stringify(values.runs)}`)
}
const root = path.resolve(values.root ?? path.join(path.dirname(fileURLToPath(import.meta.url)), '..'))
const { createHistogram, recordMs, summarize } = await import(pathToFileURL(path.join(root, 'lib/measure/histogram.js')).href)

/** Delays in ms, by shape: what relative delays of one message look like at a few scales. */
const SHAPES = {
  '10 values, 0-12 ms': (/** @type {number} */ k) => k * 1.3,
  '100 values, 0-50 ms': (/** @type {number} */ k) => (k * 37) % 50,
  '1,000 values, 0-2 s': (/** @type {number} */ k) => (k * 7919) % 2000,
  '10 values, 0-9 s': (/** @type {number} */ k) => k * 1000
}
const SIZES = { '10 values, 0-12 ms': 10, '100 values, 0-50 ms': 100, '1,000 values, 0-2 s': 1000, '10 values, 0-9 s': 10 }

const rows = []
for (const [shape, delay] of Object.entries(SHAPES)) {
  const h = createHistogram()
  for (let k = 0; k < SIZES[/** @type {keyof typeof SIZES} */ (shape)]; k++) recordMs(h, delay(k))
  for (let k = 0; k < Math.min(runs, 200); k++) summarize(h) // warm-up
  const before = process.cpuUsage()
  const started = process.hrtime.bigint()
  for (let k = 0; k < runs; k++) summarize(h)
  const wallNs = Number(process.hrtime.bigint() - started)
  const cpu = process.cpuUsage(before)
  const usPerSummary = Math.round(wallNs / runs / 10) / 100
  const row = { bench: 'histogram', shape, runs, usPerSummary, cpuUsPerSummary: Math.round((cpu.user + cpu.system) / runs * 100) / 100 }
  rows.push(row)
  process.stdout.write(`${JSON.stringify(row)}\n`)
}
const usPerSummary = Object.fromEntries(rows.map((r) => [r.shape, r.usPerSummary]))
const loadAverage = os.loadavg().map((l) => Math.round(l * 100) / 100)
process.stdout.write(`${JSON.stringify({ bench: 'histogram-summary', root, usPerSummary, host: hostFacts(), loadAverage })}\n`)
