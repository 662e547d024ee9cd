#!/usr/bin/env node
/**
 * Recorder benchmark: the cost of `receive()`, the simulator's hottest path (once per client
 * per message), measured alone: no sockets, no parsing. Every one of `--clients` clients
 * receives each of `--messages` messages (with sentAt, so absolute latency is recorded too);
 * the messages are closed between runs. Prints one JSON line: ns per receipt (median, min and
 * max over `--runs` runs) and the process CPU ns per receipt (mean).
 *
 * `--storm`: the receipt path while a reconnect storm's gap is followed (half the clients
 * dropped and away), as the swarm wires it: `--wiring recorder` (the recorder tells the gap the
 * key it found) or `--wiring tracker` (the client tracker identified each message again for the
 * gap before the recorder, as it did before the recorder told it). `--ids no`: messages without an id (known by the
 * hash of their content). `--root DIR`: the ioswarm tree whose modules are measured (a base
 * branch's checkout, for a before/after with this same script). `--windows`: the recorder
 * tells a window book (--window 10s, simulator/recording/window-recorder.js) of each message when it opens and
 * closes, as a swarm with --window wires it. Besides the receipts, the closing of the messages
 * is timed (closeUsPerMessage: closeAll, and with --windows the windows' flush, per message).
 * `--joining N`: a ramp's or churn's connects, as the recorder sees them: before each message N
 * clients drop and connect again, and the message is stamped 50 ms earlier, so that they
 * connected after its send (a message opens by walking the latest connects back to its send
 * time: recorder-connects.js) and their copies are received, not expected.
 *
 *   node bench/recorder.js [--clients 2000] [--messages 100] [--runs 7] [--storm] [--wiring recorder|tracker] [--ids yes|no] [--windows] [--joining N] [--root DIR]
 */
import { parseArgs } from 'node:util'
import { performance } from 'node:perf_hooks'
import { pathToFileURL } from 'node:url'
import { resolve } from 'node:path'
import { hostFacts } from '../lib/host.js'

const { values } = parseArgs({
  options: {
    clients: { type: 'string', default: '2000' },
    messages: { type: 'string', default: '100' },
    runs: { type: 'string', default: '7' },
    storm: { type: 'boolean', default: false },
    wiring: { type: 'string', default: 'recorder' },
    ids: { type: 'string', default: 'yes' },
    windows: { type: 'boolean', default: false },
    joining: { type: 'string', default: '0' },
    root: { type: 'string', default: new URL('..', import.meta.url).pathname }
  }
})
const clients = Number(values.clients)
const messages = Number(values.messages)
const runs = Number(values.runs)
const withIds = values.ids !== 'no'
const joining = Number(values.joining)
const root = pathToFileURL(`${resolve(values.root)}/`)
const { createRecorder, identify } = await import(new URL('simulator/recording/recorder.js', root).href)
const { createStormTracker } = await import(new URL('simulator/recording/storms.js', root).href)

const storms = values.storm ? createStormTracker(clients) : null
const byTracker = storms !== null && values.wiring === 'tracker'
const windows = values.windows ? (await import(new URL('simulator/recording/window-recorder.js', root).href)).createWindowBook({ windowMs: 10000 }) : null
const gap = storms !== null && !byTracker ? { gap: storms } : {}
const recorder = createRecorder({ clients, messageTimeoutMs: 60000, ...gap, ...(windows ? { windows } : {}) })
for (let i = 0; i < clients; i++) recorder.setConnected(i, true)
// A storm that stays open: every other client dropped and away, so every receipt is in its gap.
const away = storms === null ? 0 : Math.floor(clients / 2)
for (let i = 0; i < away; i++) {
  storms?.dropped(2 * i, 'transport close', clients - i)
  recorder.setConnected(2 * i, false)
}
/**
 * One receipt as the swarm makes it: with `--wiring tracker`, the base's client tracker first
 * identified the message again for the followed gap (its key and send time), then recorded it.
 * @param {number} i
 * @param {unknown[]} args
 */
const receive = byTracker
  ? (/** @type {number} */ i, /** @type {unknown[]} */ args) => {
      if (storms?.following()) {
        const { id, batch, sentAt } = identify(args)
        storms.message(i, `0:broadcast:${batch ?? ''}/${id}`, sentAt)
      }
      recorder.receive(i, 'broadcast', args)
    }
  : (/** @type {number} */ i, /** @type {unknown[]} */ args) => recorder.receive(i, 'broadcast', args)

/** @type {number[]} */
const nsPerReceipt = []
/** @type {number[]} */
const cpuNsPerReceipt = []
/** @type {number[]} */
const closeUsPerMessage = []
// Run 0 warms the JIT up and is not counted.
for (let run = 0; run <= runs; run++) {
  const cpuStart = process.cpuUsage()
  const start = performance.now()
  let rejoin = 0
  for (let m = 0; m < messages; m++) {
    const sentAt = Date.now() - (joining > 0 ? 50 : 0)
    for (let k = 0; k < joining; k++, rejoin = (rejoin + 1) % clients) {
      recorder.setConnected(rejoin, false)
      recorder.setConnected(rejoin, true)
    }
    const args = [withIds ? { id: `${run}.${m}`, round: run, seq: m, sentAt } : { text: `line ${run}.${m}`, at: Date.now() }]
    // With a storm, only the clients that are not away receive.
    for (let i = storms === null ? 0 : 1; i < clients; i += storms === null ? 1 : 2) receive(i, args)
  }
  const elapsedMs = performance.now() - start
  const cpu = process.cpuUsage(cpuStart)
  const closeStart = performance.now()
  recorder.closeAll()
  windows?.flush(true)
  const closeMs = performance.now() - closeStart
  if (run === 0) continue
  closeUsPerMessage.push(closeMs * 1000 / messages)
  const receipts = messages * (clients - away)
  nsPerReceipt.push(elapsedMs * 1e6 / receipts)
  cpuNsPerReceipt.push((cpu.user + cpu.system) * 1000 / receipts)
}

const sorted = [...nsPerReceipt].sort((a, b) => a - b)
const round1 = (/** @type {number} */ v) => Math.round(v * 10) / 10
process.stdout.write(`${JSON.stringify({
  bench: 'recorder',
  clients,
  messages,
  runs,
  ...(storms === null ? {} : { storm: { away, wiring: values.wiring } }),
  ids: withIds,
  ...(joining > 0 ? { joining } : {}),
  windows: windows !== null,
  nsPerReceipt: { median: round1(sorted[Math.floor(sorted.length / 2)]), min: round1(sorted[0]), max: round1(sorted[sorted.length - 1]) },
  cpuNsPerReceipt: round1(cpuNsPerReceipt.reduce((a, b) => a + b, 0) / cpuNsPerReceipt.length),
  closeUsPerMessage: round1([...closeUsPerMessage].sort((a, b) => a - b)[Math.floor(closeUsPerMessage.length / 2)]),
  host: hostFacts()
})}\n`)
