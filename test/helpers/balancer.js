/**
 * A deployment "behind the load balancer", on loopback, for the load-balancer tests: several
 * nodes of a small chat app sharing the test's private Redis (socket.io 4 with
 * @socket.io/redis-adapter: test/peers/node/chat-node.js; python-socketio with
 * AsyncRedisManager: test/peers/python/chat_node.py), and in front of them Debian's HAProxy
 * (sticky by its inserted cookie SERVERID) or nginx (sticky by client address:
 * `hash $remote_addr consistent`), both proxying WebSocket upgrades. Every process is stopped
 * by its pid when the test ends. Without haproxy, nginx or the Python modules the test skips
 * with a loud reason, except under CI=true, where it fails (.ci/run installs them).
 */
import { spawn } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { accessSync, constants, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { listensOn, onClosedPort } from './ports.js'
import { PEERS_DIR, PYTHON, pythonSocketIo, startPeer } from './peers.js'
import { waitFor } from './wait.js'
import { skipOrFail } from './skip.js'

export const HAPROXY = '/usr/sbin/haproxy'
export const NGINX = '/usr/sbin/nginx'

/**
 * @typedef {object} ChatNode
 * @property {string} name what the node says it is (event `node`, header X-Node, cookie node)
 * @property {string} url http://127.0.0.1:PORT, the node itself (not through the balancer)
 * @property {number} port
 * @property {number} pid
 * @property {() => Promise<number>} connected the sockets the node holds now (its GET /count)
 * @property {() => void} kill SIGKILL: the node dies as a crashed process does
 * @typedef {{ url: string, pid: number }} Balancer
 */

/**
 * True when `file` is an executable (or, with `mode` R_OK, a readable file such as an nginx
 * module); else skips the test loudly (fails it under CI=true).
 * @param {import('node:test').TestContext} t
 * @param {string} file
 * @param {string} aptPackage
 * @param {number} [mode]
 */
export function hasTool (t, file, aptPackage, mode = constants.X_OK) {
  try {
    accessSync(file, mode)
    return true
  } catch {
    const reason = `SKIPPED: ${file} is not installed (apt-get install ${aptPackage})`
    skipOrFail(t, reason)
    return false
  }
}

/**
 * N nodes of the chat app sharing Redis (their own channel: nodes of other tests never hear
 * them), or null after skipping the test when python-socketio or python3-redis is missing.
 * @param {import('node:test').TestContext} t
 * @param {{ kind: 'node' | 'python', count: number, redisUrl: string, prefix?: string, pingIntervalMs?: number }} options
 * @returns {Promise<ChatNode[] | null>}
 */
export async function startChatNodes (t, { kind, count, redisUrl, prefix = kind === 'node' ? 'sio' : 'py', pingIntervalMs = 25000 }) {
  if (kind === 'python' && !pythonSocketIo(t, ['redis'])) return null
  const channel = `chat-${randomUUID().slice(0, 8)}`
  const names = Array.from({ length: count }, (_, k) => `${prefix}-${k + 1}`)
  return Promise.all(names.map(async (name) => {
    const env = {
      NODE_NAME: name,
      REDIS_URL: redisUrl,
      CHANNEL: channel,
      PING_INTERVAL_MS: String(pingIntervalMs),
      PING_INTERVAL: String(pingIntervalMs / 1000),
      PING_TIMEOUT: String(Math.min(20, pingIntervalMs / 1000))
    }
    const peer = kind === 'node'
      ? await startPeer(t, process.execPath, [`${PEERS_DIR}node/chat-node.js`], env)
      : await startPeer(t, PYTHON, [`${PEERS_DIR}python/chat_node.py`], env)
    const port = Number(new URL(peer.url).port)
    return {
      name,
      url: peer.url,
      port,
      pid: peer.pid,
      connected: async () => /** @type {{ connected: number }} */ (await (await fetch(`${peer.url}/count`)).json()).connected,
      kill: () => process.kill(peer.pid, 'SIGKILL')
    }
  }))
}

/**
 * HAProxy in front of the nodes: round robin for a client without the cookie, then sticky by
 * the cookie it inserts (`SERVERID`, the server's name = the node's name), which it also names
 * in a header of every answer (`X-Served-By`); a dead node is taken out by its health check
 * and its clients redispatched.
 * @param {import('node:test').TestContext} t
 * @param {{ name: string, port: number }[]} nodes chat nodes, or any servers on loopback ports
 * @returns {Promise<Balancer | null>} null after skipping the test when haproxy is missing
 */
export async function startHaproxy (t, nodes) {
  if (!hasTool(t, HAPROXY, 'haproxy')) return null
  const dir = tempDir(t, 'haproxy')
  // haproxy must be told its port: one nobody listened on, another if it was taken meanwhile (ports.js).
  return onClosedPort(async (port) => {
    const config = [
      'global',
      '  maxconn 4096',
      'defaults',
      '  mode http',
      '  option redispatch',
      '  retries 3',
      '  timeout connect 2s',
      '  timeout client 60s',
      '  timeout server 60s',
      '  timeout tunnel 1h',
      'frontend chat',
      `  bind 127.0.0.1:${port}`,
      '  default_backend nodes',
      'backend nodes',
      '  balance roundrobin',
      '  cookie SERVERID insert indirect nocache',
      // The server's name on every answer (the 101 of a WebSocket too): --node-from header:X-Served-By.
      '  http-response set-header X-Served-By %s',
      ...nodes.map((n) => `  server ${n.name} 127.0.0.1:${n.port} cookie ${n.name} check inter 500ms fall 2 rise 2`)
    ].join('\n') + '\n'
    writeFileSync(path.join(dir, 'haproxy.cfg'), config)
    const pid = await startDaemon(t, HAPROXY, ['-db', '-f', path.join(dir, 'haproxy.cfg')], port)
    return { url: `http://127.0.0.1:${port}`, pid }
  })
}

/**
 * nginx in front of the nodes, sticky by client address (`hash $remote_addr consistent`), as
 * a non-daemon master with its own prefix, pid file and error log in a temporary directory.
 * @param {import('node:test').TestContext} t
 * @param {ChatNode[]} nodes
 * @returns {Promise<Balancer | null>} null after skipping the test when nginx is missing
 */
export async function startNginx (t, nodes) {
  if (!hasTool(t, NGINX, 'nginx-light')) return null
  const dir = tempDir(t, 'nginx')
  // nginx must be told its port: one nobody listened on, another if it was taken meanwhile (ports.js).
  return onClosedPort(async (port) => {
    const config = `worker_processes 1;
events { worker_connections 4096; }
http {
${nginxHttpPrelude(dir)}
  map $http_upgrade $connection_upgrade { default upgrade; '' close; }
  upstream nodes {
    hash $remote_addr consistent;
${nodes.map((n) => `    server 127.0.0.1:${n.port} max_fails=1 fail_timeout=5s;`).join('\n')}
  }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://nodes;
      proxy_http_version 1.1;
      proxy_set_header Upgrade $http_upgrade;
      proxy_set_header Connection $connection_upgrade;
      proxy_connect_timeout 2s;
      proxy_read_timeout 1h;
    }
  }
}
`
    const pid = await runNginx(t, dir, config, port)
    return { url: `http://127.0.0.1:${port}`, pid }
  })
}

/**
 * The start of an nginx `http` block of a test: no access log, every temporary path inside
 * the test's own directory (the package's defaults are not writable by every user).
 * @param {string} dir
 */
export function nginxHttpPrelude (dir) {
  return [
    'access_log off;',
    ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((kind) => `${kind}_temp_path ${dir}/${kind === 'client_body' ? 'body' : kind};`)
  ]
    .map((line) => `  ${line}`).join('\n')
}

/**
 * Writes `config` into `dir` and runs nginx on it as a non-daemon master with its own prefix,
 * pid file and error log there, stopped when the test ends.
 * @param {import('node:test').TestContext} t
 * @param {string} dir
 * @param {string} config
 * @param {number} port where it listens, to wait for
 * @returns {Promise<number>} its pid
 */
export async function runNginx (t, dir, config, port) {
  writeFileSync(path.join(dir, 'nginx.conf'), config)
  return startDaemon(t, NGINX, ['-p', dir, '-c', path.join(dir, 'nginx.conf'), '-g', `daemon off; pid ${dir}/nginx.pid; error_log ${dir}/error.log;`], port)
}

/**
 * A temporary directory, removed when the test ends.
 * @param {import('node:test').TestContext} t
 * @param {string} name
 */
export function tempDir (t, name) {
  const dir = mkdtempSync(path.join(os.tmpdir(), `ioswarm-${name}-`))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

/**
 * Starts a balancer in the foreground and resolves with its pid once it accepts on `port`.
 * Stopped when the test ends by SIGTERM to that pid (nginx's master then stops its worker),
 * SIGKILL if it has not exited within 3 s.
 * @param {import('node:test').TestContext} t
 * @param {string} command
 * @param {string[]} args
 * @param {number} port
 */
export async function startDaemon (t, command, args, port) {
  const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'] })
  let err = ''
  child.stderr.on('data', (d) => { err = (err + d).slice(-2000) })
  const exited = new Promise((resolve) => child.once('exit', resolve))
  t.after(async () => {
    if (child.exitCode !== null || child.signalCode !== null) return
    child.kill('SIGTERM')
    const timer = setTimeout(() => child.kill('SIGKILL'), 3000)
    await exited
    clearTimeout(timer)
  })
  // Its own words when it exits (an "address already in use" among them); ready once it is the process listening there.
  await waitFor(async () => {
    if (child.exitCode !== null) throw new Error(`${command} exited (${child.exitCode}): ${err}`)
    return await accepts(port) && listensOn(/** @type {number} */ (child.pid), port)
  }, { timeoutMs: 10000, message: `${path.basename(command)} listening on ${port}` })
  return /** @type {number} */ (child.pid)
}

/**
 * @param {number} port
 * @returns {Promise<boolean>} whether a TCP connect to 127.0.0.1:port succeeds
 */
function accepts (port) {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1')
    socket.once('connect', () => { socket.destroy(); resolve(true) })
    socket.once('error', () => resolve(false))
  })
}
