/**
 * Servers written by other people, started on loopback for the interop tests: socket.io 2, 3
 * and 4 (pinned in test/peers/package.json, installed here on first use), python-socketio 5
 * on aiohttp (Debian python3-socketio and python3-aiohttp); on socket.io 4 and python-socketio,
 * a chat-like app with auth, rooms and relays (the node one can commit delivery faults on
 * purpose); and plain WebSocket servers on the ws library (pinned) and Python websockets
 * (Debian python3-websockets). Each is stopped by its pid when the test ends. Without python-socketio the Python tests skip
 * loudly, except under CI=true, where they fail.
 */
import { execFileSync, spawn } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { waitFor } from './wait.js'
import { skipOrFail } from './skip.js'

const PEERS = fileURLToPath(new URL('../peers/', import.meta.url))
export const PYTHON = '/usr/bin/python3'
export const PEERS_DIR = PEERS

/** Installs the pinned peers (npm ci in test/peers) when they are not there yet. */
export function ensureNodePeers () {
  // npm writes its hidden lockfile when an install is complete: a half-done install (another
  // test file's, run beside this one on a fresh clone) has the packages' folders but not it.
  const installed = () => existsSync(`${PEERS}node_modules/.package-lock.json`)
  const lock = `${PEERS}.install-lock`
  const deadline = Date.now() + INSTALL_TIMEOUT_MS
  while (!installed()) {
    if (Date.now() > deadline) {
      throw new Error(`the pinned peers in ${PEERS} were not installed within ${INSTALL_TIMEOUT_MS / 1000} s (npm ci --prefix test/peers)`)
    }
    try {
      mkdirSync(lock)
    } catch {
      // Another test file installs them: wait for its end (or take over from one that died).
      if (!holderAlive(lock)) rmSync(lock, { recursive: true, force: true })
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 250)
      continue
    }
    try {
      writeFileSync(`${lock}/pid`, String(process.pid))
      if (!installed()) execFileSync('npm', ['ci', '--no-audit', '--no-fund', '--prefix', PEERS], { stdio: 'ignore', timeout: INSTALL_TIMEOUT_MS })
    } finally {
      rmSync(lock, { recursive: true, force: true })
    }
  }
}

/** How long one install of the pinned peers may take. */
const INSTALL_TIMEOUT_MS = 180000

/**
 * Whether the process that holds the install lock still runs (true while it has not yet
 * written its pid: it has only just taken the lock).
 * @param {string} lock
 */
