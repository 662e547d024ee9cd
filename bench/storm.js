#!/usr/bin/env node
/**
 * Reconnect storm at scale: `ioswarm run` against its reference server (one process) with
 * `--clients` lean WebSocket clients over `--simulators` processes, the server SIGKILLed
 * and restarted on its port mid-run (`--restart-server-at`), twice: with socket.io-client's
 * default reconnection backoff, then with reconnects spread over `--spread`
 * (`--reconnect-spread`). One JSON line per case: time until 99 % and 100 % of the dropped
 * clients were back (the slowest simulator's: each measures its own clients), reconnect
 * attempts, failed handshakes by reason, gap deliveries lost, and the run's own numbers.
 *
 *   nice node bench/storm.js [--clients 10000] [--simulators 2] [--ramp 20s] [--restart-at 35s]
 *                            [--rounds 40x1000] [--spread 10s] [--cases default,spread]
 */
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { hostFacts } from '../lib/host.js'

const BIN = fileURLToPath(new URL('../bin/ioswarm.js', import.meta.url))

const { values } = parseArgs({
  options: {
    clients: { type: 'string', default: '10000' },
    simulators: { type: 'string', default: '2' },
    ramp: { type: 'string', default: '20s' },
    'restart-at': { type: 'string', default: '35s' },
    rounds: { type: 'string', default: '40x1000' },
    spread: { type: 'string', default: '10s' },
    cases: { type: 'string', default: 'default,spread' }
  }
})
const simulators = Number(values.simulators)
const perSimulator = Math.ceil(Number(values.clients) / simulators)

/** @type {import('node:child_process').ChildProcess | null} */
let running = null
process.on('exit', () => { if (running?.pid && running.exitCode === null) process.kill(running.pid, 'SIGTERM') })

/**
 * One `ioswarm run` with the restart; its result.json.
 * @param {string[]} extra
 */
async function runCase (extra) {
  const out = await mkdtemp(path.join(os.tmpdir(), 'ioswarm-bench-storm-'))
  const args = [BIN, 'run', '--distributions', `${simulators}x${perSimulator}`, '--engine', 'lean', '--transport', 'websocket',
    '--ramp', values.ramp, '--rounds', values.rounds, '--restart-server-at', values['restart-at'], '--restart-signal', 'KILL', '--out', out, ...extra]
  const startedAt = Date.now()
  running = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'] })
  let stderr = ''
  running.stderr?.on('data', (chunk) => { stderr = (stderr + chunk).slice(-4000) })
  const [code] = await once(running, 'exit')
  running = null
  if (code !== 0) throw new Error(`ioswarm run exited ${code}: ${stderr}`)
  const result = JSON.parse(await readFile(path.join(out, 'result.json'), 'utf8'))
  await rm(out, { recursive: true, force: true })
  return { result, seconds: Math.round((Date.now() - startedAt) / 1000) }
}

/**
 * The storm as the simulators saw it: each simulator's storm, summed and the slowest.
 * @param {any} result
 */
function stormFigures (result) {
  const d = result.distributions[0]
  const storms = d.clients.storms ?? []
  /** @param {string} key @returns {number | null} the slowest storm's, null when one never came back */
  const worst = (key) => {
    const back = storms.map((/** @type {any} */ s) => s.backMs[key])
    return back.includes(null) ? null : Math.max(...back)
  }
  /** @type {Record<string, number>} */
  const failed = {}
  for (const s of storms) for (const [reason, n] of Object.entries(s.errors)) failed[reason] = (failed[reason] ?? 0) + /** @type {number} */ (n)
  const sum = (/** @type {string} */ key) => storms.reduce((/** @type {number} */ n, /** @type {any} */ s) => n + (s[key] ?? 0), 0)
  return {
    storms: storms.length,
    dropped: sum('dropped'),
    back: sum('back'),
    backMs: { p50: worst('p50'), p90: worst('p90'), p99: worst('p99'), p100: worst('p100') },
    attempts: sum('attempts'),
    failedHandshakes: Object.values(failed).reduce((a, b) => a + b, 0),
    failedByReason: failed,
    lostDeliveries: sum('lost'),
    restarts: result.target.restarts,
    connectedAtEnd: d.clients.connected,
    target: d.clients.target,
    missing: d.rounds.reduce((/** @type {number} */ n, /** @type {any} */ r) => n + r.missing, 0)
  }
}

const cases = { default: [], spread: ['--reconnect-spread', values.spread] }
for (const name of values.cases.split(',')) {
  const extra = cases[/** @type {'default' | 'spread'} */ (name)]
  if (extra === undefined) throw new Error(`--cases: default and/or spread, got ${name}`)
  const load = os.loadavg().map((l) => Math.round(l * 100) / 100)
  const { result, seconds } = await runCase(extra)
  process.stdout.write(`${JSON.stringify({
    bench: 'storm',
    case: name === 'default' ? 'socket.io-client default backoff (1s ±50 %, doubling, max 5s)' : `--reconnect-spread ${values.spread}`,
    clients: simulators * perSimulator,
    simulators,
    restartAt: values['restart-at'],
    ...stormFigures(result),
    seconds,
    loadBefore: load,
    loadAfter: os.loadavg().map((l) => Math.round(l * 100) / 100),
    host: hostFacts()
  })}\n`)
}
