/**
 * The constants and value parsers of the options tables that a simulator's own code reads too
 * (the recorder's bounds, the payload limits, the WebSocket clients, headers, cookies, query and
 * login templates, emit rates, flag keys). They live here, a leaf, so that a simulator child,
 * handed normalised options, loads none of the tables (a process loads only what it uses); the tables
 * and every other reader import them from here.
 */
import { invalidOption } from '../errors.js'
import { parseDurationMs } from './parsers.js'

/**
 * camelCase key of a flag name, as yargs gives it: 'max-payload' → 'maxPayload'.
 * @param {string} name
 */
export function keyOf (name) {
  return name.replace(/-([a-z])/g, (_, c) => c.toUpperCase())
}

/** Socket.IO packet encodings; a client must use its server's. */
export const PARSER_NAMES = Object.freeze(['json', 'msgpack'])
/** The lean engine's WebSocket clients: the `ws` library (the default) or its own RFC 6455 client. */
export const WS_CLIENT_NAMES = Object.freeze(/** @type {('ws' | 'builtin')[]} */ (['ws', 'builtin']))
/** The recorder's bounds: messages recorded at once, closed messages kept whole. */
export const RECORDER_LIMITS = Object.freeze({ maxOpen: 256, keepClosed: 1000 })
/**
 * The payload a client accepts by default: 1 MB, socket.io's own `maxHttpBufferSize` (what a
 * default server accepts from one client). socket.io-client's default is ws's 100 MiB, fine
 * for one browser but not for a swarm: 10,000 clients each buffering 100 MB is 1 TB.
 */
export const DEFAULT_MAX_PAYLOAD_BYTES = 1_000_000
/** Most clients one simulator process may be asked for (file descriptors stop it far earlier). */
export const MAX_CLIENTS = 1_000_000
/** Highest limit: above socket.io-client's 100 MiB, below one V8 string and ws's 32-bit maxPayload. */
export const MAX_PAYLOAD_LIMIT_BYTES = 256 * 1024 * 1024
/** Lowest limit: an Engine.IO open packet and a CONNECT ack must fit. */
export const MIN_PAYLOAD_LIMIT_BYTES = 1000

/**
 * The ramp of plain WebSocket clients when --ramp is not given. There is no handshake that
 * says the server's heartbeat (Socket.IO's open packet does), and the ramp exists to spread
 * per-connection timers (server pings, client keep-alives) and the connect burst over one
 * heartbeat period: 25 s is Socket.IO's default pingInterval, between the Python websockets
 * library's default ping_interval (20 s) and the 30 s of the ws library's heartbeat example,
 * so a run takes the same time whichever protocol it speaks.
 */
export const DEFAULT_WEBSOCKET_RAMP_MS = 25000

/** The event name plain WebSocket messages are recorded under (the browser's `message` event). */
export const WEBSOCKET_EVENT = 'message'

/** Headers the transports set themselves: a user's value would break the handshake. */
const TRANSPORT_HEADERS = new Set([
  'host', 'connection', 'upgrade', 'content-length', 'transfer-encoding',
  'sec-websocket-key', 'sec-websocket-version', 'sec-websocket-extensions', 'sec-websocket-accept'
])
/** Query parameters Engine.IO sets itself. */
const ENGINE_QUERY_KEYS = Object.freeze(['EIO', 'transport', 'sid', 't', 'b64'])

/** A header or cookie name, a WebSocket subprotocol name: an HTTP token. */
export const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/

/**
 * Repeatable `name<separator>value` items → [name, value] pairs, each checked by `check`.
 * @param {unknown} value
 * @param {string} separator
 * @param {(text: string, name: string, pairValue: string) => void} check throws what is wrong with one item
 * @returns {[string, string][]}
 */
function namedValues (value, separator, check) {
  if (value === undefined || value === null) return []
  return [value].flat().map((item) => {
    const text = String(item)
    const at = text.indexOf(separator)
    const name = at === -1 ? '' : text.slice(0, at).trim()
    const pairValue = text.slice(at + 1).trim()
    check(text, name, pairValue)
    return /** @type {[string, string]} */ ([name, pairValue])
  })
}

/**
 * `--header 'Name: value'` (repeatable) → [name, value template] pairs.
 * @param {unknown} value
 * @param {string} flag
 * @returns {[string, string][]}
 */
export function parseHeaders (value, flag) {
  return namedValues(value, ':', (text, name, headerValue) => {
    if (!TOKEN.test(name)) {
      throw invalidOption(flag,
        `must be 'Name: value' with a header name of letters, digits and - (e.g. 'Authorization: Bearer {{row.token}}'), got ${JSON.stringify(text)}`)
    }
    if (TRANSPORT_HEADERS.has(name.toLowerCase())) throw invalidOption(flag, `cannot set ${name}: the transports set it themselves`)
    if (/[\r\n\0]/.test(headerValue)) throw invalidOption(flag, `${name}'s value must not contain line breaks`)
  })
}

/**
 * `--cookie 'name=value'` (repeatable) → [name, value template] pairs.
 * @param {unknown} value
 * @param {string} flag
 * @returns {[string, string][]}
 */
