/**
 * Redis for tests: REDIS_URL when set, else a private redis-server from PATH on a loopback
 * port nobody listened on (never the shared one on 6379; see ports.js for how it is taken). Without redis-server the tests skip loudly,
 * except under CI=true, where a missing Redis fails them.
 */
import { spawn } from 'node:child_process'
import { accessSync, constants } from 'node:fs'
import net from 'node:net'
import tls from 'node:tls'
import path from 'node:path'
import { listensOn, onClosedPort } from './ports.js'
import { skipOrFail } from './skip.js'
import { waitFor } from './wait.js'

const START_DEADLINE_MS = 5000
const STOP_DEADLINE_MS = 3000

/** @typedef {{ url: string, port: number, pid: number, stop: () => Promise<void> }} PrivateRedis */

/** @type {Promise<PrivateRedis> | null} */
let shared = null

/** Absolute path of redis-server on PATH, or null. */
export function findRedisServer () {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const file = path.join(dir || '.', 'redis-server')
    try {
      accessSync(file, constants.X_OK)
      return file
    } catch {}
  }
  return null
}

/**
 * True when redis-server is on PATH; else skips the test loudly (throws under CI=true).
 * @param {import('node:test').TestContext} t
 * @param {string} [needs] what is missing, for the message
 */
export function hasRedisServer (t, needs = 'no REDIS_URL and no redis-server on PATH') {
  if (findRedisServer()) return true
  const reason = `REDIS TEST SKIPPED: ${needs} (install redis-server${needs.includes('REDIS_URL') ? ' or set REDIS_URL' : ''})`
  skipOrFail(t, reason)
  return false
}

/**
 * A Redis URL for this test file, or null after skipping the test when there is no Redis.
 * @param {import('node:test').TestContext} t
 * @returns {Promise<string | null>}
 */
export async function getRedisUrl (t) {
  if (process.env.REDIS_URL) return process.env.REDIS_URL
  if (!hasRedisServer(t)) return null
  if (!shared) {
    shared = startPrivateRedis()
    // Stopped (and reaped) once the file's tests are done; the 'exit' kill is the fallback.
    const started = shared
    process.once('beforeExit', () => { started.then((redis) => redis.stop(), () => {}) })
  }
  return (await shared).url
}

/**
 * Starts a private redis-server (no persistence, loopback only); stopped on process exit too.
 * @param {string[]} [extraArgs] more redis-server arguments, e.g. ['--requirepass', 'x']
 * @returns {Promise<PrivateRedis>}
 */
export async function startPrivateRedis (extraArgs = []) {
  return onClosedPort(async (port) => {
    const { pid, stop } = await spawnRedis(['--port', String(port), ...extraArgs], port)
    return { url: `redis://127.0.0.1:${port}`, port, pid, stop }
  })
}

/** The signals that stop a test file, after which its private servers must not linger. */
const STOP_SIGNALS = /** @type {const} */ (['SIGTERM', 'SIGINT', 'SIGHUP'])

/**
 * Spawns redis-server with these arguments (after no persistence and loopback only) and
 * resolves once it answers PING on `port` and is the process listening there (not another
 * that took the port first); rejects with the server's last output if it exits first (e.g.
 * `Bad directive` for an option this build lacks, or `Address already in use`). Stopped on
 * process exit too.
 * @param {string[]} args
 * @param {number} port the port it listens on (its --port, or its --tls-port with `ca`)
 * @param {Buffer} [ca] the certificate authority to trust: PING over TLS
 * @returns {Promise<{ pid: number, stop: () => Promise<void> }>}
 */
