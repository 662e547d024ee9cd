/**
 * The `artillery` and `artillery-ws` kinds of bench/engines.js (a module it imports, not a
 * script of its own): Artillery's socketio engine (socket.io-client behind each virtual user)
 * or its ws engine (the ws library; plain WebSocket) against the same in-process server, measured from outside through /proc as the RSS and CPU of Artillery's
 * whole process tree. Artillery is not a dependency of this package: it is found at
 * --artillery-bin, $ARTILLERY_BIN or ../artillery/node_modules/.bin/artillery beside the
 * checkout (`npm i --prefix ../artillery` run in it), so any checkout finds its own.
 *
 * One run holds two levels: `baseline` users, a pause to sample them, then up to `clients`.
 * Arrivals use phases with rampTo (the issue saw a plain arrivalRate phase keep a core busy),
 * with a little more arrival than needed and maxVusers capping the count:
 * every user connects and then thinks, i.e. stays connected, until this stops Artillery.
 */
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { setTimeout as sleep } from 'node:timers/promises'
import { stringify } from 'yaml'
import { clockTicksPerSecond, parseStat } from '../server/probe/proc-sampler.js'

/** Beside the checkout: `<checkout>/../artillery`, where the install command below puts it. */
export const DEFAULT_ARTILLERY_BIN = fileURLToPath(new URL('../../artillery/node_modules/.bin/artillery', import.meta.url))
export const NO_BROADCAST_NOTE =
  'broadcast delay not measured: Artillery\'s socketio and ws engines cannot time a server push to their users without custom code (a processor function), which this bench does not add'
/** Seconds Artillery waits between the two levels (the baseline is sampled inside it). */
const PAUSE_S = 28
/** GC rounds, 2 s apart, before a level's RSS is taken. */
const SETTLE_ROUNDS = 10
/**
 * Seconds before the first user. Artillery's RSS fell by ~40 MB about 12 s after its start
 * when it was collected every 2 s (from 222 to 179-181 MiB, then flat for 30 s): its
 * start-up garbage is gone before the baseline is measured.
 */
const LEAD_IN_S = 15
const SAMPLE_MS = 250
const TICKS = clockTicksPerSecond()
const GC_PRELOAD = fileURLToPath(new URL('./artillery-gc.cjs', import.meta.url))

/**
 * The Artillery executable to use, or why there is none.
 * @param {string | undefined} flag --artillery-bin
 * @returns {{ bin: string } | { skipped: string }}
 */
export function findArtilleryBin (flag) {
  const bin = flag ?? process.env.ARTILLERY_BIN ?? DEFAULT_ARTILLERY_BIN
  if (existsSync(bin)) return { bin }
  const from = flag ? '--artillery-bin' : process.env.ARTILLERY_BIN ? '$ARTILLERY_BIN' : 'the default path'
  return {
    skipped: `no Artillery at ${bin} (from ${from}): ` +
      'install it outside this package with PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm i --prefix ../artillery artillery@2.0.21 run in the checkout ' +
      '(the newest that runs on Node 20; found there by default), or pass --artillery-bin PATH or set $ARTILLERY_BIN'
  }
}

/**
 * The scenario: `baseline` users, a pause, then up to `clients`, each connecting and staying.
 * @param {{ url: string, transport: string, clients: number, baseline: number, ratePerSec: number, engine?: 'socketio' | 'ws' }} spec
 *   engine: Artillery's socketio engine (default) or its ws engine (plain WebSocket; url ws://…)
 */
export function artilleryScript ({ url, transport, clients, baseline, ratePerSec, engine = 'socketio' }) {
  // Two seconds more than the ramp needs: Artillery splits rates over its worker threads and
  // rounds; maxVusers (users alive at once) makes the count exact.
  /** @param {number} count @param {number} max */
  const ramp = (count, max) => ({ duration: Math.ceil(count / ratePerSec) + 2, arrivalRate: ratePerSec, rampTo: ratePerSec, maxVusers: max })
  const phases = [{ pause: LEAD_IN_S }, ramp(baseline, baseline), { pause: PAUSE_S }, ramp(clients - baseline, clients)]
  const phasesS = phases.reduce((sum, p) => sum + ('pause' in p ? p.pause : p.duration), 0)
  return {
    config: { target: url, phases, ...(engine === 'socketio' ? { socketio: { transports: [transport] } } : {}) },
    // Long enough to outlive the measurement; this bench stops Artillery when it is done.
    scenarios: [{ engine, flow: [{ think: phasesS + 300 }] }]
  }
}

/**
 * One Artillery case. `connected` counts the users on the bench's server (its socket.io
 * namespace, or its plain ws server for engine 'ws').
 * @param {{ connected: () => number, bin: string, url: string, transport: string, clients: number, baseline: number, ratePerSec: number, connectLimitMs: number, engine?: 'socketio' | 'ws' }} spec
 */
