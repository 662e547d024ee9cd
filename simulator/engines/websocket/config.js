/**
 * Turns engine options into what the plain WebSocket pool uses on every attempt: the
 * endpoint's parts built once, the --match filter compiled, limits and reconnection delays
 * with the lean engine's defaults (socket.io-client's numbers, so both protocols reconnect in
 * the same waves).
 */
import { invalidOption } from '../../../lib/errors.js'
import { connectionSettings } from '../../wire/limits.js'
import { compileMatcher } from './decode.js'

/**
 * @typedef {import('../types.js').EngineOptions & { connectTimeoutMs?: number, heartbeatTickMs?: number }} PlainOptions
 */

/**
 * @typedef {object} PlainConfig
 * @property {string} url the endpoint, ws:// or wss://, with its own query
 * @property {boolean} secure
 * @property {import('../../../lib/input/tls-trust.js').TlsTrust | null} tls --ca, --insecure: Node TLS options of every wss:// connection
 * @property {string} host hostname without IPv6 brackets
 * @property {number} port
 * @property {string} path request path and query of the handshake (built-in client)
 * @property {string} hostHeader
 * @property {string} querySeparator what comes before a client's own --query parameters: ? or &
 * @property {boolean} wsLibrary use `ws` (the default) rather than the built-in client
 * @property {string[]} subprotocols
 * @property {string | null} protocolHeader Sec-WebSocket-Protocol of the built-in client's handshake
 * @property {import('./decode.js').Matcher | null} match
 * @property {boolean} reconnect
 * @property {((i: number) => import('../../sessions/identity.js').ClientIdentity) | undefined} identity
 * @property {number} maxPayloadBytes
 * @property {number} connectTimeoutMs the handshake and the first round trip must finish within it
 * @property {number} heartbeatTickMs
 * @property {import('../../wire/backoff.js').BackoffConfig} backoff
 * @property {(() => number) | null} reconnectGate --ramp-guard's cap on reconnect attempts (EngineOptions.reconnectGate); null: none
 * @property {boolean} cookieJar each client keeps the cookies of its 101 answers and of its login (--login), and sends them on each upgrade
 * @property {import('../../sessions/cookie-jar.js').CookieScope} cookieScope what every upgrade of a client is to
 */

/**
 * @param {PlainOptions} options
 * @returns {PlainConfig}
 */
export function resolvePlainConfig (options) {
  let url
  try {
    url = new URL(options.url)
  } catch {
    throw invalidOption('url', `must be a ws:// or wss:// URL, got ${JSON.stringify(options.url)}`)
  }
  if (url.protocol === 'http:' || url.protocol === 'https:') url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:'
  if (url.protocol !== 'ws:' && url.protocol !== 'wss:') throw invalidOption('url', `must be a ws:// or wss:// URL, got ${JSON.stringify(options.url)}`)
  const secure = url.protocol === 'wss:'
  const subprotocols = options.subprotocols ?? []
  return {
    url: url.href,
    secure,
    host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: Number(url.port) || (secure ? 443 : 80),
    path: `${url.pathname}${url.search}`,
    // `ws` unless the built-in RFC 6455 client is asked for (as for the lean engine).
    wsLibrary: options.wsClient !== 'builtin',
    subprotocols,
    protocolHeader: subprotocols.length > 0 ? subprotocols.join(', ') : null,
    match: compileMatcher(options.match),
    ...connectionSettings(options, url)
  }
}
