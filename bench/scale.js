#!/usr/bin/env node
/**
 * Scale run: the reference server (`ioswarm serve`, `--cluster K`, or `--servers S` separate
 * processes on their own ports, each below its per-process fd limit) and one simulator of
 * the lean engine over WebSocket spread over `--processes M` worker processes
 * (`ioswarm simulate --workers M`) and `--destinations D` loopback addresses
 * (127.0.0.1-127.0.0.D, the server binds 0.0.0.0). Connects every client, sends one
 * broadcast, stops the simulator and prints one JSON line: connected, received, missing,
 * RSS per process, connect time. With --servers S, the broadcast is posted to every server
 * at once with one message id, so the simulator sees it as one message.
 *
 * With --source-address A (e.g. 127.0.0.2-127.0.0.4), the simulator opens its clients from
 * those addresses with source ports of its own: with --destinations 1 and one
 * server (--cluster K), every client goes to ONE address:port.
 *
 *   node bench/scale.js [--clients 20000] [--processes 4] [--destinations 4] [--servers 1] [--cluster 0]
 *                       [--ramp 20s] [--payload-bytes 100] [--connect-limit-s 300] [--drain-s 15]
 *                       [--source-address 127.0.0.2-127.0.0.4] [--stall-s 30] [--ws-client ws|builtin] [--ping-interval 25s]
 * (--stall-s: give up when the server's count has not grown for this long; a cluster primary
 * busy handing over connects may not answer /stats for a while)
 */
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { setTimeout as sleep } from 'node:timers/promises'
import { hostFacts } from '../lib/host.js'

const BIN = fileURLToPath(new URL('../bin/ioswarm.js', import.meta.url))
const TOKEN = 'bench-scale-token'

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
    'ping-interval': { type: 'string', default: '25s' }
  }
})
const clients = Number(values.clients)

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
  ...(values['source-address'] ? ['--source-address', values['source-address']] : [])
], { stdio: ['ignore', 'pipe', 'inherit'] })
sim.child = simulator
let stdout = ''
simulator.stdout?.setEncoding('utf8').on('data', (d) => { stdout += d })
const simulatorExit = once(simulator, 'close')

const connected = await waitForConnected()
const connectMs = connected.atMs - startedMs
const serverAtPeak = connected.stats
const sent = await Promise.all(bases.map((base) => postBroadcast(base)))
// The simulator closes the message when every client has it; this waits for the stragglers.
await sleep(Number(values['drain-s']) * 1000)
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
  host: hostFacts(),
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
  const last = bases.map(() => ({ connected: 0, rssBytes: 0 }))
  let bestAtMs = Date.now()
  for (;;) {
    // A busy server (a cluster primary handing over thousands of connects) may not answer in time.
    // A server too busy to answer in time keeps its last count: a missed poll is not a stall.
    const all = await Promise.all(bases.map((base, k) => fetch(`${base}/stats`, { signal: AbortSignal.timeout(5000) })
      .then((r) => r.json()).then((s) => { last[k] = /** @type {{ connected: number, rssBytes: number }} */ (s); return last[k] }, () => last[k])))
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
