#!/usr/bin/env node
/**
 * Recorder benchmark: the cost of `receive()`, the simulator's hottest path (once per client
 * per message), measured alone: no sockets, no parsing. Every one of `--clients` clients
 * receives each of `--messages` messages (with sentAt, so absolute latency is recorded too);
 * the messages are closed between runs. Prints one JSON line: ns per receipt (median, min and
 * max over `--runs` runs) and the process CPU ns per receipt (mean).
 *
 *   node bench/recorder.js [--clients 2000] [--messages 100] [--runs 7]
 */
import { parseArgs } from 'node:util'
import { performance } from 'node:perf_hooks'
import { createRecorder } from '../simulator/recorder.js'
import { hostFacts } from '../lib/host.js'

const { values } = parseArgs({
  options: {
    clients: { type: 'string', default: '2000' },
    messages: { type: 'string', default: '100' },
    runs: { type: 'string', default: '7' }
  }
})
const clients = Number(values.clients)
const messages = Number(values.messages)
const runs = Number(values.runs)

const recorder = createRecorder({ clients, messageTimeoutMs: 60000 })
for (let i = 0; i < clients; i++) recorder.setConnected(i, true)

/** @type {number[]} */
const nsPerReceipt = []
/** @type {number[]} */
const cpuNsPerReceipt = []
// Run 0 warms the JIT up and is not counted.
for (let run = 0; run <= runs; run++) {
  const cpuStart = process.cpuUsage()
  const start = performance.now()
  for (let m = 0; m < messages; m++) {
    const args = [{ id: `${run}.${m}`, round: run, seq: m, sentAt: Date.now() }]
    for (let i = 0; i < clients; i++) recorder.receive(i, 'broadcast', args)
  }
  const elapsedMs = performance.now() - start
  const cpu = process.cpuUsage(cpuStart)
  recorder.closeAll()
  if (run === 0) continue
  nsPerReceipt.push(elapsedMs * 1e6 / (messages * clients))
  cpuNsPerReceipt.push((cpu.user + cpu.system) * 1000 / (messages * clients))
}

const sorted = [...nsPerReceipt].sort((a, b) => a - b)
const round1 = (/** @type {number} */ v) => Math.round(v * 10) / 10
process.stdout.write(`${JSON.stringify({
  bench: 'recorder',
  clients,
  messages,
  runs,
  nsPerReceipt: { median: round1(sorted[Math.floor(sorted.length / 2)]), min: round1(sorted[0]), max: round1(sorted[sorted.length - 1]) },
  cpuNsPerReceipt: round1(cpuNsPerReceipt.reduce((a, b) => a + b, 0) / cpuNsPerReceipt.length),
  host: hostFacts()
})}\n`)
