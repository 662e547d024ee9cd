/**
 * The simulator's options: defaults merged and every value validated in one place, so the
 * CLI and library users get the same precise errors (flag named, allowed values said)
 * before any socket opens.
 */
import { invalidOption } from '../lib/errors.js'
import { parseInteger, parseDurationMs, parseBytes, parseHttpUrl, parseTransportMix, parseNamespace } from '../lib/options.js'
import { DEFAULT_EVENT, DEFAULT_PATH } from '../lib/protocol.js'
import { ENGINE_NAMES } from './engines/index.js'
import { PARSER_NAMES } from './engines/sio.js'
import { DEFAULT_MAX_PAYLOAD_BYTES, MAX_PAYLOAD_LIMIT_BYTES, MIN_PAYLOAD_LIMIT_BYTES } from './engines/limits.js'
import { expandDestinations } from './destinations.js'
import { RECORDER_LIMITS } from './recorder.js'

/** Most clients one simulator process may be asked for (file descriptors stop it far earlier). */
export const MAX_CLIENTS = 1_000_000

/**
 * @typedef {object} SimOptions
 * @property {string} url the first destination
 * @property {string[]} urls every destination (--url several times or an address range); client i goes to urls[i % length]
 * @property {string} path
 * @property {string} namespace
 * @property {string[]} events
 * @property {number} clients
 * @property {import('../lib/options.js').MixEntry[]} transport
 * @property {string} engine
 * @property {boolean} keepAlive
 * @property {number | null} rampMs null = the server's pingInterval
 * @property {number | null} durationMs null = until stopped
 * @property {number} messageTimeoutMs
 * @property {number} maxOpenMessages most messages recorded at once (floods past it are counted, not recorded)
 * @property {number} keepMessages closed messages kept whole in the result; older ones are rolled up per round
 * @property {boolean} reconnect
 * @property {string | null} id
 * @property {string} parser Socket.IO packet encoding: json or msgpack (must match the server's)
 * @property {number} maxPayloadBytes largest WebSocket message or polling response a client accepts; a bigger one closes it
 * @property {WsClient | null} wsClient the lean engine's WebSocket client; null for --engine sio
 */

/** @typedef {'ws' | 'builtin'} WsClient */

/** The lean engine's WebSocket clients: the `ws` library (the default) or its own RFC 6455 client. */
export const WS_CLIENT_NAMES = Object.freeze(/** @type {WsClient[]} */ (['ws', 'builtin']))

/**
 * @param {Record<string, unknown>} input raw values (strings from the CLI or typed values)
 * @returns {SimOptions}
 */
export function normalizeSimOptions (input) {
  const urls = expandDestinations(input.url).map((u) => parseHttpUrl(u, '--url'))
  const url = urls[0]
  const urlPath = new URL(url).pathname
  if (urls.some((u) => new URL(u).pathname !== urlPath)) throw invalidOption('--url', `every destination must have the same path (namespace), got ${urls.join(', ')}`)
  const engine = String(input.engine ?? 'sio')
  if (!ENGINE_NAMES.includes(engine)) throw invalidOption('--engine', `must be one of ${ENGINE_NAMES.join(', ')}, got ${JSON.stringify(engine)}`)
  const events = [input.event ?? DEFAULT_EVENT].flat().map(String)
  if (events.some((e) => e.length === 0)) throw invalidOption('--event', 'must not be empty')
  const parser = String(input.parser ?? 'json')
  if (!PARSER_NAMES.includes(parser)) throw invalidOption('--parser', `must be one of ${PARSER_NAMES.join(', ')} (the server's parser), got ${JSON.stringify(parser)}`)
  if (parser !== 'json' && engine !== 'sio') throw invalidOption('--parser', `${parser} works with --engine sio only (the ${engine} engine speaks socket.io's default JSON encoding)`)
  const path = String(input.path ?? DEFAULT_PATH)
  if (!path.startsWith('/')) throw invalidOption('--path', `must start with /, got ${JSON.stringify(path)}`)
  return {
    // socket.io-client reads a namespace from the URL's path (io('http://host/chat')); so do we.
    url: new URL(url).origin,
    urls: urls.map((u) => new URL(u).origin),
    path: path.endsWith('/') ? path : `${path}/`,
    namespace: parseNamespace(input.namespace ?? (urlPath === '' ? '/' : urlPath)),
    events,
    clients: parseInteger(input.clients ?? 1, '--clients', { min: 1, max: MAX_CLIENTS }),
    transport: parseTransportMix(input.transport ?? 'websocket'),
    engine,
    keepAlive: input.keepAlive === undefined ? true : Boolean(input.keepAlive),
    rampMs: input.ramp === undefined || input.ramp === null ? null : parseDurationMs(input.ramp, '--ramp'),
    durationMs: input.duration === undefined || input.duration === null ? null : positiveDuration(input.duration, '--duration'),
    messageTimeoutMs: positiveDuration(input.messageTimeout ?? '10s', '--message-timeout'),
    maxOpenMessages: parseInteger(input.maxOpenMessages ?? RECORDER_LIMITS.maxOpen, '--max-open-messages', { min: 1, max: 100_000 }),
    keepMessages: parseInteger(input.keepMessages ?? RECORDER_LIMITS.keepClosed, '--keep-messages', { min: 0, max: 10_000_000 }),
    reconnect: input.reconnect === undefined ? true : Boolean(input.reconnect),
    id: input.id === undefined || input.id === null ? null : String(input.id),
    parser,
    maxPayloadBytes: parseBytes(input.maxPayload ?? DEFAULT_MAX_PAYLOAD_BYTES, '--max-payload', { min: MIN_PAYLOAD_LIMIT_BYTES, max: MAX_PAYLOAD_LIMIT_BYTES }),
    wsClient: parseWsClient(input.wsClient, engine, urls)
  }
}

/**
 * `--ws-client`: which WebSocket client the lean engine uses. The built-in one speaks plain
 * ws:// only; the engine would quietly fall back to `ws` for https://, so that is refused here
 * rather than measured under the wrong name.
 * @param {unknown} value undefined or null = not given
 * @param {string} engine
 * @param {string[]} urls every destination
 * @returns {WsClient | null} null for engines other than lean
 */
export function parseWsClient (value, engine, urls) {
  const given = value !== undefined && value !== null
  if (engine !== 'lean') {
    if (given) throw invalidOption('--ws-client', `works with --engine lean only; --engine ${engine} uses socket.io-client's own WebSocket (add --engine lean)`)
    return null
  }
  if (!given) return 'ws'
  const name = String(value)
  if (!(/** @type {string[]} */ (WS_CLIENT_NAMES)).includes(name)) throw invalidOption('--ws-client', `must be one of ${WS_CLIENT_NAMES.join(', ')}, got ${JSON.stringify(name)}`)
  const secure = urls.find((u) => u.startsWith('https:'))
  if (name === 'builtin' && secure) throw invalidOption('--ws-client', `builtin speaks ws:// only (no TLS), and ${secure} is https://: use --ws-client ws`)
  return /** @type {WsClient} */ (name)
}

/**
 * @param {unknown} value
 * @param {string} flag
 */
function positiveDuration (value, flag) {
  const ms = parseDurationMs(value, flag)
  if (ms <= 0) throw invalidOption(flag, `must be more than 0, got ${JSON.stringify(value)}`)
  return ms
}
