/**
 * The cookie jar of a socket.io-client 4 client. engine.io-client has a jar of its own
 * (`withCredentials` in Node), but it keeps no path or Secure rule and never reads the
 * WebSocket upgrade's answer. Instead, each Manager gets `cookieJar`: engine.io-client's
 * polling requests take it from their options (transport options override the engine's jar),
 * and the WebSocket transport is a subclass that sends the jar on its upgrade request and
 * stores the cookies of the 101 answer. The rules are those of cookie-jar.js.
 *
 * socket.io-client 2 (engine.io-client 3, for socket.io 2.x servers) has no jar at all: its
 * `extraHeaders` object, which every request and the WebSocket read when they are made, gets
 * a `cookie` getter over the client's jar, and two hooks on engine.io-client 3 store the
 * cookies of a polling answer and of the 101 in the jar the request's headers carry.
 *
 * The jar also reads the response header that names the client's node (--node-from
 * header:NAME) from the same answers: every polling answer (engine.io-client says nothing of
 * which request is the handshake; on a sticky balancer they all name one node) and the 101.
 */
import { NodeXHR, NodeWebSocket } from 'socket.io-client'
import { cookieHeader, seedCookies, storeCookies } from './cookie-jar.js'

/**
 * Where a client's answers name its node: the header (lower case) and who is told.
 * @typedef {{ header: string, tell: (value: string) => void }} NodeWatch
 */

/** The jar of the client an xmlhttprequest-ssl request belongs to (its node header is read at HEADERS_RECEIVED). */
const XHR_JAR = Symbol('ioswarm jar of the request')

export class SioCookieJar {
  /**
   * @param {import('./cookie-jar.js').CookieScope} scope where the client's requests go (one origin, one path)
   * @param {Record<string, string> | undefined} seed --cookie: cookies to start with
   * @param {NodeWatch | null} [node] --node-from header:NAME
   */
  constructor (scope, seed, node = null) {
    this.scope = scope
    /** @type {import('./cookie-jar.js').Jar} */
    this.jar = seed === undefined ? null : seedCookies(null, seed)
    this.node = node
  }

  /** @param {unknown} value the node header of an answer (undefined, null or '' when it has none) */
  noteNode (value) {
    if (this.node !== null && value !== undefined && value !== null && value !== '') this.node.tell(String(value))
  }

  /** The Cookie header of the next request ('' when none applies). */
  header () {
    return cookieHeader(this.jar, this.scope.path)
  }

  /** @param {string | string[] | null | undefined} values Set-Cookie of a response */
  parseCookies (values) {
    this.jar = storeCookies(this.jar, values, this.scope)
  }

  /**
   * engine.io-client's polling request, before it is sent (xmlhttprequest-ssl).
   * @param {Xhr} xhr
   */
  addCookies (xhr) {
    if (this.node !== null) {
      /** @type {any} */ (xhr)[XHR_JAR] = this
      xhr.addEventListener('readystatechange', readNodeHeader)
    }
    const header = this.header()
    if (header === '') return
    xhr.setDisableHeaderCheck(true)
    // A --header 'Cookie: …' is kept (xmlhttprequest-ssl keys headers as written).
    const name = xhr.getRequestHeader('Cookie') !== '' ? 'Cookie' : 'cookie'
    xhr.setRequestHeader(name, joinCookies(xhr.getRequestHeader(name), header))
  }

  /** @param {Headers} headers engine.io-client's fetch transport */
  appendCookies (headers) {
    const header = this.header()
    if (header !== '') headers.append('cookie', header)
  }
}

/**
 * @typedef {{ setDisableHeaderCheck: (on: boolean) => void, setRequestHeader: (name: string, value: string) => void, getRequestHeader: (name: string) => string,
 *   addEventListener: (event: string, listener: (this: Xhr) => void) => void, getResponseHeader: (name: string) => string | null, readyState: number }} Xhr
 */

/**
 * An xmlhttprequest-ssl request's answer has its headers: the node header to the client's jar.
 * @this {Xhr}
 */
