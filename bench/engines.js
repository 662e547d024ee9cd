#!/usr/bin/env node
/**
 * Engine benchmark: lean (WebSocket on the ws library, --ws-client ws; polling on the built-in HTTP
 * client), lean-builtin (lean on its built-in WebSocket client, its default), lean-undici (lean polling on undici) and
 * sio (socket.io-client direct), WebSocket and polling, against a socket.io server in this process;
 * websocket and websocket-builtin (--protocol websocket: plain WebSocket clients on ws or the
 * built-in client) against a plain ws server in this process sending the same message as one
 * JSON text frame; sse (--protocol sse: Server-Sent Events subscribers) against a node:http event
 * stream server in this process writing the same message as one `data:` event. Each case runs its clients in a child process (so the
 * server's memory and CPU stay apart) and prints one JSON line:
 * marginal RSS per client (after gc), CPU µs per delivered frame, connects per second, and
 * the drain time of one broadcast (first to last receipt in the client process).
 *
 *   node bench/engines.js [--clients 1000] [--broadcasts 20] [--warmup 5] [--payload-bytes 100]
 *                         [--engines lean,sio] [--transports websocket,polling] [--cookie-bytes 0] [--tls]
 *                         [--artillery-bin PATH] [--artillery-rate 100] [--artillery-baseline 50]
 * (engines: lean, lean-builtin, lean-undici, sio, websocket, websocket-builtin, sse, artillery: Artillery's socketio
 * engine, artillery-ws: its ws engine, memory and connect CPU only, see artillery-case.js;
 * the plain WebSocket and sse engines run on the websocket transport only; --cookie-bytes N: the server's
 * handshake sets a cookie `name=value` of N bytes, which every client keeps in its jar; --tls: the
 * socket.io server speaks https with a self-signed certificate made by the openssl CLI in a
 * temporary directory, which the clients trust with --ca; lean, lean-builtin and sio only: the
 * plain server stays plain)
 */
import { fork } from 'node:child_process'
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs'
import { createServer } from 'node:http'
import { createServer as createHttpsServer } from 'node:https'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { once } from 'node:events'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { performance } from 'node:perf_hooks'
import { Server } from 'socket.io'
import { io as ioClient } from 'socket.io-client'
import { WebSocketServer } from 'ws'
import { leanEngine } from '../simulator/engines/lean.js'
import { websocketEngine } from '../simulator/engines/websocket.js'
import { sseEngine } from '../simulator/engines/sse.js'
import { hostFacts } from '../lib/host.js'
import { tlsTrust } from '../lib/input/tls-trust.js'
import { makePayload } from '../lib/protocol.js'
import { findArtilleryBin, runArtilleryCase } from './artillery-case.js'

/** How long one broadcast may take to reach every client before it counts missing ones. */
const DRAIN_LIMIT_MS = 20000
/** How long all clients may take to connect. */
const CONNECT_LIMIT_MS = 120000
// The socket.io server's listen backlog. Node's default (511) overflows when half of 5,000 TLS
// clients open at once: the server accepts only as fast as it finishes handshakes, the kernel drops
// the rest's ACKs (ListenOverflows), and some end in ECONNRESET or the connect limit. The kernel caps
// it at net.core.somaxconn (4096 here). ioswarm's own --ramp spreads connects instead.
const LISTEN_BACKLOG = 4096

if (process.argv.includes('--child')) runChild()
else await runParent()

