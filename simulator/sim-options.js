/**
 * The simulator's normaliser: every option parsed by its row in the one options table
 * (lib/cli-options), then the checks that involve several options, so the CLI, library
 * users, `ioswarm run` and `fleet up` get the same precise errors (flag named, allowed
 * values said) before any socket opens.
 */
import { existsSync } from 'node:fs'
import { invalidOption } from '../lib/errors.js'
import { parseDurationMs, parseHttpUrl, parseNamespace, parseNamespaces } from '../lib/values/parsers.js'
import { keyOf, parseSimulateOptions, passOnOptions } from '../lib/cli-options/simulator-rows.js'
import { HTTP_CLIENT_NAMES } from '../lib/cli-options/tables/simulate.js'
import { WS_CLIENT_NAMES } from '../lib/values/option-values.js'
import { expandDestinations } from './swarm/destinations.js'
import { compileIdentities } from './sessions/identity.js'
import { checkProtocolFlags, webSocketClient, webSocketUrl } from './websocket-options.js'
import { sseEvents } from './sse-options.js'
import { compileBehaviours } from './traffic/behaviours.js'
import { compileLogin } from './sessions/login-flags.js'
import { partOfSwarm } from './processes/partition.js'
import { resolve } from 'node:path'
import { checkLocalAddresses } from '../lib/input/source-addresses.js'
import { checkPhases } from './phase-options.js'
import { maxClientsOf } from '../lib/input/phase-profile.js'
import { checkReplyFlags } from './traffic/replies.js'

export { MAX_CLIENTS } from '../lib/values/option-values.js'
export { WS_CLIENT_NAMES } from '../lib/values/option-values.js'

/**
 * The simulator's rows of the options table, and the values of those that every simulator
 * takes (passOn), typed from the rows themselves: a row added to the table is a key here.
 * @typedef {typeof import('../lib/cli-options/tables/simulate.js').SIMULATE_OPTIONS[number]
 *   | typeof import('../lib/cli-options/tables/scenario.js').SCENARIO_OPTIONS[number]
 *   | typeof import('../lib/cli-options/tables/websocket.js').WEBSOCKET_OPTIONS[number]
 *   | typeof import('../lib/cli-options/tables/login.js').LOGIN_OPTIONS[number]} SimRow
 * @typedef {import('../lib/cli-options/define.js').OptionValues<Extract<SimRow, { passOn: true }>>} PassedOn
 */

/**
 * What normalizeSimOptions sets itself, beyond (or instead of) the rows' parsed values.
 * @typedef {object} SimOwnOptions
 * @property {string} url the first destination
 * @property {string[]} urls every destination (--url several times or an address range); client i goes to urls[i % length]
 * @property {string} namespace the first of namespaces
 * @property {string[]} namespaces every namespace each client joins (--namespace, several)
 * @property {string} engine sio or lean; websocket with --protocol websocket; sse with --protocol sse
 * @property {number | null} rampMs null = the server's pingInterval
 * @property {number | null} durationMs null = until stopped
 * @property {string | null} id
 * @property {WsClient | null} wsClient the WebSocket client of the lean engine and of --protocol websocket; null for --engine sio
 * @property {HttpClient | null} httpClient the lean engine's polling HTTP client; null for other engines
 * @property {Record<string, string>} query handshake query parameters, from the URL's query string
 * @property {{ minMs: number, maxMs: number } | null} sessionLifetime churn: each session's lifetime range; null = sessions last the run
 * @property {number} clientOffset index of this simulator's first client in the whole run ({{i}}, feeder rows)
 * @property {{ index: number, count: number } | null} [sourcePortSlice] this process's share of the port range, when several processes of one host use the same source addresses (not a flag: set by --workers and the runner)
 * @property {import('../lib/input/node-from.js').NodeFrom | null} nodeFrom --node-from: where each client reads which node served it
 * @property {number} [maxClients] room for this many clients: the swarm may be resized up to it while it runs (--max-clients; `ioswarm capacity`
 *   sets it for its simulator children from its --max)
 */

/**
 * The normalised simulator options: every passOn row of the table under its key (its `to`,
 * else its camelCase name), typed by its `parse`, plus what the normaliser sets itself.
 * @typedef {Omit<PassedOn, keyof SimOwnOptions> & SimOwnOptions} SimOptions
 */

/** @typedef {'ws' | 'builtin'} WsClient */
/** @typedef {'builtin' | 'undici'} HttpClient */

/**
 * @param {Record<string, unknown>} input raw values (strings from the CLI or typed values), flag names in camelCase
 * @returns {SimOptions}
 */
