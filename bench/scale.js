#!/usr/bin/env node
/**
 * Scale run: the reference server (`ioswarm serve`, `--cluster K`, or `--servers S` separate
 * processes on their own ports, each below its per-process fd limit) and one simulator of
 * the lean engine over WebSocket spread over `--processes M` worker processes
 * (`ioswarm simulate --workers M`) and `--destinations D` loopback addresses
 * (127.0.0.1-127.0.0.D, the server binds 0.0.0.0). Connects every client, sends one
 * broadcast, stops the simulator and prints one JSON line: connected, received, missing,
 * RSS per process, connect time, and the boot (CPU model, a bare `node -e 0`'s ms). With --servers S, the broadcast is posted to every server
 * at once with one message id, so the simulator sees it as one message.
 *
 * With --source-address A (e.g. 127.0.0.2-127.0.0.4), the simulator opens its clients from
 * those addresses with source ports of its own: with --destinations 1 and one
 * server (--cluster K), every client goes to ONE address:port.
 *
 *   node bench/scale.js [--clients 20000] [--processes 4] [--destinations 4] [--servers 1] [--cluster 0]
 *                       [--ramp 20s] [--payload-bytes 100] [--connect-limit-s 300] [--drain-s 15]
 *                       [--source-address 127.0.0.2-127.0.0.4] [--stall-s 30] [--ws-client ws|builtin] [--ping-interval 25s]
 *                       [--ramp-guard on|loop=200ms,failures=5%,reconnects=50/s]
 * (--stall-s: give up when the server's count has not grown for this long; a cluster primary
 * busy handing over connects may not answer /stats for a while)
 *
 * Which side gave out first, and when (`sides` in the JSON): every second each server's CPU,
 * event-loop delay, connections and closes by reason (its /stats, polled until the simulator
 * is stopped; a poll it left unanswered is counted), and each simulator process's CPU and loop
 * delay (its samples in the result, told apart by pid). A process is saturated in a second as
 * the simulator's health says (lib/measure/process-sampler.js isSaturated: loop p99 ≥ 50 ms or
 * event-loop utilisation ≥ 90 %); a side gave out at the first of SATURATED_RUN seconds in a
 * row with one of its processes saturated. Who closed first: the first second a server saw
 * connections close (by reason), against the simulator's first second of drops. Pings late:
 * closes for 'ping timeout' at the servers (a client answered late) and at the clients (a
 * server pinged late).
 */
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { setTimeout as sleep } from 'node:timers/promises'
import { hostFacts } from '../lib/host.js'
import { isSaturated } from '../lib/measure/process-sampler.js'
import { bootFacts } from './boot.js'

const BIN = fileURLToPath(new URL('../bin/ioswarm.js', import.meta.url))
const TOKEN = 'bench-scale-token'
/** Seconds in a row a process must be saturated for its side to count as given out (one GC pause is not). */
const SATURATED_RUN = 3
/** Connections the simulator closes at a server before its swarm: its one look at the server (the handshake probe). */
const PROBE_CLOSES = 1

const { values } = parseArgs({
  options: {
    clients: { type: 'string', default: '20000' },
    processes: { type: 'string', default: '4' },
    destinations: { type: 'string', default: '4' },
    servers: { type: 'string', default: '1' },
    cluster: { type: 'string', default: '0' },
    ramp: { type: 'string', default: '20s' },
    'payload-bytes': { type: 'string', default: '100' },
    'connect-limit-s': { type: 'string', default: '300' },
    'drain-s': { type: 'string', default: '15' },
    'source-address': { type: 'string' },
    'stall-s': { type: 'string', default: '30' },
    'ws-client': { type: 'string', default: 'ws' },
    'ping-interval': { type: 'string', default: '25s' },
    // simulate --ramp-guard: `on` for its defaults, or loop=200ms,failures=5%,reconnects=50/s
    'ramp-guard': { type: 'string' }
  }
})
const clients = Number(values.clients)
// Before any process of the run: how fast this boot is, as the records compare boots.
const boot = bootFacts()

const servers = Array.from({ length: Number(values.servers) }, () =>
  spawn(process.execPath, [
    BIN, 'serve', '--port', '0', '--host', '0.0.0.0', '--token', TOKEN, '--cluster', values.cluster, '--ping-interval', values['ping-interval'], '--json'
  ], { stdio: ['ignore', 'pipe', 'inherit'] }))
/** @type {{ child?: import('node:child_process').ChildProcess }} */
const sim = {}
process.on('exit', () => {
  for (const child of [sim.child, ...servers]) if (child?.pid && child.exitCode === null) process.kill(child.pid, 'SIGTERM')
})
const listening = await Promise.all(servers.map(async (server) => {
  const [line] = /** @type {[Buffer]} */ (await once(/** @type {import('node:stream').Readable} */ (server.stdout), 'data'))
  return /** @type {{ port: number, workers: unknown[] }} */ (JSON.parse(String(line).split('\n')[0]))
}))
const bases = listening.map((l) => `http://127.0.0.1:${l.port}`)