async function runParent () {
  const { values } = parseArgs({
    options: {
      clients: { type: 'string', default: '1000' },
      broadcasts: { type: 'string', default: '20' },
      warmup: { type: 'string', default: '5' },
      'payload-bytes': { type: 'string', default: '100' },
      engines: { type: 'string', default: 'lean,sio' },
      transports: { type: 'string', default: 'websocket,polling' },
      'cookie-bytes': { type: 'string', default: '0' },
      tls: { type: 'boolean', default: false },
      'artillery-bin': { type: 'string' },
      'artillery-rate': { type: 'string', default: '100' },
      'artillery-baseline': { type: 'string', default: '50' }
    }
  })
  const clients = Number(values.clients)
  const broadcasts = Number(values.broadcasts)
  const warmup = Number(values.warmup)
  const payload = makePayload(Number(values['payload-bytes']))
  const cert = values.tls ? makeCertificate() : null
  const httpServer = cert ? createHttpsServer({ cert: readFileSync(cert.cert), key: readFileSync(cert.key) }) : createServer()
  const io = new Server(httpServer)
  const cookieBytes = Number(values['cookie-bytes'])
  if (cookieBytes > 0) {
    // Each client's own value (as a balancer's or a session's cookie), so no string is shared between jars.
    let n = 0
    io.engine.on('initial_headers', (/** @type {Record<string, unknown>} */ headers) => {
      const value = `${(n++).toString(36)}${'x'.repeat(cookieBytes)}`.slice(0, Math.max(1, cookieBytes - 3))
      headers['set-cookie'] = [`ck=${value}; Path=/`]
    })
  }
  httpServer.listen({ port: 0, host: '127.0.0.1', backlog: LISTEN_BACKLOG })
  await once(httpServer, 'listening')
  const { port } = /** @type {import('node:net').AddressInfo} */ (httpServer.address())
  const url = `${cert ? 'https' : 'http'}://127.0.0.1:${port}`
  const engines = values.engines.split(',')
  const plain = engines.some(isPlain) ? await startPlainServer() : null
  const stream = engines.includes('sse') ? await startStreamServer() : null
  const emitSio = (/** @type {unknown} */ message) => io.emit('broadcast', message)
  for (const engine of engines) {
    for (const transport of values.transports.split(',')) {
      if ((isPlain(engine) || engine === 'sse') && transport !== 'websocket') continue
      if (cert && !['lean', 'lean-builtin', 'sio'].includes(engine)) {
        const skipped = 'TLS: lean, lean-builtin and sio only (the plain server is ws://)'
        process.stdout.write(`${JSON.stringify({ bench: 'engines', engine, transport, clients, tls: true, skipped })}\n`)
        continue
      }
      const target = engine === 'sse'
        ? /** @type {NonNullable<typeof stream>} */ (stream)
        : isPlain(engine) ? /** @type {NonNullable<typeof plain>} */ (plain) : { url, emit: emitSio, connected: () => io.of('/').sockets.size }
      const ownCase = { emit: target.emit, url: target.url, engine, transport, clients, broadcasts, warmup, payload, ca: cert?.cert ?? null }
      const result = engine.startsWith('artillery')
        ? await artilleryCase(target, engine === 'artillery-ws' ? 'ws' : 'socketio', transport, clients, values)
        : { ...await runCase(ownCase), payloadBytes: payload.length, cookieBytes, tls: cert !== null }
      process.stdout.write(`${JSON.stringify({ bench: 'engines', ...result, host: hostFacts() })}\n`)
    }
  }
  io.close()
  httpServer.closeAllConnections()
  plain?.close()
  stream?.close()
  if (cert) rmSync(cert.dir, { recursive: true, force: true })
}

/** A self-signed certificate for 127.0.0.1 in a temporary directory (the openssl CLI). */
function makeCertificate () {
  const dir = mkdtempSync(join(tmpdir(), 'ioswarm-bench-tls-'))
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1',
    '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')], { stdio: 'ignore' })
  return { dir, cert: join(dir, 'cert.pem'), key: join(dir, 'key.pem') }
}

/**
 * Engines that speak plain WebSocket to the plain server.
 * @param {string} engine
 */
function isPlain (engine) {
  return engine === 'websocket' || engine === 'websocket-builtin' || engine === 'artillery-ws'
}

/**
 * A plain ws server (what `serve --protocol websocket` runs): a broadcast is one JSON text
 * frame, serialised once, sent to every client.
 */
async function startPlainServer () {
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1', perMessageDeflate: false })
  await once(wss, 'listening')
  return {
    url: `ws://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (wss.address()).port}/`,
    emit: (/** @type {unknown} */ message) => {
      const data = Buffer.from(JSON.stringify(message))
      for (const ws of wss.clients) ws.send(data, { binary: false })
    },
    connected: () => wss.clients.size,
    close: () => {
      for (const ws of wss.clients) ws.terminate()
      wss.close()
    }
  }
}

