#!/usr/bin/env node
/**
 * Capacity search against the reference server on this machine: starts `ioswarm serve`
 * (`--cluster K` workers, 0 = one process) on a free loopback port, runs `ioswarm capacity`'s
 * engine (runCapacity) against it, stops the server and prints one JSON line: the answer,
 * how long the search took, every step (clients, p99, verdict, the server's CPU), and the
 * proof that no step was the simulators' (their worst event-loop utilisation, floor and loop
 * stall, inconclusive steps), with the load average before and after.
 *
 *   node bench/capacity.js [--cluster 0] [--slo 'p99<500ms' --slo missing=0] [--start 1000] [--max 19000]
 *                          [--growth 1.5] [--precision 5%] [--ramp 5s] [--simulators 2] [--rounds 3x1000]
 */
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { hostFacts } from '../lib/host.js'
import { runCapacity } from '../runner/capacity/index.js'

const BIN = fileURLToPath(new URL('../bin/ioswarm.js', import.meta.url))
const TOKEN = 'bench-capacity-token'

const { values } = parseArgs({
  options: {
    cluster: { type: 'string', default: '0' },
    slo: { type: 'string', multiple: true, default: ['p99<500ms', 'missing=0'] },
    start: { type: 'string', default: '1000' },
    max: { type: 'string', default: '19000' },
    growth: { type: 'string', default: '1.5' },
    precision: { type: 'string', default: '5%' },
    ramp: { type: 'string', default: '5s' },
    simulators: { type: 'string', default: '2' },
    rounds: { type: 'string', default: '3x1000' }
  }
})

const loadBefore = readFileSync('/proc/loadavg', 'utf8').trim()
const server = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--host', '127.0.0.1', '--token', TOKEN, '--cluster', values.cluster, '--json'],
  { stdio: ['ignore', 'pipe', 'inherit'] })
process.on('exit', () => { if (server.pid && server.exitCode === null) process.kill(server.pid, 'SIGTERM') })
const [line] = /** @type {[Buffer]} */ (await once(/** @type {import('node:stream').Readable} */ (server.stdout), 'data'))
const { url } = /** @type {{ url: string }} */ (JSON.parse(String(line).split('\n')[0]))

const result = await runCapacity({
  target: url,
  token: TOKEN,
  slo: values.slo,
  start: values.start,
  max: values.max,
  growth: values.growth,
  precision: values.precision,
  ramp: values.ramp,
  simulators: values.simulators,
  rounds: values.rounds,
  engine: 'lean',
  wsClient: 'builtin'
}, { log: (l) => process.stderr.write(`${l}\n`) })
server.kill('SIGTERM')
await once(server, 'exit')

const measured = result.steps.filter((s) => s.limitedBy !== 'limit')
/** @param {(s: import('../lib/schema/capacity-schema.js').StepSimulator) => number} pick */
const worst = (pick) => Math.max(0, ...measured.flatMap((s) => s.simulators.map(pick)))
process.stdout.write(`${JSON.stringify({
  bench: 'capacity',
  serverCluster: Number(values.cluster),
  slo: result.slo,
  outcome: result.outcome,
  capacity: result.capacity,
  bounds: result.bounds,
  answer: result.answer,
  durationS: Math.round(result.durationMs / 1000),
  steps: result.steps.map((s) => ({
    clients: s.clients,
    phase: s.phase,
    p99Ms: s.relative.p99,
    missing: s.missing,
    serverCpuPctMax: s.server?.cpuPctMax ?? null,
    verdict: s.verdict
  })),
  simulators: {
    count: result.swarm.simulators,
    eluMax: worst((x) => x.eluMax),
    loopDelayMaxMs: worst((x) => x.loopDelayMaxMs),
    floorMaxMs: Math.max(0, ...measured.map((s) => s.floor?.maxMs ?? 0)),
    inconclusiveSteps: result.steps.filter((s) => s.verdict === 'inconclusive').length
  },
  host: hostFacts(),
  loadavg: { before: loadBefore, after: readFileSync('/proc/loadavg', 'utf8').trim() }
})}\n`)
process.exit(0)
