#!/usr/bin/env node
/**
 * The floor under an acked emit: what one write and one read per round trip
 * cost a Node process on this host with no Socket.IO, no ioswarm and no framing at all. An echo
 * server (a process of its own, `net`) and a client process holding --clients loopback TCP
 * sockets, which writes a 64-byte line on one of them at --rate a second (one timer a
 * millisecond, the due writes in it, round-robin over the sockets) and reads each echo back:
 * the same syscalls per emit as the lean engine's acked emit (one `write`, one `read`, the loop's
 * wake-ups), so its CPU per round trip is a floor no emit path in Node can go under here.
 *
 *   node bench/emit-floor.js [--clients 200] [--rates 2000,5000,20000] [--seconds 8] [--warmup-seconds 3] [--pin]
 *
 * --pin: the echo server on CPU 1 and the client on CPU 0 (taskset), as bench/emits.js --pin.
 * One JSON line per rate: round trips a second, the client's CPU µs per round trip (user,
 * system), the server's CPU share.
 */
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import net from 'node:net'
import os from 'node:os'
import { parseArgs } from 'node:util'
import { hostFacts } from '../lib/host.js'
import { pin } from './pin.js'

const { values } = parseArgs({
  options: {
    clients: { type: 'string', default: '200' },
    rates: { type: 'string', default: '2000,5000,20000' },
    seconds: { type: 'string', default: '8' },
    'warmup-seconds': { type: 'string', default: '3' },
    pin: { type: 'boolean', default: false },
    role: { type: 'string' },
    port: { type: 'string' },
    rate: { type: 'string' }
  }
})

if (values.role === 'server') {
  // The echo server: every byte back as it comes.
  const server = net.createServer((socket) => {
    socket.setNoDelay(true)
    socket.on('data', (chunk) => socket.write(chunk))
    socket.on('error', () => {})
  })
  server.listen(0, '127.0.0.1', () => process.send?.({ port: /** @type {net.AddressInfo} */ (server.address()).port }))
  process.on('message', (m) => { if (m === 'cpu') process.send?.({ cpu: process.cpuUsage() }) })
  process.on('disconnect', () => process.exit(0))
} else if (values.role === 'client') {
  await client(Number(values.port), Number(values.clients), Number(values.rate), Number(values.seconds), Number(values['warmup-seconds']))
} else {
  await main()
}

async function main () {
  const rates = values.rates.split(',').map(Number)
  const server = spawn(process.execPath, [process.argv[1], '--role', 'server'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
  if (values.pin) pin(/** @type {number} */ (server.pid), 1)
  const [{ port }] = await once(server, 'message')
  try {
    for (const rate of rates) {
      const loadAverageBefore = os.loadavg()[0]
      const child = spawn(process.execPath, [process.argv[1], '--role', 'client', '--port', String(port),
        '--clients', values.clients, '--rate', String(rate), '--seconds', values.seconds, '--warmup-seconds', values['warmup-seconds']],
      { stdio: ['ignore', 'pipe', 'inherit', 'ipc'] })
      if (values.pin) pin(/** @type {number} */ (child.pid), 0)
      const serverCpu = await new Promise((resolve) => { server.once('message', (m) => resolve(/** @type {any} */ (m).cpu)); server.send('cpu') })
      let out = ''
      child.stdout?.on('data', (d) => { out += d })
      // Its window, or its end first (a client that died before reporting): never a wait for ever.
      const exited = once(child, 'exit')
      const first = await Promise.race([once(child, 'message'), exited.then(([code, signal]) => ({ code, signal }))])
      if (!Array.isArray(first)) {
        throw new Error(`bench/emit-floor.js: the client process ended (${first.signal ?? `exit ${first.code}`}) before it reported its window`)
      }
      const [{ window }] = first
      const serverAfter = await new Promise((resolve) => { server.once('message', (m) => resolve(/** @type {any} */ (m).cpu)); server.send('cpu') })
      await exited
      const w = /** @type {{ trips: number, wallUs: number, userUs: number, systemUs: number, warmStartCpu: { user: number, system: number } }} */ (window)
      // The server's share over the whole client run (its warm-up included): a rough figure.
      const serverCpuUs = (serverAfter.user + serverAfter.system) - (serverCpu.user + serverCpu.system)
      process.stdout.write(JSON.stringify({
        bench: 'emit-floor',
        clients: Number(values.clients),
        offeredPerSec: rate,
        tripsPerSec: Math.round(w.trips / (w.wallUs / 1e6)),
        cpuUsPerTrip: round1((w.userUs + w.systemUs) / w.trips),
        cpuUserUsPerTrip: round1(w.userUs / w.trips),
        cpuSystemUsPerTrip: round1(w.systemUs / w.trips),
        clientCpuPct: round1(100 * (w.userUs + w.systemUs) / w.wallUs),
        serverCpuUsPerTrip: round1(serverCpuUs / (w.trips * (1 + Number(values['warmup-seconds']) / Number(values.seconds)))),
        pinned: values.pin,
        loadAverageBefore,
        host: hostFacts()
      }) + '\n')
      if (out) process.stderr.write(out)
    }
  } finally {
    server.kill()
  }
}

/**
 * @param {number} port
 * @param {number} clients
 * @param {number} rate
 * @param {number} seconds
 * @param {number} warmupSeconds
 */
async function client (port, clients, rate, seconds, warmupSeconds) {
  /** @type {net.Socket[]} */
  const sockets = []
  let trips = 0
  for (let i = 0; i < clients; i++) {
    const socket = net.connect(port, '127.0.0.1')
    socket.setNoDelay(true)
    await once(socket, 'connect')
    // 64-byte lines come back whole or split: count bytes, a trip per 64.
    let pending = 0
    socket.on('data', (chunk) => { pending += chunk.length; while (pending >= 64) { pending -= 64; trips++ } })
    sockets.push(socket)
  }
  const line = Buffer.alloc(64, 'x')
  const start = performance.now()
  let sent = 0
  let next = 0
  const timer = setInterval(() => {
    const due = Math.floor((performance.now() - start) * rate / 1000)
    while (sent < due) {
      sockets[next].write(line)
      next = (next + 1) % sockets.length
      sent++
    }
  }, 1)
  await new Promise((resolve) => setTimeout(resolve, warmupSeconds * 1000))
  const t0 = performance.now()
  const c0 = process.cpuUsage()
  const trips0 = trips
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000))
  const c1 = process.cpuUsage(c0)
  const wallUs = (performance.now() - t0) * 1000
  const window = { trips: trips - trips0, wallUs, userUs: c1.user, systemUs: c1.system }
  clearInterval(timer)
  process.send?.({ window })
  for (const socket of sockets) socket.destroy()
  process.disconnect?.()
}

/** @param {number} v */
function round1 (v) {
  return Math.round(v * 10) / 10
}
