/**
 * A client's cookie jar (RFC 6265), kept small because every client of a swarm has one: it
 * stores only what the client was given (by a response's Set-Cookie, or --cookie), as a short
 * array of records (null while empty), and knows nothing of other hosts. A client talks to one
 * origin over one scheme for its whole life, so a record keeps no domain (a Domain attribute
 * that does not match the host drops the cookie) and no Secure flag (a Secure cookie is stored
 * only when it came over TLS, as browsers do since RFC 6265bis, and then every request is over TLS).
 *
 * Rules: a later cookie of the same name and path replaces the earlier one; Max-Age (over
 * Expires) and Expires end a cookie, a past expiry deletes it; Path scopes it (default: the
 * directory of the request's path); expired cookies are dropped when the jar is read.
 */

/** Cookies one client keeps at most (browsers keep ~50 per domain); more are dropped, oldest first. */
export const MAX_COOKIES = 50
/** Longest name=value kept (browsers: 4,096 bytes per cookie). */
const MAX_COOKIE_BYTES = 4096

/** One stored cookie. Fields hold what a request needs: the `name=value` text as sent, and its scope. */
export class Cookie {
  /**
   * @param {string} pair `name=value`, as sent in a Cookie header
   * @param {number} nameLength length of the name within pair
   * @param {string} path
   * @param {number} expiresMs wall-clock expiry; 0 = a session cookie (kept for the client's life)
   */
  constructor (pair, nameLength, path, expiresMs) {
    this.pair = pair
    this.nameLength = nameLength
    this.path = path
    this.expiresMs = expiresMs
  }
}

/** @typedef {Cookie[] | null} Jar a client's cookies; null while it has none */

/**
 * Where a response (or a request) went: the jar needs its scheme, host and path.
 * @typedef {object} CookieScope
 * @property {boolean} secure over TLS
 * @property {string} host the request's host name (no port)
 * @property {string} path the request's path (no query)
 */

/**
 * Stores the cookies of a response's Set-Cookie header(s) in `jar`.
 * @param {Jar} jar
 * @param {string | string[] | null | undefined} setCookie one header value, or several
 * @param {CookieScope} scope
 * @param {number} [nowMs]
 * @returns {Jar} the jar (a new array when it was null)
 */
export function storeCookies (jar, setCookie, scope, nowMs = Date.now()) {
  if (setCookie === null || setCookie === undefined) return jar
  if (typeof setCookie === 'string') return storeOne(jar, setCookie, scope, nowMs)
  for (const text of setCookie) jar = storeOne(jar, text, scope, nowMs)
  return jar
}

/**
 * @param {Jar} jar
 * @param {string} text
 * @param {CookieScope} scope
 * @param {number} nowMs
 * @returns {Jar}
 */
function storeOne (jar, text, scope, nowMs) {
  const cookie = parseSetCookie(text, scope, nowMs)
  if (cookie === null) return jar
  return put(jar, cookie, nowMs)
}

/**
 * Adds a cookie, replacing one of the same name and path; an expired one only removes.
 * @param {Jar} jar
 * @param {Cookie} cookie
 * @param {number} nowMs
 * @returns {Jar}
 */
function put (jar, cookie, nowMs) {
  if (jar !== null) {
    for (let k = 0; k < jar.length; k++) {
      const old = jar[k]
      if (old.nameLength !== cookie.nameLength || old.path !== cookie.path || !old.pair.startsWith(cookie.pair.slice(0, cookie.nameLength + 1))) continue
      jar.splice(k, 1)
      break
    }
  }
  if (expired(cookie, nowMs)) return jar !== null && jar.length === 0 ? null : jar
  if (jar === null) return [cookie]
  if (jar.length >= MAX_COOKIES) jar.shift()
  jar.push(cookie)
  return jar
}

/**
 * One Set-Cookie header value → a Cookie, or null when it is to be ignored (no name, too
 * long, a Domain that is not the host's, Secure over plain HTTP).
 * @param {string} text
 * @param {CookieScope} scope
 * @param {number} nowMs
 * @returns {Cookie | null}
 */