export function normalizeSimOptions (input) {
  const o = parseSimulateOptions(input)
  const urls = expandDestinations(o.url).map((u) => parseHttpUrl(u, '--url'))
  const urlPath = new URL(urls[0]).pathname
  if (urls.some((u) => new URL(u).pathname !== urlPath)) {
    throw invalidOption('--url', `every destination must have the same path (namespace), got ${urls.join(', ')}`)
  }
  const search = new URL(urls[0]).search
  if (urls.some((u) => new URL(u).search !== search)) throw invalidOption('--url', `every destination must have the same query string, got ${urls.join(', ')}`)
  // The URL's query goes to the server with every handshake, as socket.io-client does with
  // io('http://host/nsp?token=…'); Engine.IO's own parameters are not the user's to set.
  const query = Object.fromEntries([...new URLSearchParams(search)].filter(([k]) => k !== 'EIO' && k !== 'transport' && k !== 'sid'))
  const sessionLifetime = parseLifetime(o.sessionLifetime, '--session-lifetime')
  // A feeder is read by each simulator process: an absolute path, whatever its working directory.
  if (o.feeder) o.feeder = resolve(o.feeder)
  checkProtocolFlags(input, o)
  // Here, where the simulator runs (`fleet up` checks only the syntax: its hosts are elsewhere).
  if (input.checkLocal !== false) checkLocalAddresses(o.sourceAddresses)
  if (o.sourceAddresses.length > 0 && o.protocol === 'websocket') {
    throw invalidOption('--source-address', 'works with Socket.IO servers (both engines) only, not yet with --protocol websocket')
  }
  if (o.nodeFrom && o.protocol === 'websocket') {
    throw invalidOption('--node-from', 'works with Socket.IO servers (both engines) only, not with --protocol websocket')
  }
  if (o.scenario) o.scenario = resolve(checkScenarioPath(o.scenario, '--scenario'))
  checkReplyFlags(o)
  // Templates, the feeder and rooms are checked here, once, with the flag named.
  const identities = compileIdentities(o, { simId: 'check' })
  compileBehaviours(o, identities)
  compileLogin(o, identities)
  if (o.parser !== 'json' && o.engine !== 'sio') {
    throw invalidOption('--parser', `${o.parser} works with --engine sio only (the ${o.engine} engine speaks socket.io's default JSON encoding)`)
  }
  // Every passOn option under its normalised key: a simulator option added to the table
  // reaches the swarm (and every simulator child, over IPC) with no other change.
  /** @type {Record<string, unknown>} */
  const passed = {}
  for (const def of passOnOptions()) {
    const key = def.to ?? keyOf(def.name)
    passed[key] = /** @type {Record<string, unknown>} */ (o)[key]
  }
  // --phases sets the clients, the ramp and the duration itself (simulator/phase-options.js).
  const { clients = o.clients, rampMs = o.rampMs, durationMs = o.durationMs } = checkPhases(input, o)
  passed.clients = clients
  if (o.maxClients !== undefined && o.maxClients < clients) {
    throw invalidOption('--max-clients', `must be at least the clients (${clients}), got ${o.maxClients}`)
  }
  if (o.maxClients === undefined) delete passed.maxClients
  if (o.windowMs !== null && durationMs !== null && o.windowMs > durationMs) {
    throw invalidOption('--window', `${o.windowMs / 1000}s is longer than the run (--duration or --phases: ${durationMs / 1000}s): not one window would end`)
  }
  if (o.protocol === 'sse') {
    // The URL is the stream, path and query included; the engine is the event stream subscriber.
    return inPart(/** @type {SimOptions} */ ({
      ...passed,
      events: sseEvents(input, o.events),
      sessionLifetime,
      url: urls[0],
      urls,
      namespace: '/',
      namespaces: ['/'],
      query: {},
      engine: 'sse',
      rampMs,
      durationMs,
      id: o.id === undefined || o.id === null ? null : String(o.id),
      clientOffset: o.clientOffset,
      sourcePortSlice: sliceOf(input.sourcePortSlice),
      wsClient: null,
      httpClient: null
    }), o.part)
  }
  if (o.protocol === 'websocket') {
    // The URL is the endpoint, path and query included; the engine is the plain WebSocket pool.
    const wsUrls = urls.map(webSocketUrl)
    return inPart(/** @type {SimOptions} */ ({
      ...passed,
      sessionLifetime,
      url: wsUrls[0],
      urls: wsUrls,
      namespace: '/',
      namespaces: ['/'],
      query: {},
      engine: 'websocket',
      rampMs,
      durationMs,
      id: o.id === undefined || o.id === null ? null : String(o.id),
      clientOffset: o.clientOffset,
      sourcePortSlice: sliceOf(input.sourcePortSlice),
      wsClient: webSocketClient(o.wsClient)
    }), o.part)
  }
  return inPart(/** @type {SimOptions} */ ({
    ...passed,
    sessionLifetime,
    // socket.io-client reads a namespace from the URL's path (io('http://host/chat')); so do we.
    url: new URL(urls[0]).origin,
    urls: urls.map((u) => new URL(u).origin),
    ...namespacesOf(o.namespace, urlPath),
    query,
    rampMs,
    durationMs,
    id: o.id === undefined || o.id === null ? null : String(o.id),
    clientOffset: o.clientOffset,
    sourcePortSlice: sliceOf(input.sourcePortSlice),
    wsClient: parseWsClient(o.wsClient, o.engine),
    httpClient: parseHttpClient(o.httpClient, o.engine, urls)
  }), o.part)
}