/**
 * An event stream server (what nchan's or an app's EventSource endpoint does): a broadcast is one
 * `data:` event, serialised once, written to every open stream.
 */
async function startStreamServer () {
  /** @type {Set<import('node:http').ServerResponse>} */
  const streams = new Set()
  const server = createServer((req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' })
    res.write(': open\n\n')
    streams.add(res)
    res.on('close', () => streams.delete(res))
  })
  server.listen({ port: 0, host: '127.0.0.1', backlog: LISTEN_BACKLOG })
  await once(server, 'listening')
  return {
    url: `http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (server.address()).port}/events`,
    emit: (/** @type {unknown} */ message) => {
      const data = Buffer.from(`data: ${JSON.stringify(message)}\n\n`)
      for (const res of streams) res.write(data)
    },
    connected: () => streams.size,
    close: () => {
      server.closeAllConnections()
      server.close()
    }
  }
}

/**
 * Artillery's socketio or ws engine at the same N, or a line saying why it was skipped.
 * @param {{ url: string, connected: () => number }} target the server and its user count
 * @param {'socketio' | 'ws'} engine
 * @param {string} transport
 * @param {number} clients
 * @param {Record<string, string | boolean | undefined>} values
 */
async function artilleryCase (target, engine, transport, clients, values) {
  const found = findArtilleryBin(/** @type {string | undefined} */ (values['artillery-bin']))
  if ('skipped' in found) return { engine: engine === 'ws' ? 'artillery-ws' : 'artillery', transport, clients, skipped: found.skipped }
  const asked = Number(values['artillery-baseline'])
  if (!(Number.isInteger(asked) && asked >= 1)) {
    throw new Error(`--artillery-baseline must be a whole number of users, at least 1, got ${JSON.stringify(values['artillery-baseline'])}`)
  }
  // At most a quarter of N, so that the per-client slope spans most of the users.
  const baseline = Math.max(1, Math.min(asked, Math.floor(clients / 4)))
  const ratePerSec = Number(values['artillery-rate'])
  if (!(Number.isInteger(ratePerSec) && ratePerSec >= 1)) {
    throw new Error(`--artillery-rate must be a whole number of arrivals per second, at least 1, got ${JSON.stringify(values['artillery-rate'])}`)
  }
  // Artillery connects at its ramp's pace: the limit is the ramp plus the usual margin.
  const connectLimitMs = Math.ceil(clients / ratePerSec) * 1000 + CONNECT_LIMIT_MS
  return runArtilleryCase({ connected: target.connected, bin: found.bin, url: target.url, transport, clients, baseline, ratePerSec, connectLimitMs, engine })
}

/**
 * One engine × transport: connect in a child, broadcast, collect its measurements.
 * @param {{ emit: (message: unknown) => void, url: string, engine: string, transport: string, clients: number, broadcasts: number, warmup: number, payload: string, ca: string | null }} spec
 */
