/**
 * Socket.IO servers written by other people, started on loopback for the interop tests:
 * socket.io 2, 3 and 4 (pinned in test/peers/package.json, installed here on first use) and
 * python-socketio 5 on aiohttp (Debian python3-socketio and python3-aiohttp). Each is
 * stopped by its pid when the test ends. Without python-socketio the Python tests skip
 * loudly, except under CI=true, where they fail.
 */
import { execFileSync, spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { waitFor } from './wait.js'

const PEERS = fileURLToPath(new URL('../peers/', import.meta.url))
const PYTHON = '/usr/bin/python3'

/** Installs the pinned peers (npm ci in test/peers) when they are not there yet. */
export function ensureNodePeers () {
  if (existsSync(`${PEERS}node_modules/socket.io-v4`)) return
  execFileSync('npm', ['ci', '--no-audit', '--no-fund', '--prefix', PEERS], { stdio: 'ignore', timeout: 180000 })
}

/**
 * @typedef {object} Peer
 * @property {string} url http://127.0.0.1:PORT
 * @property {number} pid
 * @property {() => Promise<{ connected: number, byNamespace: Record<string, number> }>} count the clients the server counts
 * @property {(count?: number, event?: string) => Promise<void>} emit broadcasts {id, sentAt} on every namespace
 */

/**
 * @param {import('node:test').TestContext} t
 * @param {{ version?: '2' | '3' | '4', parser?: 'json' | 'msgpack', path?: string, namespaces?: string[], allowEIO3?: boolean, pingIntervalMs?: number }} [options]
 * @returns {Promise<Peer>}
 */
export async function startSocketIoPeer (t, { version = '4', parser = 'json', path = '/socket.io', namespaces = ['/'], allowEIO3 = false, pingIntervalMs = 25000 } = {}) {
  ensureNodePeers()
  return startPeer(t, process.execPath, [`${PEERS}node/server.js`], {
    SIO_VERSION: version, PARSER: parser, SIO_PATH: path, NAMESPACES: namespaces.join(','), ALLOW_EIO3: allowEIO3 ? '1' : '', PING_INTERVAL_MS: String(pingIntervalMs)
  })
}

/**
 * python-socketio 5 on aiohttp, or null after skipping the test when it is not installed.
 * @param {import('node:test').TestContext} t
 * @param {{ namespaces?: string[], pingIntervalS?: number }} [options]
 * @returns {Promise<Peer | null>}
 */
export async function startPythonPeer (t, { namespaces = ['/'], pingIntervalS = 25 } = {}) {
  try {
    execFileSync(PYTHON, ['-c', 'import socketio, aiohttp'], { stdio: 'ignore', timeout: 20000 })
  } catch {
    const reason = 'SKIPPED: python-socketio is not installed (apt-get install python3-socketio python3-aiohttp)'
    if (process.env.CI === 'true') throw new Error(reason.replace('SKIPPED', 'FAILED under CI=true'))
    t.skip(reason)
    return null
  }
  return startPeer(t, PYTHON, [`${PEERS}python/server.py`], { NAMESPACES: namespaces.join(','), PING_INTERVAL: String(pingIntervalS), PING_TIMEOUT: String(Math.min(20, pingIntervalS)) })
}

/**
 * @param {import('node:test').TestContext} t
 * @param {string} command
 * @param {string[]} args
 * @param {Record<string, string>} env
 * @returns {Promise<Peer>}
 */
async function startPeer (t, command, args, env) {
  const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
  t.after(() => { if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL') })
  let out = ''
  let err = ''
  child.stdout.on('data', (d) => { out += d })
  child.stderr.on('data', (d) => { err += d })
  const port = await waitFor(() => {
    if (child.exitCode !== null) throw new Error(`peer ${args[0]} exited: ${err}`)
    const line = out.split('\n').find((l) => l.startsWith('{'))
    return line ? /** @type {number} */ (JSON.parse(line).port) : null
  }, { timeoutMs: 20000, message: `peer ${args[0]} listening` })
  const url = `http://127.0.0.1:${port}`
  return {
    url,
    pid: /** @type {number} */ (child.pid),
    count: async () => /** @type {any} */ (await (await fetch(`${url}/count`)).json()),
    emit: async (count = 1, event = 'news') => {
      const res = await fetch(`${url}/emit?count=${count}&event=${encodeURIComponent(event)}`, { method: 'POST' })
      if (!res.ok) throw new Error(`emit: HTTP ${res.status}`)
    }
  }
}
