/**
 * Turns engine options into what the lean engine uses on every request: URLs and paths built
 * once, the events filter as a Set, limits with socket.io-client's defaults.
 */
import { invalidOption } from '../../../lib/errors.js'
import { DEFAULT_PATH } from '../../../lib/protocol.js'
import { RECONNECT_DEFAULTS } from '../../wire/backoff.js'
import { CONNECTION_DEFAULTS, MAX_PAYLOAD_LIMIT_BYTES, POST_CONNECTIONS } from '../../wire/limits.js'

/**
 * Engine options plus the lean engine's own knobs.
 * @typedef {import('../types.js').EngineOptions & {
 *   perMessageDeflate?: boolean,
 *   connectTimeoutMs?: number,
 *   heartbeatTickMs?: number,
 *   reconnectionDelayMs?: number,
 *   reconnectionDelayMaxMs?: number,
 *   randomizationFactor?: number,
 *   wsClient?: 'builtin' | 'ws',
 *   httpClient?: 'builtin' | 'undici',
 *   postConnections?: number
 * }} LeanOptions
 */

/**
 * @typedef {object} LeanConfig
 * @property {boolean} secure
 * @property {3 | 4} eio Engine.IO protocol version
 * @property {boolean} reconnectOnServerDisconnect
 * @property {string} host hostname without IPv6 brackets
 * @property {number} port
 * @property {string} pollBase request path of a poll, up to and including `transport=polling`
 * @property {string} wsUrl WebSocket URL without sid (for `ws`)
 * @property {string} wsPath request path of the WebSocket handshake without sid (built-in client)
 * @property {string} hostHeader Host header of the handshake
 * @property {boolean} wsLibrary use `ws` (when asked, and always for permessage-deflate) rather than the built-in client (the default)
 * @property {boolean} builtinHttp polling over the built-in HTTP/1.1 client (the default for http://), not undici (always for https://)
 * @property {string} nsp the first namespace
 * @property {string[]} nsps every namespace each client joins over its one session
 * @property {Set<string> | null} wanted events to decode; null = every event
 * @property {boolean} reconnect
 * @property {boolean} keepAlive
 * @property {Record<string, unknown> | undefined} auth
 * @property {((i: number) => import('../../sessions/identity.js').ClientIdentity) | undefined} identity each client's own auth, query and headers, rendered at each attempt
 * @property {number} maxPayloadBytes largest WebSocket message (all fragments) or polling response body
 * @property {boolean} perMessageDeflate
 * @property {number} connectTimeoutMs
 * @property {number} postConnections polling: most connections for POSTs per source address (either HTTP client), POST_CONNECTIONS unless a test asks for fewer
 * @property {number} heartbeatTickMs
 * @property {import('../../wire/backoff.js').BackoffConfig} backoff
 * @property {(() => number) | null} reconnectGate --ramp-guard's cap on reconnect attempts (EngineOptions.reconnectGate); null: none
 * @property {import('../../wire/source-ports.js').SourcePorts | null} sourcePorts --source-address: every connection from a chosen (address, port)
 * @property {import('../../../lib/input/tls-trust.js').TlsTrust | null} tls --ca, --insecure: Node TLS options of every connection
 * @property {boolean} cookieJar each client keeps the cookies responses set (off only to show what a balancer does without)
 * @property {import('../../sessions/cookie-jar.js').CookieScope} cookieScope where every request of a client goes, for its jar
 * @property {string | null} nodeHeader --node-from header:NAME: the lower-case response header naming the client's node
 */

/**
 * Validates and resolves lean engine options.
 * @param {LeanOptions} options
 * @returns {LeanConfig}
 */
