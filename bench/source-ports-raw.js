#!/usr/bin/env node
/**
 * The pool's own cost, without socket.io: N raw TCP connections to ONE address:port, opened
 * by W child processes (each under the per-process fd limit) with at most --in-flight
 * connects at once, in alternating phases: `unbound` (net.connect: the kernel's ephemeral
 * port), `pool` (simulator/wire/source-ports.js: connectFrom, explicit address and port, each
 * worker its slice of the range) and, with --bind-only, `bind-only` (net.connect with
 * localAddress alone: the path the kernel makes slow to find a port). The server is a cluster of K
 * processes that accept and hold. Each phase ends with resets (no TIME_WAIT carried into the
 * next). One JSON line per run: connects per second per phase.
 *
 *   node bench/source-ports-raw.js [--clients 20000] [--workers 2] [--server-workers 2] [--rounds 2]
 *                                  [--in-flight 500] [--source-address 127.0.0.2-127.0.0.5] [--bind-only]
 */
import cluster from 'node:cluster'
import net from 'node:net'
import { fork } from 'node:child_process'
import { once } from 'node:events'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { hostFacts } from '../lib/host.js'
import { parseSourceAddresses } from '../lib/input/source-addresses.js'
import { connectFrom, readPortRange, sliceRange, SourcePorts } from '../simulator/wire/source-ports.js'

const SELF = fileURLToPath(import.meta.url)
const role = process.env.BENCH_ROLE

if (role === 'server') await serve()
else if (role === 'client') await client()
else await main()

/** The cluster that accepts and holds: its primary hands each connection to a worker. */
async function serve () {
  if (cluster.isPrimary) {
    cluster.setupPrimary({ exec: SELF })
    const workers = Array.from({ length: Number(process.env.BENCH_SERVER_WORKERS) }, () => cluster.fork({ BENCH_ROLE: 'server' }))
    await Promise.all(workers.map((w) => once(w, 'listening')))
    process.send?.({ listening: true })
    process.on('SIGTERM', () => { for (const w of workers) w.kill(); process.exit(0) })
    return
  }
  /** @type {Set<net.Socket>} */
  const held = new Set()
  net.createServer((socket) => {
    held.add(socket)
    socket.on('error', () => {})
    socket.on('close', () => held.delete(socket))
  }).listen(Number(process.env.BENCH_PORT), '127.0.0.1')
}

/** One worker's share of a phase: connects, reports elapsed, holds until told to close. */
async function client () {
  const { mode, count, inFlight, port, addresses, slice } = JSON.parse(String(process.env.BENCH_JOB))
  const ports = new SourcePorts({ addresses, range: sliceRange(readPortRange(), slice) })
  /** @type {net.Socket[]} */
  const sockets = []
  let errors = 0
  let next = 0
  const startedMs = performance.now()
  await new Promise((resolve) => {
    let running = 0
    const launch = () => {
      while (running < inFlight && next < count) {
        const i = next++
        running++
        const done = (/** @type {Error | null} */ error, /** @type {net.Socket | undefined} */ socket) => {
          running--
          if (error || !socket) errors++
          else sockets.push(socket)
          if (sockets.length + errors === count) resolve(undefined)
          else launch()
        }
        if (mode === 'pool') connectFrom(ports, i % addresses.length, { host: '127.0.0.1', port }, done)
        else {
          const from = mode === 'bind-only' ? { localAddress: addresses[i % addresses.length] } : {}
          const socket = net.connect({ host: '127.0.0.1', port, ...from })
          socket.once('connect', () => { socket.removeAllListeners('error'); socket.on('error', () => {}); done(null, socket) })
          socket.once('error', (error) => done(error, undefined))
        }
      }
    }
    launch()
  })
  const elapsedMs = performance.now() - startedMs
  process.send?.({ elapsedMs, connected: sockets.length, errors, refused: ports.refused.reduce((a, b) => a + b, 0) })
  process.once('message', () => {
    // A reset leaves no TIME_WAIT behind: the next phase starts from a clean port range.
    for (const s of sockets) s.resetAndDestroy()
    process.exit(0)
  })
}

