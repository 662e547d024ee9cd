/**
 * A socket.io 4 server over https on loopback port 0, with a self-signed certificate for
 * 127.0.0.1 made by the openssl CLI for the test (Debian's openssl; .ci/run installs it).
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import https from 'node:https'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Server } from 'socket.io'

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
    if (process.env.CI === 'true') throw new Error(reason.replace('SKIPPED', 'FAILED under CI=true'))
    t.skip(reason)
    return null
  }
  writeFileSync(join(dir, 'not-pem.txt'), 'hello\n')
  return { dir, cert: join(dir, 'cert.pem'), key: join(dir, 'key.pem'), notPem: join(dir, 'not-pem.txt') }
}

/**
 * @param {import('node:test').TestContext} t
 * @param {{ cert: string, key: string }} files
 */
export async function startHttpsServer (t, files) {
  const server = https.createServer({ cert: readFileSync(files.cert), key: readFileSync(files.key) })
  const io = new Server(server, { pingInterval: 1000, pingTimeout: 2000 })
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)))
  t.after(() => io.close())
  const { port } = /** @type {import('node:net').AddressInfo} */ (server.address())
  return `https://127.0.0.1:${port}`
}
