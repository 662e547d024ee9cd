#!/usr/bin/env node
/**
 * What holding idle clients costs each side, and so how many a machine can hold at once: a
 * server and one simulator process (the lean engine over WebSocket on its built-in client)
 * with --clients connected and nothing sent but the heartbeat, measured over --heartbeats whole
 * heartbeats after the ramp and a settle time. Each side's CPU is read from /proc (Linux), so
 * nothing inside the processes adds to what is measured; the host's own busy time beside them
 * (other processes, the kernel's daemons) is read from /proc/stat over the same window.
 *
 * Servers (--servers, in order):
 *   peer-v4  socket.io 4.8.1 with nothing of ioswarm's (test/peers/node/server.js; needs
 *            `npm ci --prefix test/peers`): the cost of Socket.IO itself
 *   serve    ioswarm's reference server (`ioswarm serve`)
 *
 * The fit: a layout of --fit-processes servers and as many simulator processes sharing
 * --fit-clients (scale.js's 400,000 on 24 + 24), each process at --clients, needs the sum of
 * both sides' CPU; beside it the machine's cores and what else was busy. A layout whose need
 * is near or above the cores cannot hold its clients however long its ramp: the heartbeat
 * alone takes the machine.
 *
 *   node bench/idle-cost.js [--clients 16667] [--servers peer-v4,serve] [--ping-interval 60s]
 *                           [--ramp 30s] [--settle-s 10] [--heartbeats 2] [--fit-clients 400000] [--fit-processes 24]
 *
 * One JSON line per server (bench: 'idle-cost'), then a summary ('idle-cost-host') with the
 * machine, its `node -e 0` time and its load before and after.
 */
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { existsSync, readFileSync } from 'node:fs'
import os from 'node:os'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { setTimeout as sleep } from 'node:timers/promises'
import { hostFacts } from '../lib/host.js'
import { parseDurationMs } from '../lib/values/parsers.js'
import { clockTicksPerSecond, parseStat } from '../server/probe/proc-sampler.js'
import { wholeNumber } from './args.js'
import { bootFacts } from './boot.js'

const BIN = fileURLToPath(new URL('../bin/ioswarm.js', import.meta.url))
const PEER = fileURLToPath(new URL('../test/peers/node/server.js', import.meta.url))
const PEER_MODULES = fileURLToPath(new URL('../test/peers/node_modules/socket.io-v4', import.meta.url))
const TOKEN = 'bench-idle-cost-token'
/** Clock ticks a second of /proc's CPU times. */
const TICKS_PER_S = clockTicksPerSecond()

const { values } = parseArgs({
  options: {
    clients: { type: 'string', default: '16667' },
    servers: { type: 'string', default: 'peer-v4,serve' },
    'ping-interval': { type: 'string', default: '60s' },
    ramp: { type: 'string', default: '30s' },
    'settle-s': { type: 'string', default: '10' },
    heartbeats: { type: 'string', default: '2' },
    'fit-clients': { type: 'string', default: '400000' },
    'fit-processes': { type: 'string', default: '24' }
  }
})

// A process holds its clients' sockets under its descriptor limit (20,000 on some hosts).
const clients = wholeNumber('--clients', values.clients, { max: 19000 })
const pingIntervalS = wholeSeconds('--ping-interval', values['ping-interval'], 600)
const rampS = wholeSeconds('--ramp', values.ramp, 3600)
const settleS = wholeNumber('--settle-s', values['settle-s'], { min: 0, max: 600 })
// A server's old-generation collection (hundreds of ms of CPU at 300 MB) comes every minute or
// two: one heartbeat's window catches it or not, so the default window is two.
const heartbeats = wholeNumber('--heartbeats', values.heartbeats, { max: 10 })
const fitClients = wholeNumber('--fit-clients', values['fit-clients'], { max: 10_000_000 })
const fitProcesses = wholeNumber('--fit-processes', values['fit-processes'], { max: 1000 })
const kinds = values.servers.split(',').map((s) => s.trim()).filter(Boolean)
for (const kind of kinds) {
  if (kind !== 'peer-v4' && kind !== 'serve') throw new Error(`--servers takes peer-v4 and serve, got ${JSON.stringify(kind)}`)
}
if (kinds.includes('peer-v4') && !existsSync(PEER_MODULES)) {
  throw new Error('--servers peer-v4 needs the pinned socket.io 4 of test/peers: run npm ci --prefix test/peers')
}
if (!existsSync('/proc/self/stat')) throw new Error('idle-cost.js reads CPU times from /proc: Linux only')

