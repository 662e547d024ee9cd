#!/usr/bin/env node
/**
 * Start-up benchmark (a process loads only what it uses): how long a bare simulator child takes to be
 * ready and how much memory it peaks at, and how long `ioswarm --help` / `--version` take.
 * Several checkouts (e.g. the base branch in a `git worktree` and this one) are measured in
 * alternating runs, so a machine that gets busier part-way hits each of them alike.
 *
 *   node bench/startup.js [--runs 10] [--checkouts DIR[,DIR…]] [--clients 2] [--serve]
 *
 * Per checkout, one JSON line per case, medians (and min, max) over the runs:
 * - `child`: simulator/processes/child.js forked with an IPC channel, as `ioswarm run` forks it. `readyMs`:
 *   fork → its answer to a first IPC message (every static import loaded); `readyCpuMs`: the
 *   CPU time its threads had used then (each thread's /proc/PID/task/TID/schedstat: steadier
 *   than wall time on a busy host); `clientsMs`: fork → its --clients lean WebSocket clients
 *   connected to a socket.io server in this process, or with --serve to `ioswarm serve` (this
 *   checkout's, a process of its own: 1,000 clients do not share the bench's event loop) counted
 *   by its GET /stats (reporting over IPC, as under `run`);
 *   `readyPeakRssMiB`, `peakRssMiB`: the child's VmHWM (peak RSS) when ready, and once its
 *   clients are connected.
 * - `bare`: the floor, bench/startup-bare.cjs (answers the first IPC message, loads nothing)
 *   forked the same way: `readyMs`, `readyCpuMs`, `readyPeakRssMiB`.
 * - `help`, `version`: `node bin/ioswarm.js --help` / `--version`, spawn → exit; peak RSS and CPU
 *   time (user + system, 10 ms steps) from /usr/bin/time (null without it).
 */
import { fork, spawn } from 'node:child_process'
import { once } from 'node:events'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import http from 'node:http'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { Server } from 'socket.io'
import { hostFacts } from '../lib/host.js'
import { normalizeSimOptions } from '../simulator/sim-options.js'

const HERE = fileURLToPath(new URL('..', import.meta.url))
const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '10' },
    checkouts: { type: 'string', default: HERE },
    clients: { type: 'string', default: '2' },
    serve: { type: 'boolean', default: false }
  }
})
const runs = Number(values.runs)
const clients = Number(values.clients)
const checkouts = values.checkouts.split(',').map((dir) => path.resolve(dir))
const TIME = existsSync('/usr/bin/time') ? '/usr/bin/time' : null

/** @param {number} pid */
const peakRss = (pid) => Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN) * 1024

/**
 * CPU time used by every thread of a live process, in ms (the first field of each thread's schedstat, ns). A thread
 * that ended between the listing and its read (the bare child exits as soon as it has answered) counts 0.
 * @param {number} pid
 */
const cpuMs = (pid) => readdirSync(`/proc/${pid}/task`).reduce((sum, tid) => sum + threadCpuNs(pid, tid), 0) / 1e6

/**
 * @param {number} pid
 * @param {string} tid
 */
function threadCpuNs (pid, tid) {
  try {
    return Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0])
  } catch (error) {
    if (/** @type {{ code?: string }} */ (error).code === 'ENOENT') return 0
    throw error
  }
}

/**
 * Forks `script` with an IPC channel and waits for its answer to a resize: before a swarm, it
 * comes at once ("not started yet"), once every static import is loaded.
 * @param {string} script
 */
async function forkReady (script) {
  const started = performance.now()
  const child = fork(script, ['startup'], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'], execArgv: [] })
  const exited = new Promise((resolve) => child.once('exit', resolve))
  const ready = new Promise((resolve) => child.on('message', (/** @type {any} */ m) => {
    if (m?.type === 'ioswarm:resized') resolve(performance.now() - started)
  }))
  child.send({ type: 'ioswarm:resize', clients })
  const readyMs = /** @type {number} */ (await ready)
  const pid = /** @type {number} */ (child.pid)
  return { child, exited, started, readyMs, readyCpuMs: cpuMs(pid), readyRssBytes: peakRss(pid) }
}

async function measureBare () {
  const { exited, readyMs, readyCpuMs, readyRssBytes } = await forkReady(fileURLToPath(new URL('startup-bare.cjs', import.meta.url)))
  await exited
  return { readyMs, readyCpuMs, readyRssBytes }
}

/**
 * @param {string} dir
 * @param {{ url: string, connected: () => Promise<number> }} server
 */
async function measureChild (dir, server) {
  const options = { ...normalizeSimOptions({ url: server.url, clients, engine: 'lean', ramp: '0', duration: '1h' }), id: 'startup' }
  const { child, exited, started, readyMs, readyCpuMs, readyRssBytes } = await forkReady(path.join(dir, 'simulator/processes/child.js'))
  child.send({ type: 'ioswarm:simulate', options, link: { runId: 'startup', ipc: true }, forwardMessages: false })
  while (await server.connected() < clients) await new Promise((resolve) => setTimeout(resolve, values.serve ? 20 : 2))
  const clientsMs = performance.now() - started
  const peakRssBytes = peakRss(/** @type {number} */ (child.pid))
  child.kill('SIGTERM')
  await exited
  return { readyMs, readyCpuMs, readyRssBytes, clientsMs, peakRssBytes }
}

/**
 * @param {string} dir
 * @param {string} flag
 */
async function measureCli (dir, flag) {
  const script = path.join(dir, 'bin/ioswarm.js')
  const [command, args] = TIME ? [TIME, ['-f', '%M %U %S', process.execPath, script, flag]] : [process.execPath, [script, flag]]
  const started = performance.now()
  const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'] })
  let stderr = ''
  child.stderr.setEncoding('utf8').on('data', (d) => { stderr += d })
  const code = await new Promise((resolve) => child.once('exit', resolve))
  const ms = performance.now() - started
  if (code !== 0) throw new Error(`${script} ${flag} exited ${code}: ${stderr}`)
  const [maxKiB, userS, systemS] = TIME ? stderr.trim().split('\n').at(-1)?.split(' ').map(Number) ?? [] : []
  return { ms, peakRssBytes: TIME ? maxKiB * 1024 : null, cpuMs: TIME ? (userS + systemS) * 1000 : null }
}

/** @param {number[]} values */
const stats = (values) => {
  const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b)
  const round1 = (/** @type {number} */ v) => Math.round(v * 10) / 10
  if (sorted.length === 0) return null
  return { median: round1(sorted[Math.floor((sorted.length - 1) / 2)]), min: round1(sorted[0]), max: round1(sorted[sorted.length - 1]) }
}

