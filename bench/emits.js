#!/usr/bin/env node
/**
 * Emits with acks: N clients of one simulator process (`ioswarm simulate`'s own child,
 * simulator/processes/child.js, forked) emit `chat {"text":"hi"}` with --emit-ack at a total rate against
 * a minimal socket.io 4 server in this process that acks every emit ({ ok: true }), so the
 * server's CPU is not the simulator's. For each engine (lean, lean-builtin: lean on its
 * built-in WebSocket client, sio) the rate steps up (--rates, bounded) until a step is not
 * sustained: two or more one-second samples of the simulator's own health in the window
 * saturated (event-loop utilisation ≥ 0.9 or loop delay p99 ≥ 50 ms, lib/measure/process-sampler.js:
 * what the simulator itself calls saturated), or fewer than 95 % of the step's emits acked in
 * the window. The same scenario runs in Artillery's socketio engine (each virtual user a loop
 * of emit + acknowledge ({ ok: true } matched) + think; its `socketio.response_time`) at
 * --artillery-rates, if Artillery is installed as bench/README.md says (else a `skipped` line).
 *
 *   node bench/emits.js [--clients 1000] [--engines lean,sio,artillery] [--transport websocket]
 *                       [--rates 2000,5000,10000,15000,20000,25000,30000,40000]
 *                       [--warmup-seconds 4] [--seconds 10]
 *                       [--artillery-bin PATH] [--artillery-clients 200] [--artillery-rates 2000]
 *                       [--pin]
 *
 * --pin: the server (this process, all its threads) on CPU 1 and each simulator (or Artillery's
 * whole process tree) on CPU 0, with taskset(1), so that the server runs "elsewhere": the two
 * never share a core, and a simulator's rate is not capped by the server's work on its core.
 *
 * One JSON line per step (bench: 'emits'), then one summary line per engine (bench:
 * 'emits-summary'). Client CPU is the simulator process's (or Artillery's whole process
 * tree's) user + system time from /proc over the measured window, divided by the emits the
 * server acked in that window. Profiles: `node --cpu-prof --cpu-prof-dir DIR
 * bench/emits.js …` (the simulators inherit the flags; one .cpuprofile per process).
 */
import { spawn } from 'node:child_process'
import { createServer } from 'node:http'
import { once } from 'node:events'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { setTimeout as sleep } from 'node:timers/promises'
import { Server } from 'socket.io'
import { stringify } from 'yaml'
import { hostFacts } from '../lib/host.js'
import { SATURATED_ELU, SATURATED_LOOP_DELAY_MS } from '../lib/measure/process-sampler.js'
import { forkSimulator, normalizeSimOptions } from '../simulator/index.js'
import { clockTicksPerSecond, parseStat } from '../server/probe/proc-sampler.js'
import { findArtilleryBin, followTree } from './artillery-case.js'
import { pin } from './pin.js'
import { wholeNumber } from './args.js'

const TICKS = clockTicksPerSecond()
/** How long all clients may take to connect. */
const CONNECT_LIMIT_MS = 60000
/** A step is sustained when at least this share of its offered emits was acked in the window. */
const SUSTAINED_SHARE = 0.95
/**
 * One saturated second in a window is let pass: on a shared host another process's burst
 * stalls the loop for a moment (loop delay p99 ≥ 50 ms at ELU 0.3); two or more is saturation.
 */
const MAX_SATURATED_SAMPLES = 1

const { values } = parseArgs({
  options: {
    clients: { type: 'string', default: '1000' },
    engines: { type: 'string', default: 'lean,sio,artillery' },
    transport: { type: 'string', default: 'websocket' },
    rates: { type: 'string', default: '2000,5000,10000,15000,20000,25000,30000,40000' },
    'warmup-seconds': { type: 'string', default: '4' },
    seconds: { type: 'string', default: '10' },
    'artillery-bin': { type: 'string' },
    'artillery-clients': { type: 'string', default: '200' },
    'artillery-rates': { type: 'string', default: '2000' },
    pin: { type: 'boolean', default: false }
  }
})
const clients = wholeNumber('--clients', values.clients)
const warmupMs = wholeNumber('--warmup-seconds', values['warmup-seconds'], { min: 0 }) * 1000
const windowMs = wholeNumber('--seconds', values.seconds) * 1000
const rates = values.rates.split(',').map((r) => wholeNumber('--rates', r))
const artilleryRates = values['artillery-rates'].split(',').map((r) => wholeNumber('--artillery-rates', r))
const artilleryClients = wholeNumber('--artillery-clients', values['artillery-clients'])
if (rates.length > 20) throw new Error('--rates: at most 20 steps')
/** CPUs of the server and of the simulators with --pin (null: wherever the kernel puts them). */
const SERVER_CPU = values.pin ? 1 : null
const CLIENT_CPU = values.pin ? 0 : null
if (values.pin && os.availableParallelism() < 2) throw new Error(`--pin needs 2 CPUs, this host has ${os.availableParallelism()}`)
if (SERVER_CPU !== null) pin(process.pid, SERVER_CPU)

