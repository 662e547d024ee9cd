/**
 * A private redis-server that speaks TLS only (`--port 0 --tls-port P`), with a test CA and
 * a server certificate for 127.0.0.1 and localhost made by the openssl CLI in a temporary
 * directory. Without openssl, or with a redis-server built without TLS, the test skips
 * loudly, and fails under CI=true (house rule).
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { onClosedPort } from './ports.js'
import { findRedisServer, spawnRedis } from './redis.js'
import { skipOrFail } from './skip.js'

/** @typedef {{ url: string, port: number, pid: number, caFile: string, ca: Buffer, stop: () => Promise<void> }} TlsRedis */

/**
 * Starts a TLS-only private Redis for this test (stopped and its certificates removed in
 * t.after), or returns null after skipping the test loudly.
 * @param {import('node:test').TestContext} t
 * @param {string[]} [extraArgs] more redis-server arguments, e.g. ['--requirepass', 'x']
 * @returns {Promise<TlsRedis | null>}
 */
export async function startTlsRedis (t, extraArgs = []) {
  if (!findRedisServer()) return skip(t, 'no redis-server on PATH')
  const dir = mkdtempSync(path.join(os.tmpdir(), 'ioswarm-tls-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  try {
    makeCertificates(dir)
  } catch (error) {
    return skip(t, `the openssl CLI could not make test certificates (${/** @type {Error} */ (error).message.split('\n')[0]})`)
  }
  const caFile = path.join(dir, 'ca.crt')
  const ca = readFileSync(caFile)
  let server
  try {
    server = await onClosedPort(async (port) => ({
      port,
      ...await spawnRedis(['--port', '0', '--tls-port', String(port), '--tls-cert-file', path.join(dir, 'server.crt'),
        '--tls-key-file', path.join(dir, 'server.key'), '--tls-ca-cert-file', caFile, '--tls-auth-clients', 'no', ...extraArgs], port, ca)
    }))
  } catch (error) {
    const message = /** @type {Error} */ (error).message
    if (/Bad directive[\s\S]*tls|tls[\s\S]*Bad directive/i.test(message)) return skip(t, 'this redis-server was built without TLS')
    throw error
  }
  t.after(server.stop)
  return { url: `rediss://127.0.0.1:${server.port}`, port: server.port, pid: server.pid, caFile, ca, stop: server.stop }
}

/**
 * @param {import('node:test').TestContext} t
 * @param {string} why
 * @returns {null}
 */
function skip (t, why) {
  const reason = `REDIS TLS TEST SKIPPED: ${why}`
  skipOrFail(t, reason)
  return null
}

/**
 * A CA (ca.crt, ca.key) and a server certificate it signed for 127.0.0.1 and localhost
 * (server.crt, server.key), P-256 keys (fast to make), valid for two days.
 * @param {string} dir
 */
function makeCertificates (dir) {
  const openssl = (/** @type {string[]} */ args) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'], timeout: 10000 })
  const key = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes']
  openssl(['req', '-x509', ...key, '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '2', '-subj', '/CN=ioswarm test CA'])
  openssl(['req', ...key, '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=localhost'])
  writeFileSync(path.join(dir, 'san.cnf'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n')
  openssl([
    'x509', '-req', '-in', 'server.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'server.crt',
    '-days', '2', '-extfile', 'san.cnf'
  ])
}