/**
 * The server the children's clients connect to: socket.io in this process, or `ioswarm serve` (--serve).
 * @returns {Promise<{ url: string, connected: () => Promise<number>, close: () => Promise<unknown> }>}
 */
async function startServer () {
  if (values.serve) {
    const args = [path.join(HERE, 'bin/ioswarm.js'), 'serve', '--port', '0', '--host', '127.0.0.1', '--json']
    const served = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'ignore'] })
    // A bench that fails part-way does not leave the server behind.
    process.on('exit', () => { if (served.exitCode === null) served.kill('SIGTERM') })
    const [line] = /** @type {[Buffer]} */ (await once(/** @type {import('node:stream').Readable} */ (served.stdout), 'data'))
    const { url } = /** @type {{ url: string }} */ (JSON.parse(String(line).split('\n')[0]))
    const connected = async () => /** @type {{ connected: number }} */ (await (await fetch(`${url}/stats`)).json()).connected
    return { url, connected, close: () => { served.kill('SIGTERM'); return once(served, 'exit') } }
  }
  const httpServer = http.createServer()
  const io = new Server(httpServer)
  await new Promise((resolve) => httpServer.listen(0, '127.0.0.1', () => resolve(undefined)))
  const address = /** @type {import('node:net').AddressInfo} */ (httpServer.address())
  return { url: `http://127.0.0.1:${address.port}`, connected: async () => io.engine.clientsCount, close: async () => io.close() }
}

const server = await startServer()
const loadBefore = os.loadavg()
/** @type {Map<string, { child: Awaited<ReturnType<typeof measureChild>>[], help: Awaited<ReturnType<typeof measureCli>>[], version: Awaited<ReturnType<typeof measureCli>>[] }>} */
const samples = new Map(checkouts.map((dir) => [dir, { child: [], help: [], version: [] }]))
/** @type {Awaited<ReturnType<typeof measureBare>>[]} */
const bare = []
// Run 0 warms the file cache and is not counted; then each run measures every checkout in turn.
for (let run = 0; run <= runs; run++) {
  const floor = await measureBare()
  if (run > 0) bare.push(floor)
  for (const dir of run % 2 ? checkouts : [...checkouts].reverse()) {
    const child = await measureChild(dir, server)
    const help = await measureCli(dir, '--help')
    const version = await measureCli(dir, '--version')
    if (run === 0) continue
    const s = /** @type {NonNullable<ReturnType<typeof samples.get>>} */ (samples.get(dir))
    s.child.push(child)
    s.help.push(help)
    s.version.push(version)
  }
}
await server.close()
const loadAfter = os.loadavg()
const round2 = (/** @type {number[]} */ loads) => loads.map((l) => Math.round(l * 100) / 100)
const context = { runs, loadAverage: { before: round2(loadBefore), after: round2(loadAfter) }, host: hostFacts() }
process.stdout.write(`${JSON.stringify({
  bench: 'startup',
  case: 'bare',
  readyMs: stats(bare.map((c) => c.readyMs)),
  readyCpuMs: stats(bare.map((c) => c.readyCpuMs)),
  readyPeakRssMiB: stats(bare.map((c) => c.readyRssBytes / 1048576)),
  ...context
})}\n`)
for (const [dir, s] of samples) {
  const at = path.relative(process.cwd(), dir) || '.'
  process.stdout.write(`${JSON.stringify({
    bench: 'startup',
    case: 'child',
    checkout: at,
    clients,
    server: values.serve ? 'ioswarm serve' : 'socket.io in the bench',
    readyMs: stats(s.child.map((c) => c.readyMs)),
    readyCpuMs: stats(s.child.map((c) => c.readyCpuMs)),
    readyPeakRssMiB: stats(s.child.map((c) => c.readyRssBytes / 1048576)),
    clientsMs: stats(s.child.map((c) => c.clientsMs)),
    peakRssMiB: stats(s.child.map((c) => c.peakRssBytes / 1048576)),
    ...context
  })}\n`)
  for (const name of /** @type {const} */ (['help', 'version'])) {
    process.stdout.write(`${JSON.stringify({
      bench: 'startup',
      case: name,
      checkout: at,
      ms: stats(s[name].map((c) => c.ms)),
      peakRssMiB: TIME ? stats(s[name].map((c) => /** @type {number} */ (c.peakRssBytes) / 1048576)) : null,
      cpuMs: TIME ? stats(s[name].map((c) => /** @type {number} */ (c.cpuMs))) : null,
      ...context
    })}\n`)
  }
}
