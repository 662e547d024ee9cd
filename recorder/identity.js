/**
 * Who the recorded client was: the handshake's query, headers and cookies, each namespace's
 * CONNECT auth, and a login before the socket. Per-user values become code that reads them
 * per client: a field of the login's JSON answer (`ctx.login.FIELD`), else a feeder column
 * (`ctx.row.FIELD`, the recorded value written into the CSV beside the scenario); passwords and
 * tokens never stay in the module. Other values stay as recorded.
 */
import { headerOf } from './har.js'

/** Query parameters that are Engine.IO's own, not the app's. */
const ENGINE_QUERY = new Set(['EIO', 'transport', 'sid', 't', 'b64', 'j'])
/** Request headers the browser or the HTTP layer writes, not the app. */
const BROWSER_HEADER = /^(:|host$|connection$|upgrade$|user-agent$|accept|origin$|referer$|cookie$|sec-|pragma$|cache-control$|content-|dnt$|priority$|te$)/i
/** Keys whose values are secrets. */
const SECRET_KEY = /pass(word)?|secret|pwd|^pin$|otp/i
/** Where values are what the client sends after connecting (emits, joins). */
const SENT = new Set(['emit', 'join'])
/** Keys whose values name the user. */
const USER_KEY = /^(user(name|_?id)?|uid|email|e-?mail|nick(name)?|login|account(_?id)?|name|player(_?id)?)$/i

/**
 * @typedef {object} Placed a value's replacement
 * @property {string} where '--auth', 'query', 'header', 'cookie', 'login body'
 * @property {string} key
 * @property {string} code the expression written instead of the value
 * @property {string} why
 * @typedef {object} Identity
 * @property {Record<string, string>} query code per parameter
 * @property {Record<string, string>} headers
 * @property {Record<string, string>} cookies
 * @property {(session: import('./model.js').SessionModel) => Pick<Identity, 'query' | 'headers' | 'cookies'>} handshake another session's
 *   query, headers and cookies as code (their per-user values in the same feeder)
 * @property {(value: unknown, where: string, fromLogin?: boolean, key?: string) => string} code the code of a value, with per-user leaves replaced
 * @property {{ method: string, path: string, kind: 'json' | 'form' | 'none', body: string } | null} login
 * @property {{ fields: string[], row: Record<string, string>, secrets: string[] }} feeder
 * @property {Placed[]} placed
 */

/**
 * @param {import('./model.js').SessionModel} session
 * @param {import('./har.js').HttpExchange | null} login
 * @returns {Identity}
 */
export function buildIdentity (session, login) {
  const answer = login ? jsonObject(login.responseBody) : null
  /** @type {Identity['feeder']} */
  const feeder = { fields: [], row: {}, secrets: [] }
  /** @type {Placed[]} */
  const placed = []

  /**
   * The code of one string or number leaf.
   * @param {string} where
   * @param {string} key
   * @param {string | number} value
   * @param {boolean} fromLogin whether ctx.login can answer it (not in the login itself)
   */
  function leaf (where, key, value, fromLogin) {
    const text = String(value)
    const loginField = fromLogin && answer ? Object.keys(answer).find((k) => answer[k] === value && text.length >= 4) : undefined
    if (loginField !== undefined) return place(where, key, `ctx.login${access(loginField)}`, 'the login answered it')
    const secret = SECRET_KEY.test(key)
    const known = feeder.fields.find((f) => feeder.row[f] === text)
    // In what the client sends, a user-like key is per user only when its value is the recorded user's (a file's name is not).
    const userKey = USER_KEY.test(key) && (!SENT.has(where) || known !== undefined)
    const why = secret
      ? 'a secret'
      : looksLikeToken(text) ? 'looks like a token' : userKey ? 'names the user' : known !== undefined ? 'the recorded user\'s value' : null
    if (why === null) return JSON.stringify(value)
    const field = fieldFor(key, text, secret || why === 'looks like a token')
    const read = `ctx.row${access(field)}`
    return place(where, key, typeof value === 'number' ? `Number(${read})` : read, `${why}: feeder column ${field}`)
  }

  /** @param {string} where @param {string} key @param {string} code @param {string} why */
  function place (where, key, code, why) {
    placed.push({ where, key, code, why })
    return code
  }

  /** A feeder column for a value (the same value shares one). @param {string} key @param {string} value @param {boolean} secret */
  function fieldFor (key, value, secret) {
    const known = feeder.fields.find((f) => feeder.row[f] === value)
    if (known !== undefined) return known
    const base = key.replace(/[^A-Za-z0-9_]/g, '_').replace(/^(\d)/, '_$1').toLowerCase() || 'value'
    let field = base
    for (let n = 2; feeder.fields.includes(field); n++) field = `${base}${n}`
    feeder.fields.push(field)
    feeder.row[field] = value
    if (secret) feeder.secrets.push(field)
    return field
  }

  /**
   * @param {unknown} value
   * @param {string} where
   * @param {boolean} fromLogin
   * @param {string} key
   * @returns {string}
   */
  /** @type {(value: unknown, where: string, fromLogin?: boolean, key?: string) => string} */
  function code (value, where, fromLogin = true, key = '') {
    if (value instanceof Typed) return `typed(${JSON.stringify(value.text)})`
    if (typeof value === 'string' || typeof value === 'number') return leaf(where, key, value, fromLogin)
    if (Array.isArray(value)) return `[${value.map((v) => code(v, where, fromLogin, key)).join(', ')}]`
    if (Buffer.isBuffer(value)) return bufferCode(value)
    if (value && typeof value === 'object') {
      const parts = Object.entries(value).map(([k, v]) => `${propertyName(k)}: ${code(v, where, fromLogin, k)}`)
      return parts.length === 0 ? '{}' : `{ ${parts.join(', ')} }`
    }
    return JSON.stringify(value) ?? 'undefined'
  }

  const fromLogin = new Set(login ? cookieNames(login) : [])
  /** @type {Identity['handshake']} */
  function handshake (other) {
    const first = other.engine.first
    const query = /** @type {Record<string, string>} */ ({})
    for (const [k, v] of first.url.searchParams) if (!ENGINE_QUERY.has(k)) query[k] = leaf('query', k, v, true)
    // socket.io-client 2 sends its query in each namespace's CONNECT too: the handshake query reaches them there.
    for (const step of other.steps) for (const [k, v] of Object.entries(step.query ?? {})) if (!(k in query)) query[k] = leaf('query', k, v, true)
    const headers = /** @type {Record<string, string>} */ ({})
    for (const { name, value } of first.requestHeaders) if (!BROWSER_HEADER.test(name)) headers[name.toLowerCase()] = headerCode(name, value, leaf)
    const cookies = /** @type {Record<string, string>} */ ({})
    for (const { name, value } of requestCookies(first)) if (!fromLogin.has(name)) cookies[name] = leaf('cookie', name, value, true)
    return { query, headers, cookies }
  }
  return { ...handshake(session), handshake, code, login: login ? loginRequest(login, code) : null, feeder, placed }
}