/** Every process this bench started, stopped by its pid whatever happens. @type {Set<import('node:child_process').ChildProcess>} */
const children = new Set()
process.on('exit', () => {
  for (const child of children) if (child.pid && child.exitCode === null) process.kill(child.pid, 'SIGKILL')
})

const loadBefore = os.loadavg()
const boot = bootFacts()
for (const kind of kinds) console.log(JSON.stringify(await measure(kind)))
console.log(JSON.stringify({
  bench: 'idle-cost-host',
  host: hostFacts(),
  ...boot,
  loadBefore: loadBefore.map((l) => Math.round(l * 100) / 100),
  loadAfter: os.loadavg().map((l) => Math.round(l * 100) / 100)
}))

/**
 * One server kind: start it, connect the clients, settle, measure the heartbeats, stop both.
 * @param {string} kind
 */
async function measure (kind) {
  const server = kind === 'peer-v4'
    ? start(process.execPath, [PEER], { SIO_VERSION: '4', PING_INTERVAL_MS: String(pingIntervalS * 1000) })
    : start(process.execPath, [BIN, 'serve', '--port', '0', '--host', '127.0.0.1', '--token', TOKEN,
      '--ping-interval', `${pingIntervalS}s`, '--json'])
  const { port } = await firstJsonLine(server)
  const countUrl = `http://127.0.0.1:${port}/${kind === 'peer-v4' ? 'count' : 'stats'}`
  // Long enough to outlast the measurement; stopped by the bench as soon as it is done.
  const durationS = rampS + 120 + settleS + pingIntervalS * heartbeats + 30
  const simulator = start(process.execPath, [BIN, 'simulate', '-c', String(clients), '--engine', 'lean',
    '--transport', 'websocket', '--ws-client', 'builtin', '--url', `http://127.0.0.1:${port}`,
    '--ramp', `${rampS}s`, '--duration', `${durationS}s`, '--event', 'none', '--quiet', '--json'])
  try {
    const connectedS = await waitForClients(countUrl, simulator, rampS + 120)
    await sleep(settleS * 1000)
    const before = { server: cpuTicks(server), simulator: cpuTicks(simulator), host: hostBusyTicks(), atMs: performance.now() }
    await sleep(pingIntervalS * heartbeats * 1000)
    const after = { server: cpuTicks(server), simulator: cpuTicks(simulator), host: hostBusyTicks(), atMs: performance.now() }
    const connectedAfter = await count(countUrl)
    const windowS = (after.atMs - before.atMs) / 1000
    const msPerS = (/** @type {number} */ ticks) => Math.round(ticks / TICKS_PER_S / windowS * 1000 * 10) / 10
    const serverMs = msPerS(after.server - before.server)
    const simulatorMs = msPerS(after.simulator - before.simulator)
    const hostMs = msPerS(after.host - before.host)
    const otherMs = Math.max(0, Math.round((hostMs - serverMs - simulatorMs) * 10) / 10)
    const scale = fitClients / fitProcesses / clients
    const cores = (/** @type {number} */ ms) => Math.round(ms * fitProcesses * scale) / 1000
    return {
      bench: 'idle-cost',
      server: kind,
      clients,
      connectedAtEnd: connectedAfter,
      connectedInS: connectedS,
      pingIntervalS,
      windowS: Math.round(windowS * 10) / 10,
      serverMsPerS: serverMs,
      simulatorMsPerS: simulatorMs,
      // µs of CPU a second for each idle client; a process's own fixed cost is in it.
      serverUsPerClient: Math.round(serverMs * 1000 / clients * 100) / 100,
      simulatorUsPerClient: Math.round(simulatorMs * 1000 / clients * 100) / 100,
      serverRssBytes: rssBytes(server),
      simulatorRssBytes: rssBytes(simulator),
      otherMsPerS: otherMs,
      fit: {
        clients: fitClients,
        processesEachSide: fitProcesses,
        // Measured at --clients a process: at another count each process's CPU is scaled by the
        // count, its fixed part too (a small --clients overstates the need).
        clientsEachProcess: Math.round(fitClients / fitProcesses),
        scaledFrom: clients,
        coresServers: cores(serverMs),
        coresSimulators: cores(simulatorMs),
        // The rest of the host is not multiplied: it is there whatever the layout.
        coresOther: Math.round(otherMs) / 1000,
        coresNeeded: Math.round(cores(serverMs) * 1000 + cores(simulatorMs) * 1000 + otherMs) / 1000,
        cores: os.availableParallelism()
      }
    }
  } finally {
    await stop(simulator)
    await stop(server)
  }
}

