/**
 * A socket.io 4 server over https on loopback port 0, with a self-signed certificate for
 * 127.0.0.1 made by the openssl CLI for the test (Debian's openssl; .ci/run installs it).
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import https from 'node:https'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startIoServer } from './io-server.js'
import { skipOrFail } from './skip.js'

/**
 * A self-signed certificate for 127.0.0.1 in a temp dir, or null after skipping (failing under CI=true) without openssl.
 * @param {import('node:test').TestContext} t
 */
export function makeCertificate (t) {
  const dir = mkdtempSync(join(tmpdir(), 'ioswarm-tls-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  try {
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1',
      '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')], { stdio: 'ignore' })
  } catch (error) {
    const reason = `SKIPPED: the openssl CLI could not make a test certificate (${/** @type {Error} */ (error).message})`
    skipOrFail(t, reason)
    return null
  }
  writeFileSync(join(dir, 'not-pem.txt'), 'hello\n')
  return { dir, cert: join(dir, 'cert.pem'), key: join(dir, 'key.pem'), notPem: join(dir, 'not-pem.txt') }
}

/**
 * A socket.io server over HTTPS that records every TLS connection it accepts: its source
 * address, the name it asked for (SNI) and whether it resumed an earlier session.
 * @param {import('node:test').TestContext} t
 * @param {{ cert: string, key: string }} files
 */
export async function startHttpsServer (t, files) {
  const server = https.createServer({ cert: readFileSync(files.cert), key: readFileSync(files.key) })
  /** @type {string[]} source address of each TLS connection, in the order they came */
  const from = []
  /** @type {{ servername: string | false, resumed: boolean }[]} each TLS connection's SNI name (false: none) and resumption */
  const accepted = []
  server.on('secureConnection', (socket) => {
    from.push(String(socket.remoteAddress))
    const { servername } = /** @type {{ servername?: string | false }} */ (socket)
    accepted.push({ servername: servername ?? false, resumed: socket.isSessionReused() })
  })
  const { url } = await startIoServer(t, { pingInterval: 1000, pingTimeout: 2000 }, { server })
  return { url, from, accepted }
}