export function parseCookies (value, flag) {
  return namedValues(value, '=', (text, name, cookieValue) => {
    if (!TOKEN.test(name)) {
      throw invalidOption(flag, `must be 'name=value' with a cookie name of letters, digits and - (e.g. 'session={{row.sid}}'), got ${JSON.stringify(text)}`)
    }
    const literal = cookieValue.replace(/\{\{[^}]*\}\}/g, '')
    if (/[;\s]/.test(literal) || [...literal].some((ch) => ch.charCodeAt(0) < 32 || ch.charCodeAt(0) === 127)) {
      throw invalidOption(flag, `${name}'s value must not contain ';', spaces or control characters`)
    }
  })
}

/**
 * `--query 'k=v&k2={{i}}'` → [key, value template] pairs (values are templates; keys as written).
 * @param {unknown} value
 * @param {string} flag
 * @returns {[string, string][]}
 */
export function parseQueryTemplate (value, flag) {
  if (value === undefined || value === null || value === '') return []
  return String(value).replace(/^\?/, '').split('&').filter(Boolean).map((pair) => {
    const eq = pair.indexOf('=')
    const key = decodeURIComponent(eq === -1 ? pair : pair.slice(0, eq))
    if (key === '') throw invalidOption(flag, `must be k=v pairs joined by &, got ${JSON.stringify(value)}`)
    if (ENGINE_QUERY_KEYS.includes(key)) throw invalidOption(flag, `cannot set ${key}: Engine.IO sets it itself`)
    return /** @type {[string, string]} */ ([key, eq === -1 ? '' : pair.slice(eq + 1)])
  })
}

/** Fastest emit rate of one client. */
export const MAX_EMITS_PER_SECOND = 1000

/**
 * `--emit-rate 1/10s`, `5/s`, `30/m`, `2/500ms`: emits per window → the mean interval.
 * @param {unknown} value
 * @param {string} flag
 * @returns {number} milliseconds between one client's emits, on average
 */
export function parseRate (value, flag) {
  const match = /^(\d+(?:\.\d+)?)\s*\/\s*(\d+(?:\.\d+)?)?\s*(ms|s|m|h)$/.exec(String(value).trim())
  const count = match ? Number(match[1]) : NaN
  const windowMs = match ? parseDurationMs(`${match[2] ?? 1}${match[3]}`, flag) : NaN
  if (!(count > 0) || !(windowMs > 0)) throw invalidOption(flag, `must be a rate per client such as 1/10s, 5/s, 30/m or 2/500ms, got ${JSON.stringify(value)}`)
  const intervalMs = windowMs / count
  if (intervalMs < 1000 / MAX_EMITS_PER_SECOND) {
    throw invalidOption(flag, `is more than ${MAX_EMITS_PER_SECOND} emits a second per client, got ${JSON.stringify(value)}`)
  }
  return intervalMs
}

/** Methods a login may use. */
const LOGIN_METHODS = Object.freeze(['POST', 'GET', 'PUT', 'PATCH'])

/**
 * @typedef {object} LoginSpec
 * @property {string} method
 * @property {string} target a path on the server (`/login`) or an absolute http(s) URL, a text template
 * @property {string | null} body a JSON template (starts with { or [) or a form `a=b&c={{i}}` (values are templates)
 * @property {boolean} json the body is JSON
 */

/**
 * `--login 'METHOD TARGET [BODY]'` → its parts, checked (templates are checked later).
 * @param {string} text
 * @param {string} flag
 * @returns {LoginSpec}
 */
export function parseLoginSpec (text, flag) {
  const usage = 'must be \'METHOD PATH-OR-URL [BODY]\', a JSON or form body: ' +
    '\'POST /login {"user":"u{{i}}","password":"{{row.password}}"}\' or \'POST /login user=u{{i}}&password={{row.password}}\''
  const match = /^\s*(\S+)\s+(\S+)(?:\s+([\s\S]*\S))?\s*$/.exec(text)
  if (!match) throw invalidOption(flag, `${usage}, got ${JSON.stringify(text)}`)
  const [, method, target, body = null] = match
  if (!LOGIN_METHODS.includes(method)) {
    throw invalidOption(flag, `must start with an HTTP method (${LOGIN_METHODS.join(', ')}), got ${JSON.stringify(method)}: ${usage}`)
  }
  if (!target.startsWith('/') || target.startsWith('//')) {
    if (!/^https?:\/\/[^/\s]+/i.test(target)) {
      throw invalidOption(flag, `has ${JSON.stringify(target)}: a path on the server starts with / ('POST /login …'); ` +
        'a login on another origin needs its scheme (\'POST https://auth.example.com/login …\')')
    }
    try {
      // eslint-disable-next-line no-new
      new URL(target.replace(/\{\{[^}]*\}\}/g, 'x'))
    } catch {
      throw invalidOption(flag, `has ${JSON.stringify(target)}, which is not a URL`)
    }
  }
  if (body !== null && method === 'GET') throw invalidOption(flag, 'has a body with GET: put the fields in the query (GET /login?user=u{{i}}), or use POST')
  const json = body !== null && /^[{[]/.test(body)
  if (body !== null && !json && !/^[^=&\s]+=[^&\s]*(&[^=&\s]+=[^&\s]*)*$/.test(body)) {
    throw invalidOption(flag, `has a body that is neither JSON ({…}) nor a form (a=b&c=d): ${JSON.stringify(body)}`)
  }
  return { method, target, body, json }
}
