/**
 * A cookie-sticky HAProxy on loopback in front of a test's own servers: the way Socket.IO's
 * docs ("Using multiple nodes") deploy several nodes. Debian's haproxy (`.ci/run` installs
 * it); a test is skipped without it (failed under CI=true). The config is written to a temp
 * dir; haproxy runs in the foreground and is stopped by pid after the test.
 */
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import net from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { freePort } from './ports.js'
import { waitFor } from './wait.js'

export const HAPROXY = process.env.HAPROXY ?? '/usr/sbin/haproxy'

/**
 * Whether haproxy is installed; skips the test (fails it under CI=true) when not.
 * @param {import('node:test').TestContext} t
 */
export function hasHaproxy (t) {
  if (existsSync(HAPROXY)) return true
  const reason = `SKIPPED: no haproxy at ${HAPROXY} (apt-get install haproxy)`
  if (process.env.CI === 'true') throw new Error(reason.replace('SKIPPED', 'FAILED under CI=true'))
  t.skip(reason)
  return false
}

/**
 * The config: round-robin over the backends, sticky by an inserted SERVERID cookie.
 * @param {number} port
 * @param {{ name: string, url: string }[]} backends
 */
export function haproxyConfig (port, backends) {
  const servers = backends.map(({ name, url }) => `  server ${name} ${new URL(url).host} cookie ${name}`)
  return [
    'global',
    '  maxconn 4096',
    'defaults',
    '  mode http',
    '  timeout connect 5s',
    '  timeout client 60s',
    '  timeout server 60s',
    '  timeout tunnel 60s',
    'frontend fe',
    `  bind 127.0.0.1:${port}`,
    '  default_backend nodes',
    'backend nodes',
    '  balance roundrobin',
    '  cookie SERVERID insert indirect nocache',
    ...servers,
    ''
  ].join('\n')
}

/**
 * Starts haproxy in front of `backends`; resolves once it accepts connections.
 * @param {import('node:test').TestContext} t
 * @param {{ name: string, url: string }[]} backends
 * @returns {Promise<{ url: string, pid: number }>}
 */
export async function startHaproxy (t, backends) {
  const dir = mkdtempSync(join(tmpdir(), 'ioswarm-haproxy-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  const port = await freePort()
  const file = join(dir, 'haproxy.cfg')
  writeFileSync(file, haproxyConfig(port, backends))
  const child = spawn(HAPROXY, ['-db', '-f', file], { stdio: ['ignore', 'ignore', 'pipe'] })
  let err = ''
  child.stderr.setEncoding('utf8').on('data', (d) => { err = (err + d).slice(-4000) })
  t.after(async () => {
    if (child.exitCode !== null || child.signalCode !== null) return
    const exited = new Promise((resolve) => child.once('exit', resolve))
    process.kill(/** @type {number} */ (child.pid), 'SIGTERM')
    await exited
  })
  await waitFor(async () => {
    if (child.exitCode !== null) throw new Error(`haproxy exited (${child.exitCode}): ${err}`)
    return accepts(port)
  }, { timeoutMs: 10000, message: () => `haproxy listening on ${port} (${err})` })
  return { url: `http://127.0.0.1:${port}`, pid: /** @type {number} */ (child.pid) }
}

/** @param {number} port */
function accepts (port) {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1')
    socket.once('connect', () => { socket.destroy(); resolve(true) })
    socket.once('error', () => resolve(false))
  })
}
