/**
 * Connecting to Redis from a URL that may carry a password or an ACL user
 * (redis://user:pass@host:6379/0, rediss:// for TLS). The password never appears in an
 * error message: URLs are redacted, and ioredis errors are not attached as causes because
 * a failed AUTH carries its arguments (`err.command.args`).
 *
 * A server certificate signed by a private CA is trusted the standard Node way:
 * NODE_EXTRA_CA_CERTS=/path/ca.pem (read at process start, inherited by the simulators a
 * runner forks and by pm2 or Kubernetes children), so every command trusts it alike.
 */
import { CODES, IoswarmError, invalidOption } from './errors.js'

const CONNECT_TIMEOUT_MS = 5000

/** Node's TLS errors that mean "no trusted CA signed this certificate". */
const UNTRUSTED_CERT = new Set(['SELF_SIGNED_CERT_IN_CHAIN', 'DEPTH_ZERO_SELF_SIGNED_CERT', 'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE'])

/**
 * The URL with its password replaced by `***` (the user name is kept: it helps).
 * @param {string} url
 */
export function redactUrl (url) {
  try {
    const parsed = new URL(url)
    if (parsed.password) parsed.password = '***'
    return parsed.href
  } catch {
    return '(unparsable Redis URL)'
  }
}

/**
 * Replaces the URL's password, raw and decoded, wherever it appears in a text.
 * @param {string} text
 * @param {string} url
 */
export function redactText (text, url) {
  let password = ''
  try {
    password = new URL(url).password
  } catch {}
  if (!password) return text
  let decoded = password
  try {
    decoded = decodeURIComponent(password)
  } catch {}
  return text.split(password).join('***').split(decoded).join('***')
}

/**
 * A connected, checked (PING) ioredis client; reconnects on its own after the first success.
 * @param {string} url redis:// or rediss://
 * @returns {Promise<import('ioredis').Redis>}
 */
export async function connectRedis (url) {
  let protocol = ''
  try {
    protocol = new URL(url).protocol
  } catch {}
  if (protocol !== 'redis:' && protocol !== 'rediss:') {
    throw invalidOption('Redis URL', `must be a redis:// or rediss:// URL, got ${JSON.stringify(redactUrl(url))}`)
  }
  // Loaded on first use: a process that was not given --redis never pays for ioredis.
  const { Redis } = await import('ioredis')
  let connected = false
  /** @type {Error | undefined} */
  let lastError
  const client = new Redis(url, {
    // ioredis turns TLS on for a URL starting with lowercase "rediss://" only; REDISS://
    // would silently go in clear text.
    tls: protocol === 'rediss:' ? {} : undefined,
    lazyConnect: true,
    connectTimeout: CONNECT_TIMEOUT_MS,
    // Fail fast on the first connection (a wrong URL must not hang), retry once it worked.
    retryStrategy: (times) => connected ? Math.min(times * 200, 2000) : null,
    // While Redis is away, a command fails after 3 reconnection attempts (~1 s), not 20.
    maxRetriesPerRequest: 3,
    // Commands issued in the same tick share one round trip.
    enableAutoPipelining: true
  })
  // Without a listener ioredis logs errors itself; the library never prints.
  client.on('error', (err) => { lastError = err })
  try {
    await client.connect()
    await client.ping()
    connected = true
    return client
  } catch (err) {
    client.disconnect()
    const error = /** @type {Error & { code?: string }} */ (lastError ?? err)
    let hint = ''
    if (UNTRUSTED_CERT.has(error.code ?? '')) hint = ' (a certificate from a private CA? trust it with NODE_EXTRA_CA_CERTS=/path/to/ca.pem)'
    else if (protocol === 'redis:' && error.code === 'ECONNRESET') hint = ' (if this Redis speaks TLS, use rediss://)'
    throw new IoswarmError(CODES.COLLECTOR, `cannot use Redis at ${redactUrl(url)}: ${redactText(error.message, url)}${hint}`)
  }
}