/**
 * A header's code: `Bearer <token>` keeps its scheme and reads the token per user.
 * @param {string} name
 * @param {string} value
 * @param {(where: string, key: string, value: string, fromLogin: boolean) => string} leaf
 */
function headerCode (name, value, leaf) {
  const scheme = /^(Bearer|Basic|Token)\s+(.+)$/i.exec(value)
  if (!scheme) return leaf('header', name, value, true)
  const inner = leaf('header', name === 'authorization' || name === 'Authorization' ? 'token' : name, scheme[2], true)
  return inner.startsWith('"') ? JSON.stringify(value) : `\`${scheme[1]} \${${inner}}\``
}

/**
 * The login request as code: its path and body with secrets and user fields read from the feeder.
 * @param {import('./har.js').HttpExchange} login
 * @param {Identity['code']} code
 * @returns {Identity['login']}
 */
function loginRequest (login, code) {
  const path = `${login.url.pathname}${login.url.search}`
  const body = login.requestBody
  const type = login.requestType ?? headerOf(login.requestHeaders, 'content-type') ?? ''
  if (body === null) return { method: login.method, path, kind: 'none', body: '' }
  const json = jsonObject(body)
  if (json) return { method: login.method, path, kind: 'json', body: code(json, 'login body', false) }
  if (/x-www-form-urlencoded/i.test(type) || /^[^=&\s]+=[^&]*(&[^=&\s]+=[^&]*)*$/.test(body)) {
    return { method: login.method, path, kind: 'form', body: code(Object.fromEntries(new URLSearchParams(body)), 'login body', false) }
  }
  return { method: login.method, path, kind: 'none', body: '' }
}

/** @param {import('./har.js').HttpExchange} exchange */
function requestCookies (exchange) {
  if (exchange.requestCookies.length > 0) return exchange.requestCookies
  const header = headerOf(exchange.requestHeaders, 'cookie')
  if (!header) return []
  return header.split(/;\s*/).filter(Boolean).map((pair) => {
    const eq = pair.indexOf('=')
    return { name: pair.slice(0, eq), value: pair.slice(eq + 1) }
  })
}

/** Names of the cookies an answer set. @param {import('./har.js').HttpExchange} exchange */
function cookieNames (exchange) {
  const names = exchange.responseCookies.map((c) => c.name)
  for (const h of exchange.responseHeaders) {
    if (h.name.toLowerCase() === 'set-cookie') names.push(...h.value.split('\n').map((line) => line.split('=')[0].trim()))
  }
  return names
}

/** Text a person typed, written as `typed("…")`: unique per client and per send when replayed. */
export class Typed {
  /** @param {string} text */
  constructor (text) {
    this.text = text
  }
}

/**
 * A token: a JWT, or 20+ characters of letters and digits (both) with no spaces.
 * @param {string} text
 */
export function looksLikeToken (text) {
  if (/^[\w-]+\.[\w-]+\.[\w-]+$/.test(text) && text.length >= 30) return true
  return text.length >= 20 && /^[A-Za-z0-9_\-.+/=~:]+$/.test(text) && /\d/.test(text) && /[A-Za-z]/.test(text)
}

/** @param {string | Buffer | null} body @returns {Record<string, unknown> | null} */
function jsonObject (body) {
  if (typeof body !== 'string') return null
  try {
    const value = JSON.parse(body)
    return value && typeof value === 'object' && !Array.isArray(value) ? value : null
  } catch {
    return null
  }
}

/** `.name` or `["a-b"]`. @param {string} key */
export function access (key) {
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`
}

/** @param {string} key */
export function propertyName (key) {
  return /^[A-Za-z_$][\w$]*$/.test(key) ? key : JSON.stringify(key)
}

/**
 * A recorded binary argument: its bytes when small, else as many zero bytes.
 * @param {Buffer} buffer
 */
export function bufferCode (buffer) {
  return buffer.length <= 256
    ? `Buffer.from(${JSON.stringify(buffer.toString('base64'))}, 'base64')`
    : `Buffer.alloc(${buffer.length}) /* ${buffer.length} bytes recorded */`
}