async function runCase ({ emit, url, engine, transport, clients, broadcasts, warmup, payload, ca }) {
  const child = fork(fileURLToPath(import.meta.url), ['--child'], { execArgv: ['--expose-gc'] })
  /** @type {any[]} */
  const inbox = []
  /** @type {(() => void) | null} */
  let wake = null
  child.on('message', (message) => { inbox.push(message); wake?.() })
  const next = async (/** @type {string} */ type, /** @type {number} */ limitMs) => {
    const deadline = Date.now() + limitMs
    for (;;) {
      const at = inbox.findIndex((m) => m.type === type)
      if (at !== -1) return inbox.splice(at, 1)[0]
      if (Date.now() > deadline) return null
      await new Promise((resolve) => { wake = () => resolve(undefined); setTimeout(resolve, 50) })
    }
  }
  child.send({ type: 'start', url, engine, transport, clients, ca })
  const connected = await next('connected', CONNECT_LIMIT_MS)
  /** One broadcast, waited for in the child; returns its drain time and missing clients. */
  const broadcast = async (/** @type {number} */ id) => {
    child.send({ type: 'expect', id })
    await next('expecting', 10000)
    emit({ id, round: 0, seq: id, sentAt: Date.now(), payload })
    const drained = await next('drained', DRAIN_LIMIT_MS)
    if (drained === null) child.send({ type: 'give-up' })
    const final = drained ?? await next('drained', 10000)
    return { drainMs: final?.drainMs ?? NaN, missing: final?.missing ?? clients }
  }
  // Unmeasured broadcasts first, so the measured ones run optimised code.
  for (let id = 1; id <= warmup; id++) await broadcast(-id)
  child.send({ type: 'arm' })
  await next('armed', 10000)
  const drains = []
  let missing = 0
  for (let id = 1; id <= broadcasts; id++) {
    const result = await broadcast(id)
    drains.push(result.drainMs)
    missing += result.missing
  }
  child.send({ type: 'report' })
  const report = await next('report', 10000)
  child.kill()
  await once(child, 'exit')
  const sorted = drains.filter((d) => Number.isFinite(d)).sort((a, b) => a - b)
  const round1 = (/** @type {number} */ v) => Math.round(v * 10) / 10
  return {
    engine,
    transport,
    clients,
    connected: connected?.connected ?? 0,
    failed: connected?.failed ?? 0,
    connectsPerSec: connected ? Math.round(connected.connected / (connected.connectMs / 1000)) : 0,
    rssPerClientBytes: connected ? Math.round((connected.rssAfterBytes - connected.rssBeforeBytes) / Math.max(1, connected.connected)) : null,
    // The second half only: without the one-off growth of V8's young generation and malloc arenas.
    rssPerClientSecondHalfBytes: connected
      ? Math.round((connected.rssAfterBytes - connected.rssHalfBytes) / Math.max(1, connected.connected - connected.half))
      : null,
    // The whole client process with N clients (after GC): beside Artillery's rssAtClientsBytes, fixed cost included.
    rssAtClientsBytes: connected ? connected.rssAfterBytes : null,
    // V8 heap per client (after gc): finer than RSS for what a field or a small object costs.
    heapPerClientBytes: connected ? Math.round((connected.heapAfterBytes - connected.heapBeforeBytes) / Math.max(1, connected.connected)) : null,
    // The client process's file descriptors with every client connected, and the most seen while they connected.
    fdsAtClients: connected?.fds ?? null,
    fdsPeak: connected?.fdsPeak ?? null,
    connectCpuUsPerClient: connected ? Math.round(connected.connectCpuUs / Math.max(1, connected.connected)) : null,
    cpuUsPerFrame: report ? round1(report.cpuUs / Math.max(1, report.frames)) : null,
    cpuSystemUsPerFrame: report ? round1(report.cpuSystemUs / Math.max(1, report.frames)) : null,
    drainMs: { median: round1(sorted[Math.floor(sorted.length / 2)] ?? NaN), max: round1(sorted[sorted.length - 1] ?? NaN) },
    broadcasts,
    missing
  }
}

/** File descriptors this process holds now. */
function openFds () {
  return readdirSync('/proc/self/fd').length
}

/** RSS after two full collections (the marginal measure must not count garbage). */
function settledRss () {
  const gc = /** @type {() => void} */ (globalThis.gc)
  gc()
  gc()
  return process.memoryUsage().rss
}

/** The client side of a case: opens the swarm, counts receipts, measures itself. */
function runChild () {
  const state = { id: 0, count: 0, firstAt: 0, lastAt: 0, frames: 0, expected: 0 }
  let cpuStart = process.cpuUsage()
  let disconnectAll = () => {}
  /** @param {number} id */
  const onBroadcast = (id) => {
    state.frames++
    if (id !== state.id) return
    const now = performance.now()
    if (state.count++ === 0) state.firstAt = now
    state.lastAt = now
    if (state.count === state.expected) drained()
  }
  const drained = () => {
    const id = state.id
    state.id = 0
    process.send?.({ type: 'drained', id, drainMs: state.lastAt - state.firstAt, missing: state.expected - state.count })
  }
  process.on('message', (/** @type {any} */ message) => {
    if (message.type === 'start') {
      state.expected = message.clients
      disconnectAll = start(message, onBroadcast)
    } else if (message.type === 'arm') {
      cpuStart = process.cpuUsage()
      state.frames = 0
      process.send?.({ type: 'armed' })
    } else if (message.type === 'expect') {
      Object.assign(state, { id: message.id, count: 0, firstAt: 0, lastAt: 0 })
      process.send?.({ type: 'expecting' })
    } else if (message.type === 'give-up') {
      drained()
    } else if (message.type === 'report') {
      const cpu = process.cpuUsage(cpuStart)
      process.send?.({ type: 'report', cpuUs: cpu.user + cpu.system, cpuSystemUs: cpu.system, frames: state.frames })
      disconnectAll()
    }
  })
}