async function main () {
  const { values } = parseArgs({
    options: {
      clients: { type: 'string', default: '20000' },
      workers: { type: 'string', default: '2' },
      'server-workers': { type: 'string', default: '2' },
      rounds: { type: 'string', default: '2' },
      'in-flight': { type: 'string', default: '500' },
      'source-address': { type: 'string', default: '127.0.0.2-127.0.0.5' },
      'bind-only': { type: 'boolean', default: false }
    }
  })
  const clients = Number(values.clients)
  const workers = Number(values.workers)
  const addresses = parseSourceAddresses(values['source-address'], '--source-address')
  const port = await new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const p = /** @type {net.AddressInfo} */ (s.address()).port
      s.close(() => resolve(p))
    })
  })
  const server = fork(SELF, [], { env: { ...process.env, BENCH_ROLE: 'server', BENCH_PORT: String(port), BENCH_SERVER_WORKERS: values['server-workers'] } })
  process.on('exit', () => server.kill())
  await once(server, 'message')
  const modes = ['unbound', 'pool', ...(values['bind-only'] ? ['bind-only'] : [])]
  /** @type {{ mode: string, connected: number, errors: number, refused: number, connectMs: number, connectsPerSecond: number, wallMs: number, loadavg: string }[]} */
  const phases = []
  for (let round = 0; round < Number(values.rounds); round++) {
    for (const mode of modes) {
      const children = Array.from({ length: workers }, (_, k) => fork(SELF, [], {
        env: {
          ...process.env,
          BENCH_ROLE: 'client',
          BENCH_JOB: JSON.stringify({
            mode,
            count: Math.floor(clients / workers) + (k < clients % workers ? 1 : 0),
            inFlight: Math.ceil(Number(values['in-flight']) / workers),
            port,
            addresses: mode === 'unbound' ? [] : addresses,
            slice: { index: k, count: workers }
          })
        }
      }))
      const startedMs = performance.now()
      /** @typedef {{ elapsedMs: number, connected: number, errors: number, refused: number }} ClientReport */
      const reports = await Promise.all(children.map(async (c) => /** @type {ClientReport} */ ((await once(c, 'message'))[0])))
      const wallMs = performance.now() - startedMs
      for (const c of children) c.send('close')
      await Promise.all(children.map((c) => once(c, 'exit')))
      const connected = reports.reduce((sum, r) => sum + r.connected, 0)
      const slowestMs = Math.max(...reports.map((r) => r.elapsedMs))
      phases.push({
        mode,
        connected,
        errors: reports.reduce((sum, r) => sum + r.errors, 0),
        refused: reports.reduce((sum, r) => sum + r.refused, 0),
        connectMs: Math.round(slowestMs),
        connectsPerSecond: Math.round(connected / (slowestMs / 1000)),
        wallMs: Math.round(wallMs),
        loadavg: readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')
      })
    }
  }
  const mean = (/** @type {string} */ mode) => {
    const mine = phases.filter((p) => p.mode === mode)
    return Math.round(mine.reduce((sum, p) => sum + p.connectsPerSecond, 0) / mine.length)
  }
  const rates = Object.fromEntries(modes.map((m) => [m, mean(m)]))
  process.stdout.write(`${JSON.stringify({
    bench: 'source-ports-raw',
    clients,
    workers,
    serverWorkers: Number(values['server-workers']),
    inFlight: Number(values['in-flight']),
    sourceAddresses: addresses,
    destination: '127.0.0.1:<one port>',
    phases,
    connectsPerSecond: rates,
    poolVsUnbound: Math.round((rates.pool / rates.unbound) * 1000) / 1000,
    host: hostFacts(),
    loadavg: readFileSync('/proc/loadavg', 'utf8').trim()
  })}\n`)
  server.kill('SIGTERM')
  process.exit(0)
}