const startedMs = Date.now()
const simulator = spawn(process.execPath, [
  BIN, 'simulate', '--workers', values.processes, '-c', String(clients), '--engine', 'lean', '--transport', 'websocket',
  ...listening.flatMap((l) => ['--url', `http://127.0.0.1-127.0.0.${values.destinations}:${l.port}`]),
  '--ramp', values.ramp, '--message-timeout', '60s', '--json', '--quiet',
  '--ws-client', values['ws-client'],
  ...(values['source-address'] ? ['--source-address', values['source-address']] : []),
  ...(values['ramp-guard'] ? ['--ramp-guard', values['ramp-guard']] : [])
], { stdio: ['ignore', 'pipe', 'inherit'] })
sim.child = simulator
let stdout = ''
simulator.stdout?.setEncoding('utf8').on('data', (d) => { stdout += d })
const simulatorExit = once(simulator, 'close')

/** Each server's /stats, once a second, until the simulator is stopped. @type {{ t: number, k: number, stats: ServerStats | null }[]} */
const serverSeconds = []
/** Each server's last answer: a server too busy to answer in time keeps it (a missed poll is not a stall). @type {ServerStats[]} */
const lastStats = bases.map(() => ({ connected: 0, rssBytes: 0, cpuPct: 0, loopDelayP99Ms: 0, elu: 0 }))
const connected = await waitForConnected()
const connectMs = connected.atMs - startedMs
const serverAtPeak = connected.stats
const polling = { on: true }
const drainPolls = (async () => { while (polling.on) { await pollServers(); await sleep(1000) } })()
const sent = await Promise.all(bases.map((base) => postBroadcast(base)))
// The simulator closes the message when every client has it; this waits for the stragglers.
await sleep(Number(values['drain-s']) * 1000)
polling.on = false
await drainPolls
const stoppedMs = Date.now()
if (simulator.pid) process.kill(simulator.pid, 'SIGTERM')
await simulatorExit
const result = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}')
const message = result.messages?.[0]
// Workers whose result did not reach the merge: every count of theirs is missing from the figures.
/** @type {any[]} */
const workerList = result.workers?.list ?? []
const lostWorkers = workerList.filter((w) => w.died).map((w) => ({ id: w.id, pid: w.pid, died: w.died }))
process.stdout.write(`${JSON.stringify({
  bench: 'scale',
  clients,
  processes: Number(values.processes),
  destinations: Number(values.destinations),
  sourceAddresses: values['source-address'] ?? null,
  wsClient: values['ws-client'],
  pingInterval: values['ping-interval'],
  servers: servers.length,
  serverCluster: Number(values.cluster),
  connectedAtServer: serverAtPeak.connected,
  everConnected: result.clients?.everConnected,
  connectErrors: result.clients?.errors,
  connectMs,
  connectTimeP99Ms: result.clients?.connectTime?.p99,
  recipientsAtServer: sent.reduce((sum, r) => sum + (r.messages?.[0]?.recipients ?? 0), 0),
  received: message?.received ?? 0,
  expected: message?.expected ?? 0,
  missing: message?.missing ?? 0,
  relativeMs: message && { p50: message.relative.p50, p99: message.relative.p99, max: message.relative.max },
  simulatorRssMaxBytes: result.workers?.list.map((/** @type {any} */ w) => ({ id: w.id, rssMaxBytes: w.rssMaxBytes, clients: w.clients.target })),
  serverRssBytes: serverAtPeak.rssBytes,
  serverWorkers: listening[0].workers?.length ?? 0,
  preflight: result.preflight?.needs,
  workers: result.workers?.list.length ?? 0,
  lostWorkers,
  sides: whichSideFirst(result, stoppedMs),
  rampGuard: result.rampGuard ?? null,
  host: hostFacts(),
  ...boot,
  loadavg: readFileSync('/proc/loadavg', 'utf8').trim()
})}\n`)
if (lostWorkers.length > 0) process.stderr.write(`bench/scale.js: ${lostWorkers.length} worker result(s) lost: the figures above miss their clients\n`)
process.exit(lostWorkers.length > 0 || !result.workers ? 1 : 0)

/**
 * Polls the server's /stats until every client is connected, the count stalls for --stall-s, or
 * the connect limit passes.
 */
