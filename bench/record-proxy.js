#!/usr/bin/env node
/**
 * Recording proxy benchmark: the latency `ioswarm record --proxy` adds per message. A socket.io
 * server (in this process) echoes each message in its ack; two socket.io-clients (in this
 * process) emit at `--rate` messages a second each, one straight to the server and one through
 * the proxy (the real binary, a child process, recording as a user runs it), their sends
 * interleaved half a period apart so that both see the same load. Each message's round trip is
 * timed with the monotonic clock; a round trip crosses the proxy twice, so the latency added
 * per message is half the difference of the round trips (p50, p90, p99). Prints one JSON line
 * with the host's facts and its load average before and after. The proxy writes its scenario
 * when stopped, into a temporary directory removed at the end.
 *
 *   node bench/record-proxy.js [--rate 100] [--seconds 20] [--transport websocket|polling] [--bytes 100]
 */
import { spawn } from 'node:child_process'
import { createServer } from 'node:http'
import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { parseArgs } from 'node:util'
import { fileURLToPath } from 'node:url'
import { Server } from 'socket.io'
import { io } from 'socket.io-client'
import { hostFacts } from '../lib/host.js'

const { values } = parseArgs({
  options: {
    rate: { type: 'string', default: '100' },
    seconds: { type: 'string', default: '20' },
    transport: { type: 'string', default: 'websocket' },
    bytes: { type: 'string', default: '100' }
  }
})
const rate = Number(values.rate)
const seconds = Number(values.seconds)
const transport = values.transport === 'polling' ? 'polling' : 'websocket'
const text = 'x'.repeat(Number(values.bytes))
const BIN = fileURLToPath(new URL('../bin/ioswarm.js', import.meta.url))
const loadBefore = os.loadavg()

const http = createServer()
const server = new Server(http)
server.on('connection', (socket) => socket.on('echo', (m, ack) => ack(m)))
await new Promise((resolve) => http.listen(0, '127.0.0.1', () => resolve(undefined)))
const target = `http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (http.address()).port}`

const dir = await mkdtemp(join(os.tmpdir(), 'ioswarm-bench-proxy-'))
const proxy = spawn(process.execPath, [BIN, 'record', '--proxy', '0', '--target', target, '--out', join(dir, 'bench.mjs')],
  { stdio: ['ignore', 'ignore', 'pipe'] })
let proxyErr = ''
proxy.stderr.setEncoding('utf8').on('data', (d) => { proxyErr += d })
const proxyUrl = await new Promise((resolve, reject) => {
  proxy.on('exit', () => reject(new Error(`the proxy ended: ${proxyErr}`)))
  const check = () => {
    const url = /recording proxy on (http:\/\/\S+?)\/? /.exec(proxyErr)?.[1]
    if (url) resolve(url)
    else setTimeout(check, 20)
  }
  check()
})

/** @param {string} url */
async function client (url) {
  const socket = io(url, { transports: [transport], reconnection: false, forceNew: true })
  await new Promise((resolve, reject) => socket.once('connect', () => resolve(undefined)).once('connect_error', reject))
  return socket
}
const direct = await client(target)
const proxied = await client(proxyUrl)

/** @type {Record<'direct' | 'proxied', number[]>} */
const rtts = { direct: [], proxied: [] }
let lost = 0
/** @param {import('socket.io-client').Socket} socket @param {number[]} into */
const send = (socket, into) => {
  const start = performance.now()
  socket.timeout(5000).emitWithAck('echo', text).then(() => into.push(performance.now() - start), () => { lost++ })
}
const periodMs = 1000 / rate
// One second of warm-up (JIT, TCP windows), not counted.
for (const [count, counted] of [[rate, false], [rate * seconds, true]]) {
  const into = counted ? rtts : { direct: [], proxied: [] }
  const start = performance.now()
  for (let k = 0; k < /** @type {number} */ (count); k++) {
    const at = start + k * periodMs
    await sleep(Math.max(0, at - performance.now()))
    send(direct, into.direct)
    await sleep(Math.max(0, at + periodMs / 2 - performance.now()))
    send(proxied, into.proxied)
  }
  await sleep(500)
}
direct.close()
proxied.close()
proxy.kill('SIGINT')
await new Promise((resolve) => proxy.once('close', resolve))
server.close()
http.close()
await rm(dir, { recursive: true, force: true })

/** @param {number[]} values @param {number} q */
const quantile = (values, q) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(q * values.length))]
const ms = (/** @type {number} */ v) => Math.round(v * 1000) / 1000
const stats = (/** @type {number[]} */ v) => ({
  count: v.length, p50: ms(quantile(v, 0.5)), p90: ms(quantile(v, 0.9)), p99: ms(quantile(v, 0.99)), max: ms(Math.max(...v))
})
const d = stats(rtts.direct)
const p = stats(rtts.proxied)
process.stdout.write(`${JSON.stringify({
  bench: 'record-proxy',
  transport,
  ratePerSec: rate,
  seconds,
  payloadBytes: text.length,
  rttMs: { direct: d, proxied: p },
  addedMsPerMessage: { p50: ms((p.p50 - d.p50) / 2), p90: ms((p.p90 - d.p90) / 2), p99: ms((p.p99 - d.p99) / 2) },
  lost,
  proxyWrote: /wrote /.test(proxyErr),
  host: hostFacts(),
  loadAverage: { before: loadBefore.map((v) => Math.round(v * 100) / 100), after: os.loadavg().map((v) => Math.round(v * 100) / 100) },
  at: new Date().toISOString()
})}\n`)
