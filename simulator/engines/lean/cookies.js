/**
 * The lean engine's use of a client's cookie jar (simulator/sessions/cookie-jar.js): the
 * Cookie header of each request and of the WebSocket upgrade, and the Set-Cookie of each
 * response (polling, the 101 of either WebSocket client) into the jar. Also the response
 * header that names the client's node (--node-from header:NAME), read from the handshake's
 * answers only (the first polling GET, the 101), never from every poll.
 */
import { addCookieHeader as withCookie, cookieHeader, storeCookies, storeHeadCookies } from '../../sessions/cookie-jar.js'

/** @typedef {import('./client.js').Client} Client */
/** @typedef {import('./session.js').LeanSession} LeanSession */

/**
 * A request's headers: `base`, the client's own (--header), and its cookies. `base` itself
 * when there is nothing to add (no copy per request).
 * @param {LeanSession} session
 * @param {Client} c
 * @param {Readonly<Record<string, string>>} base
 * @returns {Readonly<Record<string, string>>}
 */
export function requestHeaders (session, c, base) {
  const cookie = c.cookies === null ? '' : cookieHeader(c.cookies, session.config.cookieScope.path)
  if (cookie === '') return c.headers === null ? base : { ...base, ...c.headers }
  return withCookie(c.headers === null ? { ...base } : { ...base, ...c.headers }, cookie)
}

/**
 * The client's headers for its WebSocket upgrade (--header and cookies); null when none.
 * @param {LeanSession} session
 * @param {Client} c
 * @returns {Record<string, string> | null}
 */
export function upgradeHeaders (session, c) {
  const cookie = c.cookies === null ? '' : cookieHeader(c.cookies, session.config.cookieScope.path)
  if (cookie === '') return c.headers
  return withCookie({ ...c.headers }, cookie)
}

/**
 * The Set-Cookie headers of an undici response (raw: name, value, …) into the client's jar.
 * @param {LeanSession} session
 * @param {Client} c
 * @param {Buffer[] | string[] | null} raw
 */
export function storeRawSetCookies (session, c, raw) {
  if (raw === null) return
  for (let k = 0; k + 1 < raw.length; k += 2) {
    const name = raw[k]
    if (name.length === 10 && name.toString().toLowerCase() === 'set-cookie') {
      c.cookies = storeCookies(c.cookies, raw[k + 1].toString(), session.config.cookieScope)
    }
  }
}

/**
 * The Set-Cookie lines of a WebSocket handshake's response head (the built-in client) into the jar.
 * @param {LeanSession} session
 * @param {Client} c
 * @param {string} head status line and header lines, CRLF-separated
 */
export function storeHeadSetCookies (session, c, head) {
  if (session.config.cookieJar) c.cookies = storeHeadCookies(c.cookies, head, session.config.cookieScope)
}

/**
 * The Set-Cookie of a `ws` client's 101 answer into the jar.
 * @param {LeanSession} session
 * @param {Client} c
 * @param {import('node:http').IncomingMessage} res
 */
function storeResponseSetCookies (session, c, res) {
  if (session.config.cookieJar) c.cookies = storeCookies(c.cookies, res.headers['set-cookie'], session.config.cookieScope)
}

/**
 * The node header (--node-from header:NAME) of an undici response (raw: name, value, …), told to the swarm.
 * @param {LeanSession} session
 * @param {Client} c
 * @param {Buffer[] | string[] | null} raw
 */
export function noteRawNodeHeader (session, c, raw) {
  const name = session.config.nodeHeader
  if (raw === null || name === null) return
  for (let k = 0; k + 1 < raw.length; k += 2) {
    if (raw[k].length === name.length && raw[k].toString().toLowerCase() === name) return session.events.node?.(c.i, raw[k + 1].toString())
  }
}

/**
 * The node header of a WebSocket handshake's response head (the built-in client), told to the swarm.
 * @param {LeanSession} session
 * @param {Client} c
 * @param {string} head status line and header lines, CRLF-separated
 */
export function noteHeadNodeHeader (session, c, head) {
  const name = session.config.nodeHeader
  if (name === null) return
  let at = head.indexOf('\r\n')
  while (at !== -1) {
    const end = head.indexOf('\r\n', at + 2)
    const line = head.slice(at + 2, end === -1 ? head.length : end)
    if (line.length > name.length && line.charCodeAt(name.length) === 58 && line.slice(0, name.length).toLowerCase() === name) {
      return session.events.node?.(c.i, line.slice(name.length + 1).trim())
    }
    at = end
  }
}

/**
 * The 101 answer of a `ws` client: cookies into the jar, the node header to the swarm.
 * @param {LeanSession} session
 * @param {Client} c
 * @param {import('node:http').IncomingMessage} res
 */
export function noteUpgradeResponse (session, c, res) {
  storeResponseSetCookies(session, c, res)
  const name = session.config.nodeHeader
  const value = name === null ? undefined : res.headers[name]
  if (value !== undefined) session.events.node?.(c.i, String(value))
}
