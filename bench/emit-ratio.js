#!/usr/bin/env node
/**
 * An acked emit against the floor under it, in pairs: emit-floor.js and emits.js (one engine,
 * one rate) run one after the other, --pairs times, the order swapped every pair (floor first,
 * then emits first) so that a drift of the host's speed falls on both alike. On a VM one run of
 * either moves by ±15 %, more than the distance being measured, so a single pair says little;
 * the median of the pairs' ratios (client CPU per acked emit ÷ client CPU per bare round trip)
 * is the figure.
 *
 *   node bench/emit-ratio.js [--pairs 5] [--clients 200] [--rate 5000] [--engine lean-builtin]
 *                            [--seconds 10] [--no-pin]
 *
 * One JSON line per pair (bench: 'emit-ratio-pair'), then a summary ('emit-ratio'): the median,
 * lowest and highest ratio, the median of each side's µs, the load before and after, and the boot
 * (CPU model, a bare `node -e 0`'s ms).
 */
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { hostFacts } from '../lib/host.js'
import { wholeNumber } from './args.js'
import { bootFacts } from './boot.js'

const here = path.dirname(fileURLToPath(import.meta.url))
const { values } = parseArgs({
  options: {
    pairs: { type: 'string', default: '5' },
    clients: { type: 'string', default: '200' },
    rate: { type: 'string', default: '5000' },
    engine: { type: 'string', default: 'lean-builtin' },
    seconds: { type: 'string', default: '10' },
    'no-pin': { type: 'boolean', default: false }
  }
})

// Bounded: a pair takes about half a minute, so at most 40 of them.
const pairs = wholeNumber('--pairs', values.pairs, { max: 40 })
const clients = wholeNumber('--clients', values.clients, { max: 100000 })
const rate = wholeNumber('--rate', values.rate, { max: 1000000 })
const seconds = wholeNumber('--seconds', values.seconds, { max: 600 })
const pinArgs = values['no-pin'] ? [] : ['--pin']

/**
 * Runs one bench script and returns the first JSON line of the kind asked for.
 * @param {string} script
 * @param {string[]} args
 * @param {string} kind the `bench` field of the line wanted
 * @returns {Promise<Record<string, any>>}
 */
async function runBench (script, args, kind) {
  const child = spawn(process.execPath, [path.join(here, script), ...args], { stdio: ['ignore', 'pipe', 'inherit'] })
  let out = ''
  child.stdout.on('data', (d) => { out += d })
  const [code, signal] = await once(child, 'exit')
  if (code !== 0) throw new Error(`bench/${script} ended with ${signal ?? `exit ${code}`}`)
  for (const line of out.split('\n')) {
    if (!line.startsWith('{')) continue
    const row = JSON.parse(line)
    if (row.bench === kind) return row
  }
  throw new Error(`bench/${script} printed no '${kind}' line`)
}

const floor = () => runBench('emit-floor.js', ['--clients', String(clients), '--rates', String(rate),
  '--seconds', String(seconds), ...pinArgs], 'emit-floor')
const emits = () => runBench('emits.js', ['--clients', String(clients), '--rates', String(rate),
  '--engines', values.engine, '--seconds', String(seconds), ...pinArgs], 'emits')

/** @param {number[]} xs */
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  const m = Math.floor(s.length / 2)
  return s.length % 2 === 1 ? s[m] : (s[m - 1] + s[m]) / 2
}
const round2 = (/** @type {number} */ x) => Math.round(x * 100) / 100

const loadBefore = os.loadavg()
const boot = bootFacts()
const ratios = []
const floorUs = []
const emitUs = []
for (let p = 0; p < pairs; p++) {
  const floorFirst = p % 2 === 0
  const a = floorFirst ? await floor() : await emits()
  const b = floorFirst ? await emits() : await floor()
  const f = floorFirst ? a : b
  const e = floorFirst ? b : a
  if (!e.sustained) throw new Error(`pair ${p + 1}: ${values.engine} did not sustain ${rate}/s (${e.ackedPerSec}/s acked): no ratio at a rate it cannot hold`)
  const ratio = e.cpuUsPerAckedEmit / f.cpuUsPerTrip
  ratios.push(ratio)
  floorUs.push(f.cpuUsPerTrip)
  emitUs.push(e.cpuUsPerAckedEmit)
  console.log(JSON.stringify({
    bench: 'emit-ratio-pair',
    pair: p + 1,
    first: floorFirst ? 'floor' : 'emits',
    floorUsPerTrip: f.cpuUsPerTrip,
    floorSystemUs: f.cpuSystemUsPerTrip,
    emitUsPerAck: e.cpuUsPerAckedEmit,
    emitSystemUs: e.cpuSystemUsPerAckedEmit,
    ratio: round2(ratio),
    loadAverage: round2(os.loadavg()[0])
  }))
}
console.log(JSON.stringify({
  bench: 'emit-ratio',
  engine: values.engine,
  clients,
  rate,
  pairs,
  pinned: !values['no-pin'],
  medianRatio: round2(median(ratios)),
  lowestRatio: round2(Math.min(...ratios)),
  highestRatio: round2(Math.max(...ratios)),
  medianFloorUs: median(floorUs),
  medianEmitUs: median(emitUs),
  loadAverageBefore: loadBefore.map(round2),
  loadAverageAfter: os.loadavg().map(round2),
  host: hostFacts(),
  ...boot
}))
