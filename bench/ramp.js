#!/usr/bin/env node
/**
 * How evenly a ramp spreads its starts (simulator/swarm/ramp.js startRamp): a ramp of --count
 * starts over --ramp-ms, --runs times; per run the starts in each quarter of the window (an even
 * ramp puts a quarter in each) and how late the starts were after their slot (i × rampMs / count),
 * then one JSON line with the worst quarter's share and the lateness p50/p99/max over the runs.
 * The tests check only what a busy host cannot break (order, none before its slot); this is where
 * evenness is measured, on a quiet host.
 *
 *   node bench/ramp.js [--count 200] [--ramp-ms 2000] [--runs 3]
 */
import os from 'node:os'
import { parseArgs } from 'node:util'
import { hostFacts } from '../lib/host.js'
import { monotonicMs } from '../lib/measure/clock.js'
import { startRamp } from '../simulator/swarm/ramp.js'
import { wholeNumber } from './args.js'

const { values } = parseArgs({
  options: { count: { type: 'string', default: '200' }, 'ramp-ms': { type: 'string', default: '2000' }, runs: { type: 'string', default: '3' } }
})
const count = wholeNumber('--count', values.count, { max: 100_000 })
const rampMs = wholeNumber('--ramp-ms', values['ramp-ms'], { max: 600_000 })
const runs = wholeNumber('--runs', values.runs, { max: 100 })

/** @type {number[][]} */
const quarters = []
/** @type {number[]} */
const lateMs = []
for (let r = 0; r < runs; r++) {
  const startMs = monotonicMs()
  /** @type {number[]} */
  const at = []
  await startRamp({ count, rampMs, onStart: () => at.push(monotonicMs() - startMs) }).done
  const bins = [0, 0, 0, 0]
  for (const ms of at) bins[Math.min(3, Math.floor((ms / rampMs) * 4))]++
  quarters.push(bins)
  at.forEach((ms, i) => lateMs.push(ms - (i * rampMs) / count))
}
lateMs.sort((a, b) => a - b)
const at = (/** @type {number} */ q) => Math.round(lateMs[Math.min(lateMs.length - 1, Math.floor(q * lateMs.length))] * 100) / 100
const shares = quarters.flat().map((n) => n / count)
process.stdout.write(`${JSON.stringify({
  bench: 'ramp',
  count,
  rampMs,
  runs,
  quarters,
  worstQuarterShare: { min: Math.min(...shares), max: Math.max(...shares) },
  lateMs: { p50: at(0.5), p99: at(0.99), max: at(1) },
  host: hostFacts(),
  loadAverage: os.loadavg().map((l) => Math.round(l * 100) / 100)
})}\n`)