/**
 * Opens `clients` clients of one engine in two halves, reporting 'connected' with memory and
 * timing: RSS before, after the first half and after all (each after gc).
 * @param {{ url: string, engine: string, transport: 'websocket' | 'polling', clients: number, ca: string | null }} spec
 * @param {(id: number) => void} onBroadcast
 * @returns {() => void} closes everything
 */
function start ({ url, engine, transport, clients, ca }, onBroadcast) {
  const half = Math.floor(clients / 2)
  const swarm = () => {
    if (engine === 'sio') return sioSwarm(url, transport, onConnect, onFailed, onBroadcast, ca)
    if (engine === 'sse') return streamSwarm(url, onConnect, onFailed, onBroadcast)
    return isPlain(engine) ? plainSwarm(url, engine, onConnect, onFailed, onBroadcast) : leanSwarm(url, engine, transport, onConnect, onFailed, onBroadcast, ca)
  }
  const { open, close } = swarm()
  let connected = 0
  // Attempts that failed: a bench client never reconnects, so a phase ends when every client connected or failed.
  let failed = 0
  let connectMs = 0
  let phaseStart = 0
  // CPU of the connect phases only (the GCs between them left out), as Artillery's connect CPU is read.
  let connectCpuUs = 0
  let phaseCpu = process.cpuUsage()
  let rssHalfBytes = 0
  const rssBeforeBytes = settledRss()
  const heapBeforeBytes = process.memoryUsage().heapUsed
  const phase = (/** @type {number} */ from, /** @type {number} */ to) => {
    phaseStart = performance.now()
    phaseCpu = process.cpuUsage()
    open(from, to)
  }
  const endPhase = () => {
    connectMs += performance.now() - phaseStart
    const cpu = process.cpuUsage(phaseCpu)
    connectCpuUs += cpu.user + cpu.system
  }
  const timer = setTimeout(() => report(), CONNECT_LIMIT_MS - 5000)
  timer.unref()
  // Open file descriptors while the clients connect (a burst of POSTs is when shared connections pile up): the most seen.
  let fdsPeak = openFds()
  const fdTimer = setInterval(() => { fdsPeak = Math.max(fdsPeak, openFds()) }, 200)
  let reported = false
  function report () {
    if (reported) return
    reported = true
    endPhase()
    clearInterval(fdTimer)
    const fds = openFds()
    fdsPeak = Math.max(fdsPeak, fds)
    const rssAfterBytes = settledRss()
    const heapAfterBytes = process.memoryUsage().heapUsed
    const rss = { rssBeforeBytes, rssHalfBytes, rssAfterBytes }
    process.send?.({ type: 'connected', connected, failed, connectMs, connectCpuUs, ...rss, heapBeforeBytes, heapAfterBytes, half, fds, fdsPeak })
  }
  function onConnect () {
    connected++
    settled()
  }
  function onFailed () {
    failed++
    settled()
  }
  function settled () {
    if (connected + failed === half) {
      endPhase()
      rssHalfBytes = settledRss()
      phase(half, clients)
    } else if (connected + failed === clients) {
      report()
    }
  }
  phase(0, half)
  return close
}

/**
 * The simulator's own engine pools with no swarm around them: every client connects, each
 * broadcast's id is handed on.
 * @param {{ createPool: typeof leanEngine.createPool }} engine lean, or the plain WebSocket clients (--protocol websocket)
 * @param {import('../simulator/engines/lean/config.js').LeanOptions} options
 * @param {'websocket' | 'polling'} transport
 * @param {() => void} onConnect
 * @param {() => void} onFailed a client's one attempt failed (a bench client never reconnects)
 * @param {(id: number) => void} onBroadcast
 */
