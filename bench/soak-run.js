#!/usr/bin/env node
/**
 * Soak of `ioswarm run` without rounds: `ioswarm serve` relaying a chat, then a
 * windowed run of clients that join a room each and emit lines with acks, both as child
 * processes of the checkout given (--checkout: compare two commits in one go). Samples the
 * VmRSS of the runner, each of its simulator children and the server every --sample-seconds
 * from /proc, prints one JSON line per sample, then a summary: the result.json's size, the
 * time from the end of the hold to the runner's exit (merging and writing the results) and
 * the load average.
 *
 *   node bench/soak-run.js [--checkout .] [--minutes 30] [--clients 2500 (per simulator)] [--simulators 2]
 *                          [--rooms 100] [--emit-rate 1/60s] [--window 10s] [--ramp 60s]
 *                          [--sample-seconds 30] [--out DIR]
 */
import { spawn } from 'node:child_process'
import { readFile, stat } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import readline from 'node:readline'
import { setTimeout as sleep } from 'node:timers/promises'
import { parseArgs } from 'node:util'
import { parseDurationMs } from '../lib/values/parsers.js'
import { readTree } from './artillery-case.js'

const { values } = parseArgs({
  options: {
    checkout: { type: 'string', default: '.' },
    minutes: { type: 'string', default: '30' },
    clients: { type: 'string', default: '2500' },
    simulators: { type: 'string', default: '2' },
    rooms: { type: 'string', default: '100' },
    'emit-rate': { type: 'string', default: '1/60s' },
    window: { type: 'string', default: '10s' },
    ramp: { type: 'string', default: '60s' },
    'sample-seconds': { type: 'string', default: '30' },
    out: { type: 'string', default: path.join(os.tmpdir(), `ioswarm-soak-run-${process.pid}`) }
  }
})
const sampleMs = Number(values['sample-seconds']) * 1000
const minutes = Number(values.minutes)
if (!(sampleMs > 0) || !(minutes > 0)) throw new Error('--minutes and --sample-seconds must be positive')
const bin = path.resolve(values.checkout, 'bin/ioswarm.js')

const server = spawn(process.execPath, [bin, 'serve', '-p', '0', '--host', '127.0.0.1', '--json', '--relay-rate', '0'],
  { stdio: ['ignore', 'pipe', 'inherit'] })
const serverLines = readline.createInterface({ input: /** @type {import('node:stream').Readable} */ (server.stdout) })[Symbol.asyncIterator]()
const { url } = JSON.parse(/** @type {string} */ ((await serverLines.next()).value))
// --hold and --clients-per-simulator: what run's --duration and --clients meant before they meant the whole run and swarm
// (a checkout older than those spellings takes --duration and --clients here).
const args = ['run', '--target', url, '--rounds', 'none', '--hold', `${minutes}m`, '--window', values.window, '--clients-per-simulator', values.clients,
  '--simulators', values.simulators, '--engine', 'lean', '--ramp', values.ramp, '--rooms', values.rooms, '--join', 'join {"room":"{{room}}"}',
  '--event', 'chat', '--emit', 'chat {"room":"{{room}}","text":"hi from {{i}}"}', '--emit-rate', values['emit-rate'], '--emit-ack', '--out', values.out]
console.error(`node ${path.relative(process.cwd(), bin)} ${args.map((a) => (/[ {"]/.test(a) ? `'${a}'` : a)).join(' ')}`)
const startedAt = Date.now()
const runner = spawn(process.execPath, [bin, ...args], { stdio: ['ignore', 'ignore', 'pipe'] })
let lastLine = ''
readline.createInterface({ input: /** @type {import('node:stream').Readable} */ (runner.stderr) }).on('line', (line) => { lastLine = line })
const exited = new Promise((resolve) => runner.once('exit', (code) => resolve(code)))
const holdMs = minutes * 60000 + parseDurationMs(values.ramp, '--ramp')

/** @param {number} bytes @returns {number} MB */
const mb = (bytes) => Math.round(bytes / 1048576)

const state = { done: false }
exited.then(() => { state.done = true })
/** @type {Record<string, unknown>[]} */
const samples = []
// Bounded: the run's ramp and hold, then at most 30 minutes of merging and writing.
while (!state.done && Date.now() - startedAt < holdMs + 30 * 60000) {
  // The runner and its simulator children (its direct children), as bench/artillery-case.js reads a process tree.
  const [tree, serverTree] = await Promise.all([readTree(/** @type {number} */ (runner.pid)), readTree(/** @type {number} */ (server.pid))])
  const top = tree.procs.find((p) => p.pid === runner.pid)
  const sample = {
    t: Math.round((Date.now() - startedAt) / 1000),
    at: new Date().toISOString().slice(11, 19),
    runnerMb: top ? mb(top.rssBytes) : null,
    simulatorsMb: tree.procs.filter((p) => p.ppid === runner.pid).sort((a, b) => a.pid - b.pid).map((p) => mb(p.rssBytes)),
    serverMb: serverTree.procs.length > 0 ? mb(serverTree.procs[0].rssBytes) : null,
    load1: Math.round(os.loadavg()[0] * 10) / 10
  }
  samples.push(sample)
  console.log(JSON.stringify(sample))
  await Promise.race([sleep(sampleMs), exited])
}
const code = await exited
const endedAt = Date.now()
server.kill('SIGTERM')
const resultBytes = await stat(path.join(values.out, 'result.json')).then((s) => s.size, () => null)
const messagesCsvBytes = await stat(path.join(values.out, 'messages.csv')).then((s) => s.size, () => null)
const result = resultBytes ? JSON.parse(await readFile(path.join(values.out, 'result.json'), 'utf8')) : null
const d = result?.distributions?.[0]
console.log(JSON.stringify({
  summary: true,
  code,
  lastLine,
  resultBytes,
  messagesCsvBytes,
  // From the hold's planned end (ramp + duration after the start) to the runner's exit: stopping, merging, writing.
  afterHoldS: Math.round((endedAt - startedAt - holdMs) / 100) / 10,
  windows: d?.windows?.length ?? null,
  lines: d?.deliveries?.total?.messages ?? null,
  messages: d?.messages?.length ?? null,
  received: d?.deliveries?.total?.received ?? null,
  windowsReceived: d?.windows?.reduce((/** @type {number} */ s, /** @type {{ received: number }} */ w) => s + w.received, 0) ?? null,
  missing: d?.deliveries?.total?.missing ?? null,
  runnerMaxMb: Math.max(...samples.map((s) => Number(s.runnerMb ?? 0))),
  loadavg: os.loadavg().map((l) => Math.round(l * 10) / 10),
  out: values.out
}))