// The server: acks every chat emit, counts them (the window's denominator), nothing else.
const httpServer = createServer()
const io = new Server(httpServer, { serveClient: false })
let received = 0
io.on('connection', (socket) => {
  socket.on('chat', (/** @type {unknown} */ _message, /** @type {unknown} */ ack) => {
    received++
    if (typeof ack === 'function') ack({ ok: true })
  })
})
httpServer.listen(0, '127.0.0.1')
await once(httpServer, 'listening')
const url = `http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (httpServer.address()).port}`
const connected = () => io.of('/').sockets.size

try {
  for (const engine of values.engines.split(',')) {
    const steps = []
    if (engine === 'artillery') {
      const found = findArtilleryBin(values['artillery-bin'])
      if ('skipped' in found) {
        print({ bench: 'emits', engine, skipped: found.skipped })
        continue
      }
      for (const rate of artilleryRates) {
        const step = await artilleryStep(found.bin, rate)
        steps.push(step)
        print({ bench: 'emits', ...step })
      }
    } else {
      // Bounded: one step per --rates entry, stopping at the first that saturates.
      for (const rate of rates) {
        const step = await simulatorStep(engine, rate)
        steps.push(step)
        print({ bench: 'emits', ...step })
        if (!step.sustained) break
      }
    }
    const best = steps.filter((s) => s.sustained).at(-1)
    print({
      bench: 'emits-summary',
      engine,
      transport: engine === 'artillery' ? 'websocket' : values.transport,
      clients: engine === 'artillery' ? artilleryClients : clients,
      highestSustainedAckedPerSec: best?.ackedPerSec ?? null,
      atOfferedRate: best?.offeredPerSec ?? null,
      firstSaturated: steps.find((s) => !s.sustained)?.offeredPerSec ?? null,
      cpuUsPerAckedEmit: Object.fromEntries(steps.map((s) => [s.offeredPerSec, s.cpuUsPerAckedEmit])),
      pinned: values.pin ? { serverCpu: SERVER_CPU, clientCpu: CLIENT_CPU } : null,
      host: hostFacts(),
      loadAverage: os.loadavg().map((l) => Math.round(l * 100) / 100)
    })
  }
} finally {
  io.close()
  httpServer.closeAllConnections()
}

/**
 * One rate step of one engine: a fresh simulator, connected, warmed up, then measured.
 * @param {string} engine
 * @param {number} rate total emits per second asked of the whole simulator
 */