export async function runArtilleryCase ({ connected, bin, url, transport, clients, baseline, ratePerSec, connectLimitMs, engine = 'socketio' }) {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'ioswarm-artillery-'))
  const script = path.join(dir, `${engine}.yml`)
  await writeFile(script, stringify(artilleryScript({ url, transport, clients, baseline, ratePerSec, engine })))
  const child = spawn(bin, ['run', '--quiet', script], {
    cwd: dir,
    // The preload lets settle() ask every thread for a full GC (SIGUSR2), as engines.js does for its own clients.
    env: {
      ...process.env,
      ARTILLERY_DISABLE_TELEMETRY: '1',
      NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --expose-gc --require ${JSON.stringify(GC_PRELOAD)}`.trim()
    },
    stdio: ['ignore', 'pipe', 'pipe']
  })
  let output = ''
  const keep = (/** @type {Buffer} */ d) => { output = (output + d).slice(-4000) }
  child.stdout.on('data', keep)
  child.stderr.on('data', keep)
  const { tree, stop: stopTree } = followTree(child)
  try {
    const startedAt = performance.now()
    const until = async (/** @type {() => boolean} */ done, /** @type {number} */ limitMs) => {
      const deadline = performance.now() + limitMs
      while (!done() && performance.now() < deadline && child.exitCode === null) await sleep(SAMPLE_MS)
      return tree()
    }
    let gcAt = performance.now()
    const first = await until(() => {
      if (performance.now() - gcAt > 2000) {
        gcAt = performance.now()
        process.kill(/** @type {number} */ (child.pid), 'SIGUSR2')
      }
      return connected() > 0
    }, connectLimitMs + LEAD_IN_S * 1000)
    const atBaseline = await until(() => connected() >= baseline, connectLimitMs)
    const base = await settle(tree, connected, /** @type {number} */ (child.pid))
    const bStart = await until(() => connected() > base.connected, (PAUSE_S + 10) * 1000)
    const bStartCount = connected()
    const full = await stalledOrDone(connected, clients, connectLimitMs, tree)
    const fullMs = performance.now() - startedAt
    const atN = await settle(tree, connected, /** @type {number} */ (child.pid))
    const held = await holdCpu(tree, 5000)
    const perClient = (atN.rssBytes - base.rssBytes) / Math.max(1, atN.connected - base.connected)
    const cpuMs = (/** @type {{ cpuTicks: number }} */ a, /** @type {{ cpuTicks: number }} */ b) => (b.cpuTicks - a.cpuTicks) * 1000 / TICKS
    return {
      engine: engine === 'ws' ? 'artillery-ws' : 'artillery',
      transport,
      clients,
      connected: atN.connected,
      baselineClients: base.connected,
      rssBaselineBytes: base.rssBytes,
      rssAtClientsBytes: atN.rssBytes,
      rssSamplesMiB: { baseline: base.samplesMiB, clients: atN.samplesMiB },
      rssPerClientBytes: Math.round(perClient),
      // As engines.js measures its own clients: RSS read right after the first GC round.
      rssPerClientFirstGcBytes: Math.round((atN.firstRssBytes - base.firstRssBytes) / Math.max(1, atN.connected - base.connected)),
      rssFixedBytes: Math.round(base.rssBytes - base.connected * perClient),
      startupCpuMs: Math.round(first.cpuTicks * 1000 / TICKS),
      connectCpuUsPerClient: Math.round(cpuMs(bStart, full.snapshot) * 1000 / Math.max(1, full.connected - bStartCount)),
      baselineConnectCpuUsPerClient: Math.round(cpuMs(first, atBaseline) * 1000 / Math.max(1, baseline)),
      rampPerSec: ratePerSec,
      connectsPerSec: Math.round((full.connected - bStartCount) / Math.max(0.001, (full.atMs - bStart.atMs) / 1000)),
      heldCpuPct: held.cpuPct,
      processes: atN.procs,
      threads: atN.threads,
      timeToAllMs: Math.round(fullMs),
      rssNote: 'RSS of Artillery\'s process tree after two full GCs in each of its threads (a preload, artillery-gc.cjs), least of the last three of ten rounds 2 s apart; the baseline and N levels are held in one run',
      cpuUsPerFrame: null,
      drainMs: null,
      broadcastNote: NO_BROADCAST_NOTE,
      ...(child.exitCode !== null ? { error: `artillery exited early (code ${child.exitCode}): ${output.trim().split('\n').slice(-5).join(' | ')}` } : {})
    }
  } finally {
    await stopTree()
    await rm(dir, { recursive: true, force: true })
  }
}

/**
 * Waits until every user is in, or the count has not moved for 10 s.
 * @param {() => number} connected
 * @param {number} clients
 * @param {number} limitMs
 * @param {() => Promise<Tree>} tree
 */
async function stalledOrDone (connected, clients, limitMs, tree) {
  const deadline = performance.now() + limitMs
  let last = -1
  let movedAt = performance.now()
  while (connected() < clients && performance.now() < deadline && performance.now() - movedAt < 10000) {
    if (connected() !== last) [last, movedAt] = [connected(), performance.now()]
    await sleep(SAMPLE_MS)
  }
  return { snapshot: await tree(), connected: connected(), atMs: performance.now() }
}

/**
 * RSS once a level has settled: from 2 s after it was reached, ten rounds of two full GCs in
 * every thread of Artillery (artillery-gc.cjs), 2 s apart, RSS read after each; the level's
 * RSS is the least of the last three. A short settle is not enough: after the GCs, Artillery's
 * RSS stayed flat for 5 to 11 s, then fell by 3 to 27 MB (V8 and malloc giving pages back).
 * @param {() => Promise<Tree>} tree
 * @param {() => number} connected
 * @param {number} pid Artillery's main process
 */
async function settle (tree, connected, pid) {
  await sleep(2000)
  const samples = []
  for (let round = 0; round < SETTLE_ROUNDS; round++) {
    process.kill(pid, 'SIGUSR2')
    await sleep(2000)
    samples.push((await tree()).rssBytes)
  }
  const last = await tree()
  return {
    rssBytes: Math.min(...samples.slice(-3)),
    firstRssBytes: samples[0],
    samplesMiB: samples.map((b) => Math.round(b / 104857.6) / 10),
    connected: connected(),
    procs: last.procs.length,
    threads: last.threads
  }
}

/**
 * CPU of the tree while it only holds its users, as % of one core.
 * @param {() => Promise<Tree>} tree
 * @param {number} ms
 */
async function holdCpu (tree, ms) {
  const a = await tree()
  await sleep(ms)
  const b = await tree()
  return { cpuPct: Math.round((b.cpuTicks - a.cpuTicks) / TICKS / ((b.atMs - a.atMs) / 1000) * 1000) / 10 }
}

/**
 * @typedef {{ procs: { pid: number, ppid: number, startTicks: string, rssBytes: number }[], rssBytes: number, cpuTicks: number, threads: number, atMs: number }} Tree
 */

/**
 * The process `root` and all its descendants, from /proc: summed RSS, CPU ticks and threads.
 * @param {number} root
 * @returns {Promise<Tree>}
 */
export async function readTree (root) {
  /** @type {Map<number, number[]>} */
  const children = new Map()
  /** @type {Map<number, ReturnType<typeof parseStat>>} */
  const stats = new Map()
  /** @type {Map<number, number>} */
  const ppidOf = new Map()
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue
    const text = await readFile(`/proc/${name}/stat`, 'utf8').catch(() => null)
    if (text === null) continue
    const ppid = Number(text.slice(text.lastIndexOf(')') + 2).split(' ')[1])
    stats.set(Number(name), parseStat(text))
    ppidOf.set(Number(name), ppid)
    children.set(ppid, [...(children.get(ppid) ?? []), Number(name)])
  }
  const tree = { procs: /** @type {Tree['procs']} */ ([]), rssBytes: 0, cpuTicks: 0, threads: 0, atMs: performance.now() }
  for (let queue = [root]; queue.length > 0;) {
    const pid = /** @type {number} */ (queue.pop())
    const stat = stats.get(pid)
    if (!stat) continue
    const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '')
    const rssBytes = Number(/^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1] ?? 0) * 1024
    tree.rssBytes += rssBytes
    tree.cpuTicks += stat.utimeTicks + stat.stimeTicks
    tree.threads += stat.threads
    tree.procs.push({ pid, ppid: ppidOf.get(pid) ?? 0, startTicks: stat.startTicks, rssBytes })
    queue.push(...(children.get(pid) ?? []))
  }
  return tree
}

/**
 * Artillery's process tree, read on demand, and every pid seen in it (with its start time: pids
 * get reused) so that `stop` kills what is left of it, the workers it forked included.
 * @param {import('node:child_process').ChildProcess} child
 */
export function followTree (child) {
  /** @type {Map<number, string>} */
  const seen = new Map()
  return {
    tree: async () => {
      const t = await readTree(/** @type {number} */ (child.pid))
      for (const p of t.procs) seen.set(p.pid, p.startTicks)
      return t
    },
    stop: () => stop(child, seen)
  }
}

/**
 * SIGTERM to Artillery, SIGKILL after 10 s; then SIGKILL to any process of its tree still
 * there (same pid and start time), one by one.
 * @param {import('node:child_process').ChildProcess} child
 * @param {Map<number, string>} seen
 */
export async function stop (child, seen) {
  if (child.exitCode === null && child.signalCode === null) {
    child.kill('SIGTERM')
    const exited = await Promise.race([new Promise((resolve) => child.once('exit', () => resolve(true))), sleep(10000, false)])
    if (!exited) child.kill('SIGKILL')
  }
  for (const [pid, startTicks] of seen) {
    const text = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => null)
    if (text === null || parseStat(text).startTicks !== startTicks || pid === process.pid) continue
    try {
      process.kill(pid, 'SIGKILL')
    } catch {} // gone since the read: what we wanted
  }
}
