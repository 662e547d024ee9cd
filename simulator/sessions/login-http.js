/**
 * The HTTP side of a client's login (--login, a scenario's login hook): requests that carry the
 * client's cookies and keep those of each answer (in a jar of the login's own, handed to the
 * client's engine jar when the login ends), with the TLS trust every client gets (--ca,
 * --insecure) and, with --source-address, from the client's own address (an address-sticky
 * balancer then sends the login to the node its socket will reach). Redirects are not followed:
 * a login's answer is often a 302 whose Set-Cookie is the session.
 */
import { certificateHint, tlsTrust } from '../../lib/input/tls-trust.js'
import { CODES, IoswarmError } from '../../lib/errors.js'
import { onFirstUse } from '../../lib/lazy-require.js'
import { addCookieHeader, cookieHeader, storeCookies } from './cookie-jar.js'

/** undici, loaded by the first login. */
const undici = /** @type {() => typeof import('undici')} */ (onFirstUse('undici'))

/** Most bytes of an answer kept (a login page with its CSRF token, a JSON answer); the rest is dropped. */
const MAX_LOGIN_BODY_BYTES = 1 << 20

/**
 * What a login request got back.
 * @typedef {object} LoginResponse
 * @property {number} status
 * @property {boolean} ok status below 400 (a 302 that sets the session is a success)
 * @property {Record<string, string | string[] | undefined>} headers
 * @property {string} text the body (at most MAX_LOGIN_BODY_BYTES)
 * @property {() => unknown} json the body parsed as JSON (throws when it is not)
 */

/**
 * A request as a login makes it.
 * @typedef {object} LoginRequest
 * @property {string} method
 * @property {string} url absolute, or a path on client i's server
 * @property {Record<string, string>} [headers]
 * @property {string | null} [body]
 */

/** @typedef {{ jar: import('./cookie-jar.js').Jar }} JarHolder a login's own jar, changed as answers come */

/**
 * @param {object} options
 * @param {string[]} options.urls the swarm's destinations (client i's server: urls[i % length]; ws:// and wss:// log in over http:// and https://)
 * @param {{ ca?: string[] | null, insecure?: boolean }} options.trust --ca, --insecure
 * @param {string[]} [options.addresses] --source-address: client i's is addresses[floor(i / urls) % length]
 * @param {number} options.timeoutMs a request's longest wait for its whole answer
 */
export function createLoginHttp ({ urls, trust, addresses = [], timeoutMs }) {
  const tls = tlsTrust(trust)
  // Loaded now, not inside the first login's timing.
  undici()
  /** One keep-alive dispatcher per source address (a login is short: few connections serve many; undici's idle timeout, 4 s, is under Node servers' 5 s, so it never sends on a connection the server is closing). @type {Map<string, import('undici').Agent>} */
  const dispatchers = new Map()

  /** @param {number} i */
  const addressOf = (i) => (addresses.length === 0 ? '' : addresses[Math.floor(i / urls.length) % addresses.length])
  /** @param {string} address */
  const dispatcherOf = (address) => {
    let made = dispatchers.get(address)
    if (made === undefined) {
      made = new (undici().Agent)({ ...(address === '' ? {} : { localAddress: address }), connect: { timeout: timeoutMs, ...tls } })
      dispatchers.set(address, made)
    }
    return made
  }

  /**
   * One request of client i: its cookies sent, the answer's kept in `holder`.
   * @param {number} i
   * @param {JarHolder} holder
   * @param {LoginRequest} request
   * @returns {Promise<LoginResponse>}
   */
  async function send (i, holder, { method, url, headers = {}, body = null }) {
    // --protocol websocket's destinations are ws:// or wss://: its login is HTTP on the same host.
    const server = new URL(urls[i % urls.length].replace(/^ws(s?):/, 'http$1:'))
    const target = new URL(url, server)
    const same = target.origin === server.origin
    const scope = { secure: target.protocol === 'https:', host: server.hostname.replace(/^\[(.*)\]$/, '$1'), path: target.pathname }
    const sent = same ? addCookieHeader({ ...headers }, cookieHeader(holder.jar, target.pathname)) : { ...headers }
    // undici's own timeouts; no signal per request: the swarm's end destroys the dispatchers, which ends what is in flight.
    const options = { method: /** @type {import('undici').Dispatcher.HttpMethod} */ (method), headers: sent, body, dispatcher: dispatcherOf(addressOf(i)) }
    const answer = await undici().request(target, { ...options, maxRedirections: 0, headersTimeout: timeoutMs, bodyTimeout: timeoutMs })
    const setCookie = answer.headers['set-cookie']
    // Another origin's cookies reach the socket only when their Domain covers its host (auth.example.com → Domain=example.com).
    const kept = same ? setCookie : [setCookie ?? []].flat().filter((text) => /;\s*domain\s*=/i.test(text))
    holder.jar = storeCookies(holder.jar, kept, scope)
    const text = await readBounded(answer.body)
    return { status: answer.statusCode, ok: answer.statusCode < 400, headers: answer.headers, text, json: () => JSON.parse(text) }
  }

  return {
    send,
    /** Ends every request in flight (the swarm's end) and the kept connections. */
    async close () {
      await Promise.all([...dispatchers.values()].map((d) => d.destroy().catch(() => {})))
      dispatchers.clear()
    }
  }
}

/**
 * An answer's body as text, at most MAX_LOGIN_BODY_BYTES.
 * @param {import('node:stream').Readable} body
 */
async function readBounded (body) {
  /** @type {Buffer[]} */
  const chunks = []
  let bytes = 0
  for await (const chunk of body) {
    if (bytes + chunk.length > MAX_LOGIN_BODY_BYTES) {
      chunks.push(chunk.subarray(0, MAX_LOGIN_BODY_BYTES - bytes))
      body.destroy()
      break
    }
    chunks.push(chunk)
    bytes += chunk.length
  }
  return Buffer.concat(chunks).toString('utf8')
}

/**
 * The reason a login failed, for counting: `HTTP 500`, `timeout`, an error code (ECONNREFUSED), or the message.
 * @param {unknown} error
 */
export function loginFailure (error) {
  const e = /** @type {{ name?: string, code?: string, message?: string, status?: unknown, cause?: { code?: string } }} */ (error)
  if (typeof e?.status === 'number') return `HTTP ${e.status}`
  const undiciTimeout = e?.code === 'UND_ERR_HEADERS_TIMEOUT' || e?.code === 'UND_ERR_BODY_TIMEOUT' || e?.code === 'UND_ERR_CONNECT_TIMEOUT'
  if (e?.name === 'TimeoutError' || undiciTimeout) return 'timeout'
  return e?.code ?? e?.cause?.code ?? String(e?.message ?? error).slice(0, 200)
}

/**
 * The error that stops a command before its swarm when the first client's login failed on the
 * login server's certificate: every client has the same trust, so none could log in. Null for
 * any other failure (a refusal may be this client's alone; a server may still be starting).
 * @param {unknown} error the first login's error
 * @param {string} request the --login request, as given
 * @returns {IoswarmError | null}
 */
export function loginCertificateStop (error, request) {
  const e = /** @type {{ code?: string, cause?: { code?: string } } | null} */ (error)
  const code = e?.code ?? e?.cause?.code
  const hint = certificateHint(code)
  if (!hint) return null
  return new IoswarmError(CODES.FIRST_CONTACT, `--login ${request} failed: ${code}: ${hint}; no client can log in with this trust, so nothing was started`)
}
