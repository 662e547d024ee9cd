/**
 * The HTTP side of the first client, for the looks at the server before a swarm (the
 * handshake probe, the first contact): its headers, its cookies (--cookie, then what each
 * answer sets, so that a cookie-sticky balancer keeps the probe's requests on one node) and
 * the TLS trust every client gets (--ca, --insecure). Whatever later joins a client's
 * identity (a login) joins here, so every inspection sends it.
 */
import { tlsTrust } from '../../lib/tls.js'
import { onFirstUse } from '../../lib/lazy-require.js'
import { DEFAULT_PATH } from '../../lib/protocol.js'
import { addCookieHeader, cookieHeader, mergeCookies, seedCookies, storeCookies } from './cookie-jar.js'

/** undici, when a swarm first looks at its server: a process that only loads (a simulator before its swarm) does not (issue 26). */
const undici = /** @type {() => typeof import('undici')} */ (onFirstUse('undici'))

/**
 * @typedef {object} InspectionSession
 * @property {(url: URL | string, init?: { method?: string, body?: string, signal?: AbortSignal }) => Promise<Response>} fetch
 *   a request with the client's headers and cookies; the answer's cookies are kept
 * @property {() => import('ws').ClientOptions} webSocketOptions headers (with cookies) and TLS options of a `ws` client
 * @property {() => Promise<void>} close
 */

/**
 * @param {{ url: string, path?: string, ca?: string[] | null, insecure?: boolean }} options normalised simulator options
 * @param {import('../identity.js').ClientIdentity} [first] the first client's identity
 * @param {import('./cookie-jar.js').Jar} [login] the first client's cookies from its login (--login)
 * @returns {InspectionSession}
 */
export function inspectionSession (options, first = {}, login = null) {
  const base = new URL(options.url)
  const scope = { secure: base.protocol === 'https:', host: base.hostname.replace(/^\[(.*)\]$/, '$1'), path: options.path ?? DEFAULT_PATH }
  const tls = scope.secure ? tlsTrust(options) : null
  const dispatcher = tls ? new (undici().Agent)({ connect: { ...tls } }) : undefined
  let jar = first.cookies ? seedCookies(mergeCookies(null, login), first.cookies) : mergeCookies(null, login)
  const headers = () => addCookieHeader({ ...first.headers }, cookieHeader(jar, scope.path))
  return {
    async fetch (url, init = {}) {
      const response = await undici().fetch(url, { ...init, headers: headers(), dispatcher })
      jar = storeCookies(jar, response.headers.getSetCookie(), scope)
      return /** @type {Response} */ (/** @type {unknown} */ (response))
    },
    webSocketOptions: () => ({ headers: headers(), ...tls }),
    close: async () => { await dispatcher?.close() }
  }
}