function holderAlive (lock) {
  let pid = 0
  try {
    pid = Number(readFileSync(`${lock}/pid`, 'utf8'))
  } catch {}
  if (!(pid > 0)) return true
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/**
 * @typedef {object} Peer
 * @property {string} url http://127.0.0.1:PORT
 * @property {number} pid
 * @property {() => Promise<PeerCount>} count the clients the server counts
 * @property {(count?: number, event?: string, rooms?: number) => Promise<void>} emit broadcasts {id, sentAt} on every namespace
 *   (with rooms R, message n to room-{(n-1) mod R} only, carrying `room`; the socket.io 2/3/4 peer)
 * @typedef {{ connected: number, byNamespace: Record<string, number>, refused?: number, rooms?: Record<string, Record<string, number>> }} PeerCount
 *   refused: handshakes the server's middleware refused; rooms: per namespace, each room's size (the app peers and the socket.io 2/3/4 peer)
 */

/**
 * @param {import('node:test').TestContext} t
 * @param {{ version?: '2' | '3' | '4', parser?: 'json' | 'msgpack', path?: string, namespaces?: string[], allowEIO3?: boolean, pingIntervalMs?: number, authToken?: string | null, late?: Late, tls?: { cert: string, key: string } }} [options]
 *   tls: the server speaks https with this certificate (its URL is https://; its control requests trust the certificate)
 *   authToken: refuse handshakes without it (query token, Authorization: Bearer, auth.token on 3 and 4)
 * @returns {Promise<Peer>}
 */
export async function startSocketIoPeer (t, {
  version = '4', parser = 'json', path = '/socket.io', namespaces = ['/'], allowEIO3 = false, pingIntervalMs = 25000, authToken = null, late, tls
} = {}) {
  ensureNodePeers()
  return startPeer(t, process.execPath, [`${PEERS}node/server.js`], {
    SIO_VERSION: version,
    PARSER: parser,
    SIO_PATH: path,
    NAMESPACES: namespaces.join(','),
    ALLOW_EIO3: allowEIO3 ? '1' : '',
    PING_INTERVAL_MS: String(pingIntervalMs),
    AUTH_TOKEN: authToken ?? '',
    ...lateEnv(late),
    ...tlsEnv(tls)
  })
}

/**
 * Late joiners on the peer's first namespace (test/peers/node/late.js, test/peers/python/late.py):
 * `first` clients are let in, the others wait until a line and a tick were stamped; both are
 * delivered once `count` late clients have connected and spoken; GET /late names them.
 * @typedef {{ first: number, count: number }} Late
 */

/**
 * @param {Late | undefined} late
 * @returns {Record<string, string>}
 */
const lateEnv = (late) => (late ? { LATE_FIRST: String(late.first), LATE_COUNT: String(late.count) } : {})

/**
 * @param {{ cert: string, key: string } | undefined} tls
 * @returns {Record<string, string>}
 */
const tlsEnv = (tls) => (tls ? { TLS_CERT: tls.cert, TLS_KEY: tls.key } : {})

/**
 * @typedef {object} AppPeerOptions
 * @property {string | null} [authToken] refuse handshakes without it (auth.token, query token, Authorization: Bearer)
 * @property {string[]} [namespaces]
 * @property {number} [pingIntervalMs]
 * @property {Late} [late] late joiners (the python app only)
 * @typedef {Peer & {
 *   broadcast: (body: Record<string, unknown>) => Promise<{ messages: { id: string, event: string, sentAt: number, recipients: number, room?: string }[] }>,
 *   appCount: () => Promise<Required<PeerCount>>,
 *   ledger: () => Promise<any>
 * }} AppPeer
 *   broadcast: POST /broadcast with ioswarm's body (room | rooms, namespace, count, intervalMs, round, seq, batch, size);
 *   ledger: the node peer's record of who got which copies of each room-targeted message (test/peers/node/ledger.js)
 */

/**
 * The chat-like app on the pinned socket.io 4 (test/peers/node/app-server.js).
 * @param {import('node:test').TestContext} t
 * @param {AppPeerOptions & { faults?: { wrongRoomEvery?: number, duplicateEvery?: number }, identityField?: string }} [options]
 *   faults: every Nth room-targeted message to the next room, every Mth twice (broadcasts and relays counted apart)
 * @returns {Promise<AppPeer>}
 */
export async function startAppPeer (t, { authToken = null, namespaces = ['/'], pingIntervalMs = 25000, faults = {}, identityField = 'user' } = {}) {
  ensureNodePeers()
  const peer = await startPeer(t, process.execPath, [`${PEERS}node/app-server.js`], {
    AUTH_TOKEN: authToken ?? '',
    NAMESPACES: namespaces.join(','),
    PING_INTERVAL_MS: String(pingIntervalMs),
    FAULT_WRONG_ROOM_EVERY: String(faults.wrongRoomEvery ?? 0),
    FAULT_DUPLICATE_EVERY: String(faults.duplicateEvery ?? 0),
    IDENTITY_FIELD: identityField
  })
  return withAppApi(peer)
}

/**
 * The chat-like app on python-socketio 5 (test/peers/python/app_server.py), or null after
 * skipping the test when python-socketio is not installed. No faults, no ledger.
 * @param {import('node:test').TestContext} t
 * @param {AppPeerOptions} [options]
 * @returns {Promise<AppPeer | null>}
 */
export async function startPythonAppPeer (t, { authToken = null, namespaces = ['/'], pingIntervalMs = 25000, late } = {}) {
  if (!pythonSocketIo(t)) return null
  const pingIntervalS = pingIntervalMs / 1000
  const peer = await startPeer(t, PYTHON, [`${PEERS}python/app_server.py`], {
    AUTH_TOKEN: authToken ?? '',
    NAMESPACES: namespaces.join(','),
    PING_INTERVAL: String(pingIntervalS),
    PING_TIMEOUT: String(Math.min(20, pingIntervalS)),
    ...lateEnv(late)
  })
  return withAppApi(peer)
}

/**
 * @param {Peer} peer
 * @returns {AppPeer}
 */
function withAppApi (peer) {
  const json = async (/** @type {string} */ path, /** @type {RequestInit} */ init = {}) => {
    const res = await fetch(`${peer.url}${path}`, init)
    const body = /** @type {any} */ (await res.json())
    if (!res.ok) throw new Error(`${path}: HTTP ${res.status}: ${body.error}`)
    return body
  }
  return {
    ...peer,
    broadcast: (body) => json('/broadcast', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
    appCount: () => json('/count'),
    ledger: () => json('/ledger')
  }
}

/**
 * Whether python-socketio (and more modules, when asked) is there; skips the test (fails it under CI=true) when not.
 * @param {import('node:test').TestContext} t
 * @param {string[]} [more] other modules the peer imports, as Debian's python3-* packages name them
 */
export function pythonSocketIo (t, more = []) {
  try {
    execFileSync(PYTHON, ['-c', `import ${['socketio', 'aiohttp', ...more].join(', ')}`], { stdio: 'ignore', timeout: 20000 })
    return true
  } catch {
    const reason = `SKIPPED: python-socketio is not installed (apt-get install ${['socketio', 'aiohttp', ...more].map((m) => `python3-${m}`).join(' ')})`
    skipOrFail(t, reason)
    return false
  }
}

/**
 * python-socketio 5 on aiohttp, or null after skipping the test when it is not installed.
 * @param {import('node:test').TestContext} t
 * @param {{ namespaces?: string[], pingIntervalS?: number }} [options]
 * @returns {Promise<Peer | null>}
 */
export async function startPythonPeer (t, { namespaces = ['/'], pingIntervalS = 25 } = {}) {
  if (!pythonSocketIo(t)) return null
  return startPeer(t, PYTHON, [`${PEERS}python/server.py`], {
    NAMESPACES: namespaces.join(','),
    PING_INTERVAL: String(pingIntervalS),
    PING_TIMEOUT: String(Math.min(20, pingIntervalS))
  })
}

/**
 * @param {import('node:test').TestContext} t
 * @param {string} command
 * @param {string[]} args
 * @param {Record<string, string>} env
 * @returns {Promise<Peer>}
 */
export async function startPeer (t, command, args, env) {
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
  const url = `${env.TLS_CERT ? 'https' : 'http'}://127.0.0.1:${port}`
  const get = env.TLS_CERT ? await trustingFetch(readFileSync(env.TLS_CERT)) : fetch
  return {
    url,
    pid: /** @type {number} */ (child.pid),
    count: async () => /** @type {any} */ (await (await get(`${url}/count`)).json()),
    emit: async (count = 1, event = 'news', rooms = 0) => {
      const res = await get(`${url}/emit?count=${count}&event=${encodeURIComponent(event)}&rooms=${rooms}`, { method: 'POST' })
      if (!res.ok) throw new Error(`emit: HTTP ${res.status}`)
    }
  }
}

/**
 * fetch that trusts `ca` (a peer over https with a test certificate): undici's, with an Agent of its own.
 * @param {Buffer} ca
 * @returns {Promise<typeof fetch>}
 */
async function trustingFetch (ca) {
  const { Agent, fetch: undiciFetch } = await import('undici')
  const dispatcher = new Agent({ connect: { ca } })
  const get = (/** @type {string} */ url, /** @type {any} */ init) => undiciFetch(url, { ...init, dispatcher })
  return /** @type {typeof fetch} */ (/** @type {unknown} */ (get))
}

/**
 * @typedef {object} WebSocketPeer
 * @property {string} url ws://127.0.0.1:PORT/feed (the servers accept any path)
 * @property {number} pid
 * @property {() => Promise<{ connected: number, received: number, refused: number, pongs?: number }>} count what the server counts: its clients, the messages they sent, the clients it refused (and, the ws peer, the pongs it got)
 * @property {(count?: number) => Promise<void>} emit sends `count` messages to every client (resolves once they are written)
 */

/**
 * A plain WebSocket server written by other people: the ws library (pinned ws-v8) or the
 * Python websockets library (Debian python3-websockets; null after skipping the test when it
 * is not installed). Options are the peers' environment (test/peers/node/ws-server.js and
 * test/peers/python/websockets_server.py say what each does).
 * @param {import('node:test').TestContext} t
 * @param {'node' | 'python'} kind
 * @param {{ mode?: 'json' | 'nested' | 'text' | 'binary', fragment?: boolean, token?: string, refuse?: 'close' | 'http', subprotocol?: string, pingIntervalMs?: number }} [options]
 * @returns {Promise<WebSocketPeer | null>}
 */
export async function startWebSocketPeer (t, kind, {
  mode = 'json', fragment = false, token = '', refuse = 'close', subprotocol = '', pingIntervalMs = 0
} = {}) {
  const env = { MODE: mode, FRAGMENT: fragment ? '1' : '', TOKEN: token, REFUSE: refuse, SUBPROTOCOL: subprotocol }
  let peer
  if (kind === 'node') {
    ensureNodePeers()
    peer = await startPeer(t, process.execPath, [`${PEERS}node/ws-server.js`], { ...env, PING_INTERVAL_MS: String(pingIntervalMs) })
  } else {
    try {
      execFileSync(PYTHON, ['-c', 'import websockets'], { stdio: 'ignore', timeout: 20000 })
    } catch {
      const reason = 'SKIPPED: python3-websockets is not installed (apt-get install python3-websockets)'
      skipOrFail(t, reason)
      return null
    }
    peer = await startPeer(t, PYTHON, [`${PEERS}python/websockets_server.py`], {
      ...env,
      ...(pingIntervalMs > 0 ? { PING_INTERVAL: String(pingIntervalMs / 1000) } : {})
    })
  }
  const http = peer.url
  return {
    url: `${http.replace(/^http/, 'ws')}/feed`,
    pid: peer.pid,
    count: async () => /** @type {any} */ (await (await fetch(`${http}/count`)).json()),
    emit: async (count = 1) => {
      const res = await fetch(`${http}/emit?count=${count}`)
      if (!res.ok) throw new Error(`emit: HTTP ${res.status}`)
    }
  }
}