/**
 * `--part K/N`: this process's clients and emitters as part K of the whole (simulator/processes/partition.js),
 * and with --phases its slice of the whole swarm's profile.
 * @param {SimOptions} options
 * @param {{ index: number, count: number } | null} part
 * @returns {SimOptions}
 */
function inPart (options, part) {
  if (!part) return options
  const own = partOfSwarm(options, part)
  if (options.phases && own.clients === 0) {
    const peak = maxClientsOf(options.phases)
    throw invalidOption('--part', `${part.index}/${part.count} has no client of --phases' peak of ${peak} to run: give fewer parts than the peak`)
  }
  return { ...options, ...own }
}

/**
 * The port-range slice a parent gives this process (not a flag); null = the whole range.
 * @param {unknown} value
 * @returns {{ index: number, count: number } | null}
 */
function sliceOf (value) {
  const slice = /** @type {{ index?: unknown, count?: unknown } | null | undefined} */ (value)
  if (!slice || !Number.isInteger(slice.count) || !Number.isInteger(slice.index)) return null
  const { index, count } = /** @type {{ index: number, count: number }} */ (slice)
  return index >= 0 && index < count ? { index, count } : null
}

/**
 * `--namespace` (several) or the URL's path, as socket.io-client reads io('http://host/chat').
 * @param {unknown} given
 * @param {string} urlPath
 * @returns {{ namespace: string, namespaces: string[] }}
 */
function namespacesOf (given, urlPath) {
  const namespaces = parseNamespaces(given) ?? [parseNamespace(urlPath === '' ? '/' : urlPath, '--url')]
  return { namespace: namespaces[0], namespaces }
}

/**
 * `--http-client`: which HTTP client the lean engine polls with. The built-in one speaks plain
 * http:// only, and is the default there; https:// polls on undici, and asking for builtin
 * with it is refused rather than measured under the wrong name.
 * @param {unknown} value undefined or null = not given
 * @param {string} engine
 * @param {string[]} urls every destination
 * @returns {HttpClient | null} null for engines other than lean
 */
function parseHttpClient (value, engine, urls) {
  const given = value !== undefined && value !== null
  if (engine !== 'lean') {
    if (given) {
      throw invalidOption('--http-client', `works with --engine lean only; --engine ${engine} uses socket.io-client's own HTTP requests (add --engine lean)`)
    }
    return null
  }
  const secure = urls.find((u) => u.startsWith('https:'))
  if (!given) return secure ? 'undici' : 'builtin'
  const name = String(value)
  if (!(/** @type {string[]} */ (HTTP_CLIENT_NAMES)).includes(name)) {
    throw invalidOption('--http-client', `must be one of ${HTTP_CLIENT_NAMES.join(', ')}, got ${JSON.stringify(name)}`)
  }
  if (name === 'builtin' && secure) {
    throw invalidOption('--http-client', `builtin speaks http:// only (no TLS), and ${secure} is https://: use --http-client undici`)
  }
  return /** @type {HttpClient} */ (name)
}

/**
 * `--ws-client`: which WebSocket client the lean engine uses, builtin unless ws is asked for (either speaks ws:// and wss://).
 * @param {unknown} value undefined or null = not given
 * @param {string} engine
 * @returns {WsClient | null} null for engines other than lean
 */
export function parseWsClient (value, engine) {
  const given = value !== undefined && value !== null
  if (engine !== 'lean') {
    if (given) throw invalidOption('--ws-client', `works with --engine lean only; --engine ${engine} uses socket.io-client's own WebSocket (add --engine lean)`)
    return null
  }
  if (!given) return 'builtin'
  const name = String(value)
  if (!(/** @type {string[]} */ (WS_CLIENT_NAMES)).includes(name)) {
    throw invalidOption('--ws-client', `must be one of ${WS_CLIENT_NAMES.join(', ')}, got ${JSON.stringify(name)}`)
  }
  return /** @type {WsClient} */ (name)
}

/**
 * `5m` or `2m..8m` → { minMs, maxMs }.
 * @param {unknown} value
 * @param {string} flag
 * @returns {{ minMs: number, maxMs: number } | null}
 */
export function parseLifetime (value, flag) {
  if (value === undefined || value === null) return null
  const [low, high = low, extra] = String(value).split('..')
  if (extra !== undefined) throw invalidOption(flag, `must be a duration or a range such as 5m or 2m..8m, got ${JSON.stringify(value)}`)
  const minMs = parseDurationMs(low, flag)
  const maxMs = parseDurationMs(high, flag)
  if (minMs < 1000 || maxMs < minMs) throw invalidOption(flag, `must be at least 1s, low..high with low ≤ high, got ${JSON.stringify(value)}`)
  return { minMs, maxMs }
}

/**
 * Checks that a scenario file exists (the module itself is checked when loaded).
 * @param {unknown} value
 * @param {string} flag
 */
function checkScenarioPath (value, flag) {
  const path = String(value)
  if (!/\.(m?js)$/.test(path)) throw invalidOption(flag, `must be a JavaScript module (.js or .mjs), got ${JSON.stringify(path)}`)
  if (!existsSync(path)) throw invalidOption(flag, `cannot read ${JSON.stringify(path)}: no such file`)
  return path
}