async function simulatorStep (engine, rate) {
  const loadAverage = os.loadavg()[0]
  const options = normalizeSimOptions({
    clients,
    url,
    // lean-builtin: the lean engine on its built-in WebSocket client (--ws-client builtin).
    engine: engine === 'lean-builtin' ? 'lean' : engine,
    ...(engine === 'lean-builtin' ? { wsClient: 'builtin' } : {}),
    transport: values.transport,
    ramp: '2s',
    emit: 'chat {"text":"hi"}',
    // rate/clients emits a second per client, Poisson gaps (the simulator's default timing).
    emitRate: `${rate}/${clients}s`,
    emitters: '100%',
    emitAck: true,
    ackTimeout: '10s'
  })
  const sim = forkSimulator({ ...options, id: `emits-${engine}-${rate}` })
  try {
    if (CLIENT_CPU !== null) pin(/** @type {number} */ (sim.pid), CLIENT_CPU)
    const deadline = Date.now() + CONNECT_LIMIT_MS
    while (connected() < clients && Date.now() < deadline && sim.process.exitCode === null) await sleep(100)
    if (connected() < clients) {
      throw new Error(`${engine}: ${connected()} of ${clients} clients connected within ${CONNECT_LIMIT_MS} ms: ${sim.failure() ?? ''}`)
    }
    await sleep(warmupMs)
    const a = await snapshot(/** @type {number} */ (sim.pid))
    await sleep(windowMs)
    const b = await snapshot(/** @type {number} */ (sim.pid))
    await sim.stop(30000)
    const { result } = await sim.outcome
    if (!result) throw new Error(`${engine}: the simulator gave no result: ${sim.failure() ?? ''}`)
    const emits = result.scenario?.emits
    const inWindow = result.health.samples.filter((s) => s.t > a.atMs + 1000 && s.t <= b.atMs)
    const saturatedSamples = inWindow.filter((s) => s.elu >= SATURATED_ELU || s.loopDelayP99Ms >= SATURATED_LOOP_DELAY_MS).length
    const acked = b.received - a.received
    const seconds = (b.atMs - a.atMs) / 1000
    const ackedPerSec = acked / seconds
    const cpuUs = (b.cpuTicks - a.cpuTicks) * 1e6 / TICKS
    const ack = emits?.ackTime ?? null
    return {
      engine,
      transport: values.transport,
      clients,
      offeredPerSec: rate,
      ackedPerSec: Math.round(ackedPerSec),
      sustained: saturatedSamples <= MAX_SATURATED_SAMPLES && ackedPerSec >= SUSTAINED_SHARE * rate,
      cpuUsPerAckedEmit: round1(cpuUs / Math.max(1, acked)),
      cpuSystemUsPerAckedEmit: round1((b.systemTicks - a.systemTicks) * 1e6 / TICKS / Math.max(1, acked)),
      simulatorCpuPct: round1(cpuUs / 1e4 / seconds),
      serverCpuPct: round1((b.serverCpuUs - a.serverCpuUs) / 1e4 / seconds),
      eluMax: round2(Math.max(0, ...inWindow.map((s) => s.elu))),
      loopDelayP99MaxMs: round1(Math.max(0, ...inWindow.map((s) => s.loopDelayP99Ms))),
      saturatedSamples,
      samples: inWindow.length,
      // The whole run (warm-up and ramp included), from the simulator's own HDR histogram.
      ackMs: ack ? { p50: ack.p50, p99: ack.p99, max: ack.max } : null,
      emits: emits ? { sent: emits.sent, acked: emits.acked, timedOut: emits.timedOut, failed: emits.failed } : null,
      loadAverageBefore: round2(loadAverage)
    }
  } finally {
    if (sim.process.exitCode === null && sim.process.signalCode === null) await sim.stop(10000)
  }
}

/**
 * The same scenario in Artillery's socketio engine: `artilleryClients` virtual users, each a
 * loop of emit (acknowledge: { ok: true }) and think, long enough to outlive the window.
 * Artillery's think is fixed, so a user's rate is 1 / (think + ack time): the rate is what the
 * server counted, and a step is sustained at ≥ 95 % of the offered rate.
 * @param {string} bin
 * @param {number} rate
 */