async function waitForConnected () {
  const deadline = Date.now() + Number(values['connect-limit-s']) * 1000
  let best = { connected: -1, rssBytes: [0] }
  let bestAtMs = Date.now()
  for (;;) {
    const all = await pollServers()
    const connected = all.reduce((sum, s) => sum + s.connected, 0)
    if (connected > best.connected) {
      best = { connected, rssBytes: all.map((s) => s.rssBytes) }
      bestAtMs = Date.now()
    }
    if (connected >= clients || Date.now() > deadline || Date.now() - bestAtMs > Number(values['stall-s']) * 1000 || sim.child?.exitCode !== null) {
      return { stats: best, atMs: bestAtMs }
    }
    await sleep(1000)
  }
}

/**
 * @typedef {{ connected: number, rssBytes: number, cpuPct: number, loopDelayP99Ms: number, elu: number, closes?: Record<string, number> }} ServerStats
 */

/**
 * Asks every server for its /stats once, keeps each answer (or that none came) in serverSeconds.
 * A busy server (a cluster primary handing over thousands of connects) may not answer in time.
 */
async function pollServers () {
  const t = Date.now()
  return Promise.all(bases.map((base, k) => fetch(`${base}/stats`, { signal: AbortSignal.timeout(5000) })
    .then((r) => r.json()).then((s) => {
      lastStats[k] = /** @type {ServerStats} */ (s)
      serverSeconds.push({ t, k, stats: lastStats[k] })
      return lastStats[k]
    }, () => {
      serverSeconds.push({ t, k, stats: null })
      return lastStats[k]
    })))
}

/**
 * Which side gave out first, and when: per process, the CPU and loop delay at their worst and the
 * first second of SATURATED_RUN saturated ones; the first closes each side saw; pings late.
 * @param {any} result the simulator's merged result
 * @param {number} stoppedMs when the bench stopped the simulator (its own closes come after)
 */
function whichSideFirst (result, stoppedMs) {
  const at = (/** @type {number} */ t) => Math.round((t - startedMs) / 1000)
  const answers = (/** @type {number} */ k) => serverSeconds.filter((p) => p.k === k && p.stats !== null)
    .map((p) => ({ t: p.t, ...(/** @type {ServerStats} */ (p.stats)) }))
  const servers = bases.map((base, k) => processSide(`server ${k}`, answers(k), serverSeconds.filter((p) => p.k === k && p.stats === null).length))
  /** @type {Map<number, any[]>} */
  const byPid = new Map()
  for (const sample of result.health?.samples ?? []) byPid.set(sample.pid, [...(byPid.get(sample.pid) ?? []), sample])
  const simulators = [...byPid].map(([pid, samples]) => processSide(`simulator pid ${pid}`, samples.filter((s) => s.t <= stoppedMs), 0))
  // The process of a side that gave out first (none: Infinity).
  const firstOf = (/** @type {ReturnType<typeof processSide>[]} */ side) =>
    side.reduce((first, p) => ((p.saturatedAt ?? Infinity) < first.at ? { at: p.saturatedAt ?? Infinity, name: p.name } : first), { at: Infinity, name: '' })
  const server = firstOf(servers)
  const sim = firstOf(simulators)
  const gaveOutFirst = server.at === Infinity && sim.at === Infinity
    ? 'neither'
    : server.at < sim.at ? 'server' : sim.at < server.at ? 'simulator' : 'both in the same second'
  // The first second a server saw connections close (before the bench stopped the simulator), and why;
  // the simulator's one look at the server before its swarm closes one on purpose, not counted.
  const closesOf = (/** @type {ServerStats | null} */ stats) => Object.values(stats?.closes ?? {}).reduce((a, b) => a + b, 0)
  const serverCloses = serverSeconds.filter((p) => closesOf(p.stats) > PROBE_CLOSES).sort((a, b) => a.t - b.t)[0]
  /** @type {any[]} */
  const timeline = result.timeline ?? []
  const clientDrop = timeline.find((p) => p.t <= stoppedMs && p.disconnects - p.closed > 0)
  const serverPingTimeouts = bases.map((_, k) => lastClosesOf(k)['ping timeout'] ?? 0).reduce((a, b) => a + b, 0)
  return {
    gaveOutFirst,
    firstSaturated: {
      server: server.at === Infinity ? null : { process: server.name, atS: at(server.at) },
      simulator: sim.at === Infinity ? null : { process: sim.name, atS: at(sim.at) }
    },
    firstClose: {
      atServer: serverCloses ? { atS: at(serverCloses.t), server: serverCloses.k, closes: serverCloses.stats?.closes } : null,
      atClients: clientDrop ? { atS: at(clientDrop.t), drops: clientDrop.disconnects - clientDrop.closed } : null
    },
    pingsLate: { clientsLateSeenByServers: serverPingTimeouts, serversLateSeenByClients: result.clients?.disconnects?.['ping timeout'] ?? 0 },
    servers: servers.map(({ saturatedAt, ...p }) => ({ ...p, saturatedAtS: saturatedAt === null ? null : at(saturatedAt) })),
    simulators: simulators.map(({ saturatedAt, ...p }) => ({ ...p, saturatedAtS: saturatedAt === null ? null : at(saturatedAt) })),
    // Each 10 s: the worst CPU and loop delay of each side, the connections the servers count.
    timeline: tenSeconds(result, stoppedMs, at)
  }
}

