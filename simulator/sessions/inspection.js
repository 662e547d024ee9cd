/**
 * The HTTP side of the first client, for the looks at the server before a swarm (the
 * handshake probe, the first contact): its headers, its cookies (--cookie, then what each
 * answer sets, so that a cookie-sticky balancer keeps the probe's requests on one node), its
 * source address (the first of --source-address, as an address-sticky balancer sees client 0)
 * and the TLS trust every client gets (--ca, --insecure). Whatever later joins a client's
 * identity (a login) joins here, so every inspection sends it. Requests go over node:http
 * (inspection-http.js): a WebSocket-only child never loads undici (a process loads only what it uses).
 */
import { tlsTrust } from '../../lib/input/tls-trust.js'
import { DEFAULT_PATH, EIO_PACKET } from '../../lib/protocol.js'
import { addCookieHeader, cookieHeader, mergeCookies, seedCookies, storeCookies } from './cookie-jar.js'
import { inspectionAgent, sendRequest } from './inspection-http.js'

/** Redirects followed, as fetch follows them (its limit). */
const MAX_REDIRECTS = 20
const REDIRECTS = new Set([301, 302, 303, 307, 308])
/** Headers a redirect to another origin does not carry (as fetch drops them). */
const SAME_ORIGIN_ONLY = new Set(['authorization', 'proxy-authorization', 'cookie'])

/**
 * @typedef {object} InspectionAnswer
 * @property {number} status
 * @property {boolean} ok a 2xx status
 * @property {() => Promise<string>} text the body, UTF-8
 */

/**
 * @typedef {object} InspectionSession
 * @property {(url: URL | string, init?: { method?: string, body?: string, signal?: AbortSignal }) => Promise<InspectionAnswer>} fetch
 *   a request with the client's headers and cookies, redirects followed; the answers' cookies are kept
 * @property {() => import('ws').ClientOptions} webSocketOptions headers (with cookies), source address and TLS options of a `ws` client
 * @property {(url: URL | string, eio: 3 | 4, timeoutMs: number) => Promise<void>} closeEngineSession posts an Engine.IO CLOSE to a
 *   polling session the look opened (url: with its sid), so the server does not count it until its ping timeout; never throws
 * @property {() => Promise<void>} close
 */

/**
 * @param {{ url: string, path?: string, ca?: string[] | null, insecure?: boolean, sourceAddresses?: string[] }} options normalised simulator options
 * @param {import('./identity.js').ClientIdentity} [first] the first client's identity
 * @param {import('./cookie-jar.js').Jar} [login] the first client's cookies from its login (--login)
 * @returns {InspectionSession}
 */
export function inspectionSession (options, first = {}, login = null) {
  const base = new URL(options.url)
  const scope = { secure: base.protocol === 'https:', host: base.hostname.replace(/^\[(.*)\]$/, '$1'), path: options.path ?? DEFAULT_PATH }
  const tls = scope.secure ? tlsTrust(options) : null
  // Client 0's address (login-http.js's addressOf(0)).
  const localAddress = options.sourceAddresses?.[0]
  /** @type {Map<string, import('node:http').Agent>} one per protocol a redirect reaches */
  const agents = new Map()
  const agentOf = (/** @type {'http:' | 'https:'} */ protocol) => {
    let agent = agents.get(protocol)
    if (agent === undefined) agents.set(protocol, agent = inspectionAgent(protocol, { localAddress, tls }))
    return agent
  }
  let jar = first.cookies ? seedCookies(mergeCookies(null, login), first.cookies) : mergeCookies(null, login)
  const headers = () => addCookieHeader({ ...first.headers }, cookieHeader(jar, scope.path))
  return {
    async closeEngineSession (url, eio, timeoutMs) {
      // Engine.IO v3 frames a payload as <length>:<packet>.
      const body = eio === 3 ? `1:${EIO_PACKET.CLOSE}` : EIO_PACKET.CLOSE
      await this.fetch(url, { method: 'POST', body, signal: AbortSignal.timeout(timeoutMs) }).then((r) => r.text(), () => {})
    },
    async fetch (url, { method = 'GET', body, signal } = {}) {
      let target = new URL(url)
      for (let redirects = 0; ; redirects++) {
        if (target.protocol !== 'http:' && target.protocol !== 'https:') {
          throw new Error(`redirected to ${target.href}: the inspection speaks http: and https: only`)
        }
        const sameOrigin = target.origin === base.origin
        const sent = requestHeaders(sameOrigin ? headers() : first.headers, sameOrigin, body)
        const answer = await sendRequest(target, { method, headers: sent, body, agent: agentOf(target.protocol), signal })
        if (sameOrigin) jar = storeCookies(jar, answer.headers['set-cookie'], scope)
        const location = REDIRECTS.has(answer.status) ? answer.headers.location : undefined
        if (location === undefined) return { status: answer.status, ok: answer.status >= 200 && answer.status < 300, text: async () => answer.body }
        if (redirects === MAX_REDIRECTS) throw new Error(`more than ${MAX_REDIRECTS} redirects from ${new URL(url).href}`)
        target = new URL(location, target)
        // As fetch: a 303, or a 301/302 answering a POST, is followed with a GET and no body.
        if (answer.status === 303 || (method === 'POST' && (answer.status === 301 || answer.status === 302))) [method, body] = ['GET', undefined]
      }
    },
    webSocketOptions: () => ({ headers: headers(), ...(localAddress === undefined ? {} : { localAddress }), ...tls }),
    close: async () => { for (const agent of agents.values()) agent.destroy() }
  }
}

/**
 * The headers of one request: fetch's Accept (any type) and a text body's Content-Type unless given;
 * to another origin (a redirect), no credentials.
 * @param {Record<string, string> | undefined} given
 * @param {boolean} sameOrigin
 * @param {string | undefined} body
 * @returns {Record<string, string>}
 */
function requestHeaders (given = {}, sameOrigin, body) {
  /** @type {Record<string, string>} */
  const out = {}
  for (const [name, value] of Object.entries(given)) if (sameOrigin || !SAME_ORIGIN_ONLY.has(name.toLowerCase())) out[name] = value
  const names = new Set(Object.keys(out).map((name) => name.toLowerCase()))
  if (!names.has('accept')) out.accept = '*/*'
  if (body !== undefined && !names.has('content-type')) out['content-type'] = 'text/plain;charset=UTF-8'
  return out
}
