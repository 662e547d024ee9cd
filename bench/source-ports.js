#!/usr/bin/env node
/**
 * Connect rate with source ports the simulator picks (`--source-address`, simulator/
 * source-ports.js) vs. without any binding (the kernel's ephemeral ports), in the same run
 * against the same server: one `ioswarm serve --cluster K` on ONE address:port, and
 * alternating phases (unbound, bound, unbound, bound, …) of one `ioswarm simulate --workers M
 * --engine lean --transport websocket --ramp 0` of N clients. Each phase is timed from the
 * simulator's start until the server's /stats counts every client (polled every 100 ms), then
 * the simulator is stopped and the server drained before the next. One JSON line per run.
 *
 *   node bench/source-ports.js [--clients 20000] [--workers 2] [--cluster 2] [--rounds 2]
 *                              [--source-address 127.0.0.2-127.0.0.5] [--connect-limit-s 180]
 */
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { setTimeout as sleep } from 'node:timers/promises'
import { hostFacts } from '../lib/host.js'

const BIN = fileURLToPath(new URL('../bin/ioswarm.js', import.meta.url))
const TOKEN = 'bench-source-ports-token'

const { values } = parseArgs({
  options: {
    clients: { type: 'string', default: '20000' },
    workers: { type: 'string', default: '2' },
    cluster: { type: 'string', default: '2' },
    rounds: { type: 'string', default: '2' },
    'source-address': { type: 'string', default: '127.0.0.2-127.0.0.5' },
    'connect-limit-s': { type: 'string', default: '180' }
  }
})
const clients = Number(values.clients)

const server = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--host', '127.0.0.1', '--token', TOKEN, '--cluster', values.cluster, '--json'],
  { stdio: ['ignore', 'pipe', 'inherit'] })
/** @type {{ child: import('node:child_process').ChildProcess | null }} */
const sim = { child: null }
process.on('exit', () => {
  for (const child of [sim.child, server]) if (child?.pid && child.exitCode === null) process.kill(child.pid, 'SIGTERM')
})
const [line] = /** @type {[Buffer]} */ (await once(/** @type {import('node:stream').Readable} */ (server.stdout), 'data'))
const { port } = /** @type {{ port: number }} */ (JSON.parse(String(line).split('\n')[0]))
const url = `http://127.0.0.1:${port}`

/** @type {({ bound: boolean } & Awaited<ReturnType<typeof phase>>)[]} */
const phases = []
for (let round = 0; round < Number(values.rounds); round++) {
  for (const bound of [false, true]) phases.push({ bound, ...await phase(bound) })
}
const rate = (/** @type {boolean} */ bound) => {
  const mine = phases.filter((p) => p.bound === bound && p.connected === clients)
  return mine.length === 0 ? null : Math.round(mine.reduce((sum, p) => sum + clients / (p.connectMs / 1000), 0) / mine.length)
}
const unbound = rate(false)
const bound = rate(true)
process.stdout.write(`${JSON.stringify({
  bench: 'source-ports',
  clients,
  workers: Number(values.workers),
  serverCluster: Number(values.cluster),
  sourceAddresses: values['source-address'],
  destination: '127.0.0.1:<one port>',
  phases,
  connectsPerSecond: { unbound, bound },
  boundVsUnbound: unbound && bound ? Math.round((bound / unbound) * 1000) / 1000 : null,
  host: hostFacts(),
  loadavg: readFileSync('/proc/loadavg', 'utf8').trim()
})}\n`)
process.exit(0)

/**
 * One simulator of every client, bound to the source addresses or not: time to all connected.
 * @param {boolean} bound
 */
async function phase (bound) {
  const startedMs = Date.now()
  const child = sim.child = spawn(process.execPath, [
    BIN, 'simulate', '--workers', values.workers, '-c', String(clients), '--engine', 'lean', '--transport', 'websocket',
    '--url', url, '--ramp', '0', '--json', '--quiet', ...(bound ? ['--source-address', String(values['source-address'])] : [])
  ], { stdio: ['ignore', 'pipe', 'inherit'] })
  let stdout = ''
  child.stdout?.setEncoding('utf8').on('data', (d) => { stdout += d })
  const exited = once(child, 'close')
  const connected = await waitFor((n) => n >= clients, Number(values['connect-limit-s']) * 1000, () => child.exitCode !== null)
  const connectMs = connected.atMs - startedMs
  if (child.pid && child.exitCode === null) process.kill(child.pid, 'SIGTERM')
  await exited
  sim.child = null
  const result = JSON.parse(stdout.trim().split('\n').at(-1) || '{}')
  // The next phase starts from an empty server.
  await waitFor((n) => n === 0, 60000, () => false)
  return {
    connected: connected.count,
    connectMs,
    connectErrors: result.clients?.errors ?? null,
    connectTimeMs: result.clients?.connectTime && { p50: result.clients.connectTime.p50, p99: result.clients.connectTime.p99 },
    loadavg: readFileSync('/proc/loadavg', 'utf8').trim().split(' ').slice(0, 3).join(' ')
  }
}

/**
 * Polls the server's /stats every 100 ms until `done(connected)`, the limit passes, or `gaveUp()`.
 * @param {(connected: number) => boolean} done
 * @param {number} limitMs
 * @param {() => boolean} gaveUp
 */
async function waitFor (done, limitMs, gaveUp) {
  const deadline = Date.now() + limitMs
  let count = -1
  for (;;) {
    const stats = await fetch(`${url}/stats`, { signal: AbortSignal.timeout(5000) })
      .then((r) => r.json())
      .then((s) => /** @type {{ connected: number }} */ (s), () => null)
    if (stats) count = stats.connected
    if ((stats && done(count)) || Date.now() > deadline || gaveUp()) return { count, atMs: Date.now() }
    await sleep(100)
  }
}