export async function spawnRedis (args, port, ca) {
  const bin = findRedisServer()
  if (!bin) throw new Error('redis-server is not on PATH')
  const child = spawn(bin, ['--save', '', '--appendonly', 'no', '--bind', '127.0.0.1', ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  const keep = (/** @type {Buffer} */ data) => { output = (output + data).slice(-2000) }
  for (const stream of [child.stdout, child.stderr]) {
    // A pipe is a handle: unref'd, it does not keep the test process alive.
    const pipe = /** @type {import('node:net').Socket} */ (stream)
    pipe.on('data', keep)
    pipe.unref()
  }
  const exited = new Promise((resolve) => child.once('exit', resolve))
  const closed = new Promise((resolve) => child.once('close', resolve))
  const killOnExit = () => child.kill('SIGKILL')
  process.once('exit', killOnExit)
  // A test file stopped by a signal (a runner's timeout, a kill by pid) runs no 'exit'
  // listener: the server goes with it, then the signal does what it would have done.
  const onSignal = (/** @type {NodeJS.Signals} */ signal) => {
    killOnExit()
    for (const name of STOP_SIGNALS) process.removeListener(name, onSignal)
    if (process.listenerCount(signal) === 0) process.kill(process.pid, signal)
  }
  for (const name of STOP_SIGNALS) process.once(name, onSignal)
  child.unref()
  const stop = async () => {
    process.removeListener('exit', killOnExit)
    for (const name of STOP_SIGNALS) process.removeListener(name, onSignal)
    if (child.exitCode !== null || child.signalCode !== null) return
    child.ref() // keep this process alive until the server has exited
    child.kill('SIGTERM')
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_DEADLINE_MS)
    await exited
    clearTimeout(timer)
  }
  try {
    await waitForProbe(async () => await ping(port, ca) && listensOn(/** @type {number} */ (child.pid), port), child)
  } catch (err) {
    await stop()
    // Its last words (stdout and stderr closed), within a bound.
    let timer
    await Promise.race([closed, new Promise((resolve) => { timer = setTimeout(resolve, 1000) })])
    clearTimeout(timer)
    throw new Error(`${/** @type {Error} */ (err).message}${output ? `; it said: ${output.trim()}` : ''}`)
  }
  return { pid: /** @type {number} */ (child.pid), stop }
}

/**
 * Waits until Redis answers the probe; fails at once if it exits, or after the deadline.
 * @param {() => Promise<boolean>} probe
 * @param {import('node:child_process').ChildProcess} child
 */
async function waitForProbe (probe, child) {
  const gone = () => child.exitCode !== null || child.signalCode !== null
  await waitFor(async () => {
    if (gone()) throw new Error(`redis-server (${child.spawnargs.slice(1).join(' ')}) exited at start`)
    return probe()
  }, { timeoutMs: START_DEADLINE_MS, intervalMs: 50, message: 'redis-server to answer' })
}

/**
 * True when a Redis on this loopback port answers PING (any reply: +PONG, or -NOAUTH when a
 * password is required); over TLS when `ca` (the certificate authority to trust) is given.
 * @param {number} port
 * @param {Buffer} [ca]
 * @returns {Promise<boolean>}
 */
export function ping (port, ca) {
  return new Promise((resolve) => {
    const socket = ca ? tls.connect({ port, host: '127.0.0.1', ca }) : net.connect(port, '127.0.0.1')
    socket.setTimeout(500)
    const done = (/** @type {boolean} */ ok) => { socket.destroy(); resolve(ok) }
    socket.once(ca ? 'secureConnect' : 'connect', () => socket.write('PING\r\n'))
    socket.once('data', (data) => done(/^[+-]/.test(data.toString())))
    socket.once('error', () => done(false))
    socket.once('timeout', () => done(false))
  })
}

/**
 * Every key on a Redis server, sorted (a bounded SCAN: at most 1,000 batches).
 * @param {import('ioredis').Redis} redis
 * @returns {Promise<string[]>}
 */
export async function scanAllKeys (redis) {
  const keys = []
  let cursor = '0'
  for (let i = 0; i < 1000; i++) {
    const [next, batch] = await redis.scan(cursor, 'COUNT', 1000)
    keys.push(...batch)
    cursor = next
    if (cursor === '0') return keys.sort()
  }
  throw new Error('SCAN did not finish within 1,000 batches')
}