function poolSwarm (engine, options, transport, onConnect, onFailed, onBroadcast) {
  const pool = engine.createPool(options, {
    attempt () {},
    unmeasured () {},
    connected: onConnect,
    upgraded () {},
    message: (_i, _event, args) => onBroadcast(/** @type {{ id: number }} */ (args[0]).id),
    disconnected () {},
    connectError: onFailed,
    reconnected () {},
    // As a swarm: over TLS each handshake is timed (its cost is in the figures).
    secured () {}
  })
  return {
    open: (/** @type {number} */ from, /** @type {number} */ to) => { for (let i = from; i < to; i++) pool.connect(i, transport) },
    close: () => { pool.close() }
  }
}

/**
 * The lean engine ('lean': the ws library; 'lean-builtin': its built-in WebSocket client; 'lean-undici':
 * polling on undici rather than the built-in HTTP client, the default for http://).
 * @param {string} url
 * @param {string} engine
 * @param {'websocket' | 'polling'} transport
 * @param {() => void} onConnect
 * @param {() => void} onFailed
 * @param {(id: number) => void} onBroadcast
 * @param {string | null} ca --tls: the certificate to trust
 */
const leanSwarm = (url, engine, transport, onConnect, onFailed, onBroadcast, ca) => poolSwarm(leanEngine, {
  url,
  path: '/socket.io/',
  namespace: '/',
  events: ['broadcast'],
  keepAlive: true,
  reconnect: false,
  wsClient: engine === 'lean-builtin' ? 'builtin' : 'ws',
  httpClient: engine === 'lean-undici' || ca ? 'undici' : 'builtin',
  tls: ca ? tlsTrust({ ca: [ca] }) : null,
  // Half the clients open at once: on a busy machine their (TLS) handshakes queue for longer than
  // the default connect timeout, and a bench client never reconnects. Waiting measures the rate instead.
  connectTimeoutMs: CONNECT_LIMIT_MS
}, transport, onConnect, onFailed, onBroadcast)

/**
 * Plain WebSocket clients (--protocol websocket), as the simulator runs them.
 * @param {string} url ws://…
 * @param {string} engine 'websocket' (the ws library, the default) or 'websocket-builtin'
 * @param {() => void} onConnect
 * @param {() => void} onFailed
 * @param {(id: number) => void} onBroadcast
 */
const plainSwarm = (url, engine, onConnect, onFailed, onBroadcast) => poolSwarm(websocketEngine,
  { url, path: '/', namespace: '/', events: ['*'], keepAlive: true, reconnect: false, wsClient: engine === 'websocket-builtin' ? 'builtin' : 'ws' },
  'websocket', onConnect, onFailed, onBroadcast)

/**
 * Server-Sent Events subscribers (--protocol sse), as the simulator runs them.
 * @param {string} url http://…
 * @param {() => void} onConnect
 * @param {() => void} onFailed
 * @param {(id: number) => void} onBroadcast
 */
const streamSwarm = (url, onConnect, onFailed, onBroadcast) => poolSwarm(sseEngine,
  { url, path: '/', namespace: '/', events: ['*'], keepAlive: false, reconnect: false, connectTimeoutMs: CONNECT_LIMIT_MS },
  'websocket', onConnect, onFailed, onBroadcast)

/**
 * @param {string} url
 * @param {'websocket' | 'polling'} transport
 * @param {() => void} onConnect
 * @param {() => void} onFailed
 * @param {(id: number) => void} onBroadcast
 * @param {string | null} ca --tls: the certificate to trust
 */
function sioSwarm (url, transport, onConnect, onFailed, onBroadcast, ca) {
  const trust = ca ? { ca: readFileSync(ca, 'utf8') } : {}
  /** @type {import('socket.io-client').Socket[]} */
  const sockets = []
  return {
    open: (/** @type {number} */ from, /** @type {number} */ to) => {
      for (let i = from; i < to; i++) {
        const socket = ioClient(url, { forceNew: true, transports: [transport], reconnection: false, ...trust })
        socket.on('connect', onConnect)
        socket.on('connect_error', onFailed)
        socket.on('broadcast', (/** @type {{ id: number }} */ message) => onBroadcast(message.id))
        sockets.push(socket)
      }
    },
    close: () => { for (const s of sockets) s.disconnect() }
  }
}
