#!/usr/bin/env node
/**
 * Soak: the reference server and one simulator (both child processes), a broadcast every
 * second for --minutes, and the RSS and CPU of both sampled every --sample-seconds from
 * /proc (Linux). Prints one JSON line per sample and a summary line with the first sample
 * after warm-up and the last one: memory should stay flat once every client is connected.
 *
 *   node bench/soak.js [--clients 1000] [--minutes 60] [--engine lean] [--transport websocket]
 *                      [--sample-seconds 10] [--warmup-seconds 30] [--payload-bytes 100]
 */
import { randomBytes } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'
import { parseArgs } from 'node:util'
import { hostFacts } from '../lib/host.js'
import { startServerProcess } from '../runner/processes.js'
import { forkSimulator, normalizeSimOptions } from '../simulator/index.js'
import { createProcSampler } from '../server/probe/proc-sampler.js'

const { values } = parseArgs({
  options: {
    clients: { type: 'string', default: '1000' },
    minutes: { type: 'string', default: '60' },
    engine: { type: 'string', default: 'lean' },
    transport: { type: 'string', default: 'websocket' },
    'sample-seconds': { type: 'string', default: '10' },
    'warmup-seconds': { type: 'string', default: '30' },
    'payload-bytes': { type: 'string', default: '100' }
  }
})
const clients = Number(values.clients)
const durationMs = Number(values.minutes) * 60000
const sampleMs = Number(values['sample-seconds']) * 1000
const warmupMs = Number(values['warmup-seconds']) * 1000
const payloadBytes = Number(values['payload-bytes'])
if (![clients, durationMs, sampleMs, payloadBytes].every((n) => n > 0) || !(warmupMs >= 0)) throw new Error('numeric options must be positive')

const token = randomBytes(12).toString('hex')
const server = await startServerProcess({ token, pingIntervalMs: 25000 })
const sim = forkSimulator({ ...normalizeSimOptions({ clients, url: server.url, engine: values.engine, transport: values.transport, ramp: '10s' }), id: 'soak' })
try {
  await soak()
} finally {
  await sim.stop(30000)
  await server.stop(5000)
}

async function soak () {
  const samplers = { server: await createProcSampler(server.pid), simulator: await createProcSampler(sim.pid) }
  const startedAt = Date.now()
  /** @type {Record<string, number>[]} */
  const samples = []
  let broadcasts = 0
  let failedBroadcasts = 0
  let nextSampleMs = startedAt + sampleMs
  // Bounded by --minutes: one broadcast a second.
  for (let tick = 1; Date.now() - startedAt < durationMs; tick++) {
    const ok = await fetch(`${server.url}/broadcast`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
      body: JSON.stringify({ size: payloadBytes })
    })
      .then((r) => r.ok, () => false)
    if (ok) broadcasts++
    else failedBroadcasts++
    if (Date.now() >= nextSampleMs) {
      nextSampleMs += sampleMs
      const [srv, simSample] = await Promise.all([samplers.server.sample(), samplers.simulator.sample()])
      if (srv === null || simSample === null) throw new Error(`the ${srv === null ? 'server' : 'simulator'} exited during the soak`)
      const line = {
        elapsedS: Math.round((Date.now() - startedAt) / 1000),
        serverRssBytes: srv.rssBytes,
        simulatorRssBytes: simSample.rssBytes,
        serverCpuPct: srv.cpuPct,
        simulatorCpuPct: simSample.cpuPct,
        serverTcpEstablished: srv.connected ?? -1,
        broadcasts
      }
      samples.push(line)
      process.stdout.write(`${JSON.stringify(line)}\n`)
    }
    await sleep(Math.max(0, startedAt + tick * 1000 - Date.now()))
  }
  await sim.stop(30000)
  const { result } = await sim.outcome
  const start = samples.find((s) => s.elapsedS * 1000 >= warmupMs) ?? samples[0]
  const end = samples.at(-1)
  process.stdout.write(`${JSON.stringify({
    bench: 'soak',
    clients,
    minutes: durationMs / 60000,
    engine: values.engine,
    transport: values.transport,
    broadcasts,
    failedBroadcasts,
    afterWarmup: start,
    end,
    simulator: result && {
      messagesKept: result.messages.length,
      messagesRolledUp: (result.messageRollups ?? []).reduce((sum, g) => sum + g.messages, 0),
      received: [...result.messages, ...(result.messageRollups ?? [])].reduce((sum, m) => sum + m.received, 0),
      missing: [...result.messages, ...(result.messageRollups ?? [])].reduce((sum, m) => sum + m.missing, 0),
      recorder: result.recorder,
      reconnects: result.clients.reconnects,
      disconnects: result.clients.disconnects,
      connectedAtEnd: result.clients.connected
    },
    host: hostFacts()
  })}\n`)
}