async function artilleryStep (bin, rate) {
  const loadAverage = os.loadavg()[0]
  const dir = await mkdtemp(path.join(os.tmpdir(), 'ioswarm-emits-artillery-'))
  const thinkS = artilleryClients / rate
  const arriveS = 5
  const loops = Math.ceil((arriveS * 2 + warmupMs / 1000 + windowMs / 1000 + 10) / thinkS)
  const script = {
    config: {
      target: url,
      phases: [{ duration: arriveS, arrivalRate: Math.ceil(artilleryClients / arriveS), maxVusers: artilleryClients }],
      socketio: { transports: ['websocket'] }
    },
    scenarios: [{
      engine: 'socketio',
      flow: [{
        loop: [
          { emit: { channel: 'chat', data: { text: 'hi' } }, acknowledge: { match: { json: '$.0.ok', value: true } } },
          { think: `${Math.max(1, Math.round(thinkS * 1000))}ms` }
        ],
        count: loops
      }]
    }]
  }
  const file = path.join(dir, 'emits.yml')
  const report = path.join(dir, 'report.json')
  await writeFile(file, stringify(script))
  // With --pin, Artillery and every process it forks start on the client CPU (affinity is inherited).
  const argv = CLIENT_CPU === null ? [bin, 'run'] : ['taskset', '-c', String(CLIENT_CPU), bin, 'run']
  const child = spawn(argv[0], [...argv.slice(1), '--quiet', '--output', report, file], {
    cwd: dir,
    env: { ...process.env, ARTILLERY_DISABLE_TELEMETRY: '1' },
    stdio: ['ignore', 'ignore', 'pipe']
  })
  let stderr = ''
  child.stderr.on('data', (d) => { stderr = (stderr + d).slice(-2000) })
  const { tree, stop: stopTree } = followTree(child)
  try {
    const deadline = Date.now() + CONNECT_LIMIT_MS
    while (connected() < artilleryClients && Date.now() < deadline && child.exitCode === null) await sleep(100)
    if (connected() < artilleryClients) {
      throw new Error(`artillery: ${connected()} of ${artilleryClients} users connected within ${CONNECT_LIMIT_MS} ms: ${stderr.trim()}`)
    }
    await sleep(warmupMs)
    const a = { ...await tree(), received, serverCpuUs: serverCpuUs() }
    await sleep(windowMs)
    const b = { ...await tree(), received, serverCpuUs: serverCpuUs() }
    // The loops end by themselves; Artillery then writes its report.
    const exitDeadline = Date.now() + (arriveS * 2 + 30) * 1000 + loops * thinkS * 1000
    while (child.exitCode === null && Date.now() < exitDeadline) await sleep(250)
    const aggregate = child.exitCode === 0 ? JSON.parse(await readFile(report, 'utf8')).aggregate : null
    const rt = aggregate?.summaries?.['socketio.response_time'] ?? null
    const acked = b.received - a.received
    const seconds = (b.atMs - a.atMs) / 1000
    const cpuUs = (b.cpuTicks - a.cpuTicks) * 1e6 / TICKS
    return {
      engine: 'artillery',
      transport: 'websocket',
      clients: artilleryClients,
      offeredPerSec: rate,
      ackedPerSec: Math.round(acked / seconds),
      sustained: acked / seconds >= SUSTAINED_SHARE * rate,
      cpuUsPerAckedEmit: round1(cpuUs / Math.max(1, acked)),
      simulatorCpuPct: round1(cpuUs / 1e4 / seconds),
      serverCpuPct: round1((b.serverCpuUs - a.serverCpuUs) / 1e4 / seconds),
      processes: b.procs.length,
      threads: b.threads,
      // Artillery's own socketio.response_time (emit → matched ack), the whole run.
      ackMs: rt ? { p50: rt.p50 ?? rt.median, p99: rt.p99, max: rt.max } : null,
      emits: aggregate
        ? {
            sent: aggregate.counters?.['socketio.emit'] ?? null,
            errors: Object.fromEntries(Object.entries(aggregate.counters ?? {}).filter(([k]) => k.startsWith('errors.')))
          }
        : null,
      loadAverageBefore: round2(loadAverage),
      ...(child.exitCode !== 0 ? { error: `artillery exited ${child.exitCode}: ${stderr.trim().split('\n').slice(-3).join(' | ')}` } : {})
    }
  } finally {
    await stopTree()
    await rm(dir, { recursive: true, force: true })
  }
}

/**
 * The simulator's CPU ticks and the server's count at one moment.
 * @param {number} pid
 */
async function snapshot (pid) {
  const stat = parseStat(await readFile(`/proc/${pid}/stat`, 'utf8'))
  return { cpuTicks: stat.utimeTicks + stat.stimeTicks, systemTicks: stat.stimeTicks, received, serverCpuUs: serverCpuUs(), atMs: Date.now() }
}

function serverCpuUs () {
  const cpu = process.cpuUsage()
  return cpu.user + cpu.system
}

/** @param {unknown} line */
function print (line) {
  process.stdout.write(`${JSON.stringify(line)}\n`)
}

/** @param {number} v */
function round1 (v) { return Math.round(v * 10) / 10 }
/** @param {number} v */
function round2 (v) { return Math.round(v * 100) / 100 }