/**
 * @param {string} command
 * @param {string[]} args
 * @param {Record<string, string>} [env]
 */
function start (command, args, env = {}) {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'ignore'], env: { ...process.env, ...env } })
  children.add(child)
  child.stdout?.setEncoding('utf8')
  return child
}

/** @param {import('node:child_process').ChildProcess} child */
async function stop (child) {
  if (child.pid && child.exitCode === null && child.signalCode === null) {
    const closed = once(child, 'close')
    child.kill('SIGTERM')
    const killer = setTimeout(() => child.kill('SIGKILL'), 10_000)
    await closed
    clearTimeout(killer)
  }
  children.delete(child)
}

/**
 * The server's first line: `{"port": N, …}`.
 * @param {import('node:child_process').ChildProcess} child
 * @returns {Promise<{ port: number }>}
 */
async function firstJsonLine (child) {
  let text = ''
  try {
    // A data listener, not a for-await over the stream: leaving that loop would destroy the
    // pipe, and the server's later lines would meet a closed one.
    for (const signal = AbortSignal.timeout(30_000); ;) {
      const [chunk] = await once(/** @type {import('node:stream').Readable} */ (child.stdout), 'data', { signal })
      text += chunk
      const line = text.split('\n').find((l) => l.startsWith('{'))
      if (line) return JSON.parse(line)
    }
  } catch (error) {
    if (/** @type {Error} */ (error).name !== 'AbortError') throw error
    throw new Error(`the server (pid ${child.pid}) printed no {"port": …} line within 30 s`)
  }
}

/**
 * Seconds until the server counts every client; an error if it does not within limitS.
 * @param {string} url
 * @param {import('node:child_process').ChildProcess} simulator
 * @param {number} limitS
 */
async function waitForClients (url, simulator, limitS) {
  const startedMs = Date.now()
  let connected = 0
  while (Date.now() - startedMs < limitS * 1000) {
    connected = await count(url)
    if (connected >= clients) return Math.round((Date.now() - startedMs) / 100) / 10
    if (simulator.exitCode !== null) break
    await sleep(1000)
  }
  const exited = simulator.exitCode !== null ? ` (the simulator exited with ${simulator.exitCode})` : ''
  throw new Error(`${connected} of ${clients} clients connected within ${limitS} s${exited}`)
}

/** @param {string} url @returns {Promise<number>} the server's count of connected clients (0 when it does not answer) */
async function count (url) {
  try {
    const answer = await fetch(url, { signal: AbortSignal.timeout(5000) })
    const body = /** @type {{ connected?: unknown }} */ (await answer.json())
    return Number(body.connected) || 0
  } catch {
    return 0
  }
}

/** @param {import('node:child_process').ChildProcess} child @returns {number} user + system clock ticks so far */
function cpuTicks (child) {
  const stat = parseStat(readFileSync(`/proc/${child.pid}/stat`, 'utf8'))
  return stat.utimeTicks + stat.stimeTicks
}

/** @returns {number} the host's busy clock ticks so far, all CPUs (user, nice, system, irq, softirq, steal) */
function hostBusyTicks () {
  const cpuLine = readFileSync('/proc/stat', 'utf8').split('\n')[0]
  const [, user, nice, system, , , irq, softirq, steal] = cpuLine.trim().split(/\s+/).map(Number)
  return user + nice + system + irq + softirq + steal
}

/** @param {import('node:child_process').ChildProcess} child */
function rssBytes (child) {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))
  return match ? Number(match[1]) * 1024 : null
}

/**
 * A duration flag in whole seconds (the server's and the simulator's flags take it as `Ns`).
 * @param {string} flag
 * @param {string} text e.g. 60s, 1m
 * @param {number} maxS
 */
function wholeSeconds (flag, text, maxS) {
  const ms = parseDurationMs(text, flag, { max: maxS * 1000 })
  if (ms < 1000 || ms % 1000 !== 0) throw new Error(`${flag} must be whole seconds from 1 to ${maxS} (e.g. 60s), got ${JSON.stringify(text)}`)
  return ms / 1000
}