export function resolveLeanConfig (options) {
  let url
  try {
    url = new URL(options.url)
  } catch {
    throw invalidOption('url', `must be an http(s) URL, got ${JSON.stringify(options.url)}`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw invalidOption('url', `must be an http:// or https:// URL, got ${JSON.stringify(options.url)}`)
  }
  const secure = url.protocol === 'https:'
  // socket.io-client always ends the path with a slash (addTrailingSlash).
  const path = `${(options.path ?? DEFAULT_PATH).replace(/\/$/, '')}/`
  // The URL's own query as written, then --query-style parameters encoded as socket.io-client does.
  const queried = Object.entries(options.query ?? {}).map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`)
  const pairs = [url.search.slice(1), ...queried].filter(Boolean)
  const extra = pairs.length > 0 ? `&${pairs.join('&')}` : ''
  // Engine.IO v3 (socket.io 2.x servers) or v4: from the handshake, or --eio.
  const eio = options.eio === 3 ? 3 : 4
  const query = `?EIO=${eio}&transport=`
  const events = options.events ?? ['*']
  return {
    secure,
    eio,
    host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: Number(url.port) || (secure ? 443 : 80),
    pollBase: `${path}${query}polling${extra}`,
    wsUrl: `${secure ? 'wss' : 'ws'}://${url.host}${path}${query}websocket${extra}`,
    wsPath: `${path}${query}websocket${extra}`,
    hostHeader: url.host,
    // The built-in RFC 6455 client unless `ws` is asked for: it holds a client in about half the
    // memory and costs less CPU per frame (bench/results/2026-11-engines.md, 2026-12-ws-client.md).
    // permessage-deflate is `ws`'s alone.
    wsLibrary: options.perMessageDeflate === true || options.wsClient === 'ws',
    // Polling over the built-in HTTP/1.1 client unless undici is asked for; https:// always on undici (TLS).
    builtinHttp: !secure && options.httpClient !== 'undici',
    nsp: options.namespaces?.[0] ?? options.namespace ?? '/',
    nsps: options.namespaces ?? [options.namespace ?? '/'],
    wanted: events.includes('*') ? null : new Set(events),
    reconnect: options.reconnect !== false,
    reconnectOnServerDisconnect: options.reconnectOnServerDisconnect === true,
    keepAlive: options.keepAlive !== false,
    auth: options.auth,
    identity: options.identity,
    maxPayloadBytes: payloadLimit(options.maxPayloadBytes),
    perMessageDeflate: options.perMessageDeflate === true,
    connectTimeoutMs: positive(options.connectTimeoutMs, CONNECTION_DEFAULTS.connectTimeoutMs, 'connectTimeoutMs'),
    postConnections: Math.ceil(positive(options.postConnections, POST_CONNECTIONS, 'postConnections')),
    sourcePorts: options.sourcePorts ?? null,
    tls: secure ? options.tls ?? null : null,
    cookieJar: options.cookieJar !== false,
    reconnectGate: options.reconnectGate ?? null,
    cookieScope: { secure, host: url.hostname.replace(/^\[(.*)\]$/, '$1'), path },
    nodeHeader: options.nodeHeader ? options.nodeHeader.toLowerCase() : null,
    heartbeatTickMs: positive(options.heartbeatTickMs, CONNECTION_DEFAULTS.heartbeatTickMs, 'heartbeatTickMs'),
    backoff: options.backoff ?? {
      minMs: positive(options.reconnectionDelayMs, RECONNECT_DEFAULTS.minMs, 'reconnectionDelayMs'),
      maxMs: positive(options.reconnectionDelayMaxMs, RECONNECT_DEFAULTS.maxMs, 'reconnectionDelayMaxMs'),
      jitter: fraction(options.randomizationFactor, RECONNECT_DEFAULTS.jitter)
    }
  }
}

/**
 * @param {number | undefined} value
 * @param {number} fallback
 * @param {string} name
 */
function positive (value, fallback, name) {
  if (value === undefined) return fallback
  if (!(typeof value === 'number' && value > 0 && Number.isFinite(value))) {
    throw invalidOption(name, `must be a positive number, got ${JSON.stringify(value)}`)
  }
  return value
}

/**
 * A whole number of bytes up to MAX_PAYLOAD_LIMIT_BYTES (ws reads its maxPayload as a 32-bit integer).
 * @param {number | undefined} value
 */
function payloadLimit (value) {
  if (value === undefined) return CONNECTION_DEFAULTS.maxPayloadBytes
  if (!(Number.isSafeInteger(value) && value > 0 && value <= MAX_PAYLOAD_LIMIT_BYTES)) {
    throw invalidOption('maxPayloadBytes', `must be a whole number of bytes from 1 to ${MAX_PAYLOAD_LIMIT_BYTES}, got ${JSON.stringify(value)}`)
  }
  return value
}

/**
 * @param {number | undefined} value
 * @param {number} fallback
 */
function fraction (value, fallback) {
  if (value === undefined) return fallback
  if (!(typeof value === 'number' && value >= 0 && value <= 1)) {
    throw invalidOption('randomizationFactor', `must be a number from 0 to 1, got ${JSON.stringify(value)}`)
  }
  return value
}