function parseSetCookie (text, scope, nowMs) {
  const parts = text.split(';')
  const first = parts[0]
  const eq = first.indexOf('=')
  if (eq === -1) return null
  const name = first.slice(0, eq).trim()
  const value = first.slice(eq + 1).trim()
  if (name === '' || name.length + value.length + 1 > MAX_COOKIE_BYTES || /[\s;,=]/.test(name) || hasControl(name)) return null
  let path = ''
  let maxAgeMs = NaN
  let expiresMs = NaN
  for (let k = 1; k < parts.length; k++) {
    const part = parts[k]
    const at = part.indexOf('=')
    const key = (at === -1 ? part : part.slice(0, at)).trim().toLowerCase()
    const arg = at === -1 ? '' : part.slice(at + 1).trim()
    if (key === 'secure') {
      if (!scope.secure) return null
    } else if (key === 'path') {
      path = arg.startsWith('/') ? arg : ''
    } else if (key === 'max-age') {
      // RFC 6265 5.2.2: digits with an optional minus; anything else is ignored.
      if (/^-?\d+$/.test(arg)) maxAgeMs = Number(arg) * 1000
    } else if (key === 'expires') {
      const ms = Date.parse(arg)
      if (!Number.isNaN(ms)) expiresMs = ms
    } else if (key === 'domain' && arg !== '') {
      if (!domainMatches(scope.host, arg.replace(/^\./, '').toLowerCase())) return null
    }
  }
  // Max-Age wins over Expires; zero or less deletes (expires at once).
  const ends = !Number.isNaN(maxAgeMs) ? (maxAgeMs <= 0 ? 1 : nowMs + maxAgeMs) : !Number.isNaN(expiresMs) ? Math.max(1, expiresMs) : 0
  // A fresh, flat copy: a slice would keep the whole header text alive for the client's life.
  const pair = flat(`${name}=${value}`)
  return new Cookie(pair, name.length, path === '' ? defaultPath(scope.path) : internPath(path), ends)
}

/** Paths most cookies carry: one string shared by every client. */
const PATHS = new Map([['/', '/']])

/** @param {string} path */
function internPath (path) {
  return PATHS.get(path) ?? path
}

/**
 * RFC 6265 5.1.4: the directory of the request path.
 * @param {string} requestPath
 */
export function defaultPath (requestPath) {
  const last = requestPath.lastIndexOf('/')
  if (!requestPath.startsWith('/') || last <= 0) return '/'
  return internPath(requestPath.slice(0, last))
}

/**
 * RFC 6265 5.1.4: the request path is the cookie path, or under it.
 * @param {string} cookiePath
 * @param {string} requestPath
 */
export function pathMatches (cookiePath, requestPath) {
  if (cookiePath === '/' || cookiePath === requestPath) return true
  if (!requestPath.startsWith(cookiePath)) return false
  return cookiePath.endsWith('/') || requestPath.charCodeAt(cookiePath.length) === 47 // '/'
}

/**
 * RFC 6265 5.1.3: the host is the domain, or a name under it (never an IP address under a domain).
 * @param {string} host
 * @param {string} domain
 */
function domainMatches (host, domain) {
  const h = host.toLowerCase()
  if (h === domain) return true
  return h.endsWith(`.${domain}`) && !/^[\d.]+$|:/.test(h)
}

/**
 * @param {Cookie} cookie
 * @param {number} nowMs
 */
function expired (cookie, nowMs) {
  return cookie.expiresMs !== 0 && cookie.expiresMs <= nowMs
}

/**
 * Whether a text has a control character (a cookie name or value must not).
 * @param {string} text
 */
function hasControl (text) {
  for (let k = 0; k < text.length; k++) {
    const code = text.charCodeAt(k)
    if (code < 32 || code === 127) return true
  }
  return false
}

/** @param {string} text */
function flat (text) {
  return text.length < 13 ? text : Buffer.from(text, 'utf8').toString('utf8')
}