/**
 * Server k's closes by reason at its last answer before the bench stopped the simulator.
 * @param {number} k
 */
function lastClosesOf (k) {
  return serverSeconds.filter((p) => p.k === k && p.stats?.closes).at(-1)?.stats?.closes ?? {}
}

/**
 * One process's worst second and when it gave out.
 * @param {string} name
 * @param {{ t: number, cpuPct: number, loopDelayP99Ms: number, elu: number }[]} samples
 * @param {number} unanswered polls it did not answer in time (a server)
 */
function processSide (name, samples, unanswered) {
  let run = 0
  let saturatedAt = /** @type {number | null} */ (null)
  for (const s of samples) {
    run = isSaturated(s) ? run + 1 : 0
    if (run === SATURATED_RUN && saturatedAt === null) saturatedAt = samples[samples.indexOf(s) - SATURATED_RUN + 1].t
  }
  return {
    name,
    cpuPctMax: Math.max(0, ...samples.map((s) => s.cpuPct)),
    loopDelayP99MaxMs: Math.max(0, ...samples.map((s) => s.loopDelayP99Ms)),
    saturatedSeconds: samples.filter(isSaturated).length,
    unanswered,
    saturatedAt
  }
}

/**
 * Both sides every 10 s: the worst CPU and loop delay of any of its processes, the servers' connections.
 * @param {any} result
 * @param {number} stoppedMs
 * @param {(t: number) => number} at
 */
function tenSeconds (result, stoppedMs, at) {
  /**
   * @typedef {{ cpuPctMax: number, loopP99MaxMs: number }} SideRow
   * @typedef {{ s: number, server: SideRow & { connected: number, unanswered: number }, simulator: SideRow }} TenSeconds
   */
  /** @type {Map<number, TenSeconds>} */
  const rows = new Map()
  const tenOf = (/** @type {number} */ t) => Math.floor(at(t) / 10) * 10
  const row = (/** @type {number} */ t) => {
    const s = tenOf(t)
    const zero = () => ({ cpuPctMax: 0, loopP99MaxMs: 0 })
    if (!rows.has(s)) rows.set(s, { s, server: { ...zero(), connected: 0, unanswered: 0 }, simulator: zero() })
    return /** @type {TenSeconds} */ (rows.get(s))
  }
  for (const p of serverSeconds) {
    const r = row(p.t).server
    if (p.stats === null) { r.unanswered++; continue }
    r.cpuPctMax = Math.max(r.cpuPctMax, Math.round(p.stats.cpuPct))
    r.loopP99MaxMs = Math.max(r.loopP99MaxMs, Math.round(p.stats.loopDelayP99Ms))
  }
  // The servers' connections at the end of each 10 s: the last answer of each server in it, summed.
  for (const [s, r] of rows) {
    const lastIn = (/** @type {number} */ k) => serverSeconds.filter((p) => p.k === k && p.stats && tenOf(p.t) === s).at(-1)?.stats?.connected ?? 0
    r.server.connected = bases.reduce((sum, _, k) => sum + lastIn(k), 0)
  }
  for (const sample of result.health?.samples ?? []) {
    if (sample.t > stoppedMs) continue
    const r = row(sample.t).simulator
    r.cpuPctMax = Math.max(r.cpuPctMax, Math.round(sample.cpuPct))
    r.loopP99MaxMs = Math.max(r.loopP99MaxMs, Math.round(sample.loopDelayP99Ms))
  }
  return [...rows.values()].sort((a, b) => a.s - b.s)
}

/**
 * Posts the broadcast to one server; a server busy with thousands of sockets may not accept the
 * connection in time, so it is tried up to 5 times (the message id makes a repeat harmless to
 * the count: the simulator sees one message). A server that never answers counts 0 recipients.
 * @param {string} base
 * @returns {Promise<{ messages: { recipients: number }[] }>}
 */
async function postBroadcast (base) {
  for (let attempt = 1; attempt <= 5; attempt++) {
    try {
      const response = await fetch(`${base}/broadcast`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ id: 'scale-1', count: 1, size: Number(values['payload-bytes']) }),
        signal: AbortSignal.timeout(30000)
      })
      return /** @type {{ messages: { recipients: number }[] }} */ (await response.json())
    } catch (error) {
      process.stderr.write(`bench/scale.js: broadcast to ${base} failed (attempt ${attempt} of 5): ${/** @type {Error} */ (error).message}\n`)
    }
  }
  return { messages: [] }
}