function readNodeHeader () {
  if (this.readyState !== 2) return
  const jar = /** @type {SioCookieJar | undefined} */ (/** @type {any} */ (this)[XHR_JAR])
  if (jar?.node) jar.noteNode(this.getResponseHeader(jar.node.header))
}

/** engine.io-client's Node WebSocket transport, with the client's jar on the upgrade. */
class JarWebSocket extends NodeWebSocket {
  /**
   * @param {string} uri
   * @param {string | string[]} protocols
   * @param {Record<string, any>} opts
   */
  createSocket (uri, protocols, opts) {
    const jar = /** @type {SioCookieJar | undefined} */ (/** @type {any} */ (this).opts.cookieJar)
    const header = jar?.header() ?? ''
    if (header !== '') {
      const key = Object.keys(opts.headers ?? {}).find((name) => name.toLowerCase() === 'cookie') ?? 'cookie'
      opts.headers = { ...opts.headers, [key]: joinCookies(opts.headers?.[key], header) }
    }
    const ws = super.createSocket(uri, protocols, opts)
    if (jar !== undefined) ws.once('upgrade', (/** @type {import('node:http').IncomingMessage} */ res) => noteUpgrade(jar, res))
    return ws
  }
}

/**
 * A 101 answer: its cookies into the jar, its node header to the jar's watcher.
 * @param {SioCookieJar} jar
 * @param {import('node:http').IncomingMessage} res
 */
function noteUpgrade (jar, res) {
  jar.parseCookies(res.headers['set-cookie'])
  if (jar.node !== null) jar.noteNode(res.headers[jar.node.header])
}

/**
 * A user's own Cookie header (--header) before the jar's.
 * @param {unknown} own
 * @param {string} jar
 */
function joinCookies (own, jar) {
  return typeof own === 'string' && own !== '' ? `${own}; ${jar}` : jar
}

/** Where a socket.io-client 2 client's headers keep its jar. */
const JAR = Symbol('ioswarm cookie jar')

/**
 * socket.io-client 2's `extraHeaders` for a client: its own headers, and a Cookie header read
 * from its jar at each request ('' while the jar is empty: an empty Cookie header is harmless,
 * and engine.io-client 3 keeps an extraHeaders object only when it has a key at the start).
 * @param {SioCookieJar} jar the client's (--cookie already in it)
 * @param {Record<string, string> | undefined} headers --header
 * @returns {Record<string, string>}
 */
export function jarHeadersV2 (jar, headers) {
  const own = { ...headers }
  const key = Object.keys(own).find((name) => name.toLowerCase() === 'cookie') ?? 'cookie'
  const given = own[key] ?? ''
  Object.defineProperty(own, key, { enumerable: true, get: () => joinCookies(given, jar.header()) })
  Object.defineProperty(own, JAR, { value: jar })
  return own
}

/**
 * Hooks engine.io-client 3 (once) so that answers fill the jar of the request's client.
 * @param {(id: string) => any} requireV2 require() as seen from socket.io-client 2
 */
export function hookClientV2 (requireV2) {
  const { Request } = requireV2('engine.io-client/lib/transports/polling-xhr')
  const WS = requireV2('engine.io-client/lib/transports/websocket')
  if (Request.prototype[JAR]) return
  Request.prototype[JAR] = true
  const onLoad = Request.prototype.onLoad
  Request.prototype.onLoad = function () {
    const jar = this.extraHeaders?.[JAR]
    jar?.parseCookies(this.xhr?.getResponseHeader('set-cookie'))
    if (jar?.node) jar.noteNode(this.xhr?.getResponseHeader(jar.node.header))
    return onLoad.call(this)
  }
  const addEventListeners = WS.prototype.addEventListeners
  WS.prototype.addEventListeners = function () {
    const jar = this.extraHeaders?.[JAR]
    if (jar) this.ws.once?.('upgrade', (/** @type {import('node:http').IncomingMessage} */ res) => noteUpgrade(jar, res))
    return addEventListeners.call(this)
  }
}

/** socket.io-client's `transports` by name: engine.io-client's own, the WebSocket one with the jar. */
export const JAR_TRANSPORTS = Object.freeze({ polling: NodeXHR, websocket: JarWebSocket })
