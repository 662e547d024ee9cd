/**
 * Turns engine options into what the Server-Sent Events pool uses on every attempt: the
 * stream's URL parts built once, the events measured, limits and reconnection delays with the
 * other engines' defaults (socket.io-client's numbers, so every protocol reconnects in the
 * same waves until a server sets its own delay with `retry:`).
 */
import { invalidOption } from '../../../lib/errors.js'
import { connectionSettings } from '../../wire/limits.js'

/**
 * @typedef {import('../types.js').EngineOptions & { connectTimeoutMs?: number, heartbeatTickMs?: number }} SseOptions
 */

/**
 * @typedef {object} SseConfig
 * @property {boolean} secure https://
 * @property {string} host hostname without IPv6 brackets
 * @property {number} port
 * @property {string} path request path and query of every GET
 * @property {string} hostHeader
 * @property {string} querySeparator what comes before a client's own --query parameters: ? or &
 * @property {Set<string> | null} events the event types measured; null = every one ('*')
 * @property {boolean} reconnect
 * @property {((i: number) => import('../../sessions/identity.js').ClientIdentity) | undefined} identity
 * @property {import('../../../lib/input/tls-trust.js').TlsTrust | null} tls --ca, --insecure
 * @property {number} maxPayloadBytes the longest event (its lines so far) a client holds
 * @property {number} connectTimeoutMs the answer's head must come within it
 * @property {number} heartbeatTickMs
 * @property {import('../../wire/backoff.js').BackoffConfig} backoff until the server sends `retry:`
 * @property {(() => number) | null} reconnectGate --ramp-guard's cap on reconnect attempts (EngineOptions.reconnectGate); null: none
 * @property {boolean} cookieJar each client keeps the cookies its answers set and sends them on each GET
 * @property {import('../../sessions/cookie-jar.js').CookieScope} cookieScope
 * @property {import('../../wire/source-ports.js').SourcePorts | null} sourcePorts --source-address: each client's address and ports of its own
 * @property {string | null} nodeHeader --node-from header:NAME, lower-case: the answer's header naming the node that serves the stream
 */

/**
 * @param {SseOptions} options
 * @returns {SseConfig}
 */
export function resolveSseConfig (options) {
  let url
  try {
    url = new URL(options.url)
  } catch {
    throw invalidOption('url', `must be an http:// or https:// URL, got ${JSON.stringify(options.url)}`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw invalidOption('url', `must be an http:// or https:// URL, got ${JSON.stringify(options.url)}`)
  }
  const secure = url.protocol === 'https:'
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1')
  return {
    secure,
    host,
    port: Number(url.port) || (secure ? 443 : 80),
    path: `${url.pathname}${url.search}`,
    events: options.events.includes('*') ? null : new Set(options.events),
    ...connectionSettings(options, url),
    sourcePorts: options.sourcePorts ?? null,
    nodeHeader: options.nodeHeader ? options.nodeHeader.toLowerCase() : null
  }
}