/**
 * The Cookie header for a request to `path`: '' when no cookie applies. Expired cookies are
 * dropped from the jar on the way.
 * @param {Jar} jar
 * @param {string} path the request's path (no query)
 * @param {number} [nowMs]
 */
export function cookieHeader (jar, path, nowMs = Date.now()) {
  if (jar === null) return ''
  let header = ''
  for (let k = 0; k < jar.length; k++) {
    const cookie = jar[k]
    if (expired(cookie, nowMs)) {
      jar.splice(k--, 1)
      continue
    }
    if (!pathMatches(cookie.path, path)) continue
    header = header === '' ? cookie.pair : `${header}; ${cookie.pair}`
  }
  return header
}

/**
 * The value of cookie `name` in the jar (the latest one set, whatever its path), or null.
 * @param {Jar} jar
 * @param {string} name
 * @returns {string | null}
 */
export function cookieValue (jar, name) {
  let value = null
  for (const cookie of jar ?? []) {
    // `name=`: 61 is '='.
    const named = cookie.nameLength === name.length && cookie.pair.startsWith(name) && cookie.pair.charCodeAt(name.length) === 61
    if (named) value = cookie.pair.slice(name.length + 1)
  }
  return value
}

/**
 * Adds the jar's cookies to request headers, after a Cookie header the user gave (--header 'Cookie: …').
 * @param {Record<string, string>} headers a copy, changed in place
 * @param {string} cookie the jar's header ('' adds nothing)
 */
export function addCookieHeader (headers, cookie) {
  if (cookie === '') return headers
  for (const name in headers) {
    if (name.length !== 6 || name.toLowerCase() !== 'cookie') continue
    headers[name] = headers[name] === '' ? cookie : `${headers[name]}; ${cookie}`
    return headers
  }
  headers.cookie = cookie
  return headers
}

/**
 * The Set-Cookie lines of a WebSocket handshake's response head (a built-in client's 101) into the jar.
 * @param {Jar} jar
 * @param {string} head status line and header lines, CRLF-separated
 * @param {CookieScope} scope
 * @returns {Jar}
 */
export function storeHeadCookies (jar, head, scope) {
  let at = head.indexOf('\r\n')
  while (at !== -1) {
    const end = head.indexOf('\r\n', at + 2)
    const line = head.slice(at + 2, end === -1 ? head.length : end)
    // `set-cookie:`: 58 is ':'.
    const setsCookie = line.length > 11 && line.charCodeAt(10) === 58 && line.slice(0, 10).toLowerCase() === 'set-cookie'
    if (setsCookie) jar = storeCookies(jar, line.slice(11).trim(), scope)
    at = end
  }
  return jar
}

/**
 * Cookies a client starts with (--cookie 'name=value'): session cookies for the whole origin.
 * @param {Jar} jar
 * @param {Record<string, string>} cookies name → value
 * @returns {Jar}
 */
export function seedCookies (jar, cookies) {
  for (const name in cookies) jar = put(jar, new Cookie(flat(`${name}=${cookies[name]}`), name.length, '/', 0), 0)
  return jar
}

/**
 * Adds the cookies of another jar (a login's), each replacing one of the same name and path.
 * @param {Jar} jar
 * @param {Jar} from
 * @param {number} [nowMs]
 * @returns {Jar}
 */
export function mergeCookies (jar, from, nowMs = Date.now()) {
  for (const cookie of from ?? []) jar = put(jar, cookie, nowMs)
  return jar
}

/**
 * Client i's Cookie header ('' when none applies): --cookie seeds its jar when it starts on
 * purpose; a reconnect keeps what the server set since.
 * @param {Jar[]} jars each client's jar, by index
 * @param {number} i
 * @param {{ cookies?: Record<string, string> } | undefined} identity
 * @param {boolean} reconnecting
 * @param {string} path the request's path (the jar's scope)
 */
export function clientCookieHeader (jars, i, identity, reconnecting, path) {
  if (identity?.cookies !== undefined && !reconnecting) jars[i] = seedCookies(jars[i] ?? null, identity.cookies)
  return cookieHeader(jars[i] ?? null, path)
}
