#!/usr/bin/env node
/**
 * Soak of `ioswarm run` without rounds (issue 25): `ioswarm serve` relaying a chat, then a
 * windowed run of clients that join a room each and emit lines with acks, both as child
 * processes of the checkout given (--checkout: compare two commits in one go). Samples the
 * VmRSS of the runner, each of its simulator children and the server every --sample-seconds
 * from /proc, prints one JSON line per sample, then a summary: the result.json's size, the
 * time from the end of the hold to the runner's exit (merging and writing the results) and
 * the load average.
 *
 *   node bench/soak-run.js [--checkout .] [--minutes 30] [--clients 2500] [--simulators 2]
 *                          [--rooms 100] [--emit-rate 1/60s] [--window 10s] [--ramp 60s]
 *                          [--sample-seconds 30] [--out DIR]
 */
import { spawn } from 'node:child_process'
import { readFile, readdir, stat } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import readline from 'node:readline'
import { setTimeout as sleep } from 'node:timers/promises'
import { parseArgs } from 'node:util'

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

const server = spawn(process.execPath, [bin, 'serve', '-p', '0', '--host', '127.0.0.1', '--json', '--relay-rate', '0'], { stdio: ['ignore', 'pipe', 'inherit'] })
const serverLines = readline.createInterface({ input: /** @type {import('node:stream').Readable} */ (server.stdout) })[Symbol.asyncIterator]()
const { url } = JSON.parse(/** @type {string} */ ((await serverLines.next()).value))
const args = ['run', '--target', url, '--rounds', 'none', '--duration', `${minutes}m`, '--window', values.window, '--clients', values.clients,
  '--simulators', values.simulators, '--engine', 'lean', '--ramp', values.ramp, '--rooms', values.rooms, '--join', 'join {"room":"{{room}}"}',
  '--event', 'chat', '--emit', 'chat {"room":"{{room}}","text":"hi from {{i}}"}', '--emit-rate', values['emit-rate'], '--emit-ack', '--out', values.out]
console.error(`node ${path.relative(process.cwd(), bin)} ${args.map((a) => (/[ {"]/.test(a) ? `'${a}'` : a)).join(' ')}`)
const startedAt = Date.now()
const runner = spawn(process.execPath, [bin, ...args], { stdio: ['ignore', 'ignore', 'pipe'] })
let lastLine = ''
readline.createInterface({ input: /** @type {import('node:stream').Readable} */ (runner.stderr) }).on('line', (line) => { lastLine = line })
const exited = new Promise((resolve) => runner.once('exit', (code) => resolve(code)))
const holdMs = minutes * 60000 + parseMs(values.ramp)

/** @param {string} text e.g. 60s, 500ms */
function parseMs (text) {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m)?$/.exec(text)
  if (!m) throw new Error(`cannot read ${text}`)
  return Number(m[1]) * ({ ms: 1, s: 1000, m: 60000 }[m[2] ?? 'ms'] ?? 1)
}

/** @param {number} pid @returns {Promise<number | null>} MB */
async function rssMb (pid) {
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '')
  const kb = /VmRSS:\s+(\d+)/.exec(status)?.[1]
  return kb ? Math.round(Number(kb) / 1024) : null
}

/** @param {number} pid @returns {Promise<number[]>} the pids whose parent is `pid` */
async function childrenOf (pid) {
  const pids = []
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '')
    if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid) pids.push(Number(entry))
  }
  return pids.sort((a, b) => a - b)
}

const state = { done: false }
exited.then(() => { state.done = true })
/** @type {Record<string, unknown>[]} */
const samples = []
// Bounded: the run's ramp and hold, then at most 30 minutes of merging and writing.
while (!state.done && Date.now() - startedAt < holdMs + 30 * 60000) {
  const sims = await childrenOf(/** @type {number} */ (runner.pid))
  const sample = {
    t: Math.round((Date.now() - startedAt) / 1000),
    at: new Date().toISOString().slice(11, 19),
    runnerMb: await rssMb(/** @type {number} */ (runner.pid)),
    simulatorsMb: await Promise.all(sims.map(rssMb)),
    serverMb: await rssMb(/** @type {number} */ (server.pid)),
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
