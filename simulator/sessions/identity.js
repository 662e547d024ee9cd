/**
 * Who each client is: its handshake auth, query and headers and its room, rendered from the
 * templates of --auth, --query, --header and --room (or --rooms) for client `i`, whose index
 * in the whole run is `clientOffset + i` ({{i}}; feeder row `{{i}} mod rows`; {{env.NAME}}
 * the simulator's environment; {{login.FIELD}} a field of the client's --login answer). Checked when
 * the options are normalised (every placeholder known, every feeder field present), rendered
 * at each connection attempt: nothing is kept per client.
 */
import { invalidOption } from '../../lib/errors.js'
import { roomName } from '../../lib/protocol.js'
import { loadFeeder } from '../../lib/input/feeder.js'
import { compileJsonTemplate, compileMessageTemplate, compileTextTemplate } from '../../lib/input/template.js'
import { parseCookies, parseHeaders, parseQueryTemplate } from '../../lib/values/option-values.js'

/** Templates read before a client's login: no {{login.FIELD}} there. */
const READ_BEFORE_LOGIN = Object.freeze(['--cookie', '--room', '--login', '--login-header'])

/** Placeholders of a client's templates. */
const CLIENT_PLACEHOLDERS = Object.freeze(['i', 'sim', 'room', 'rand'])

/**
 * What a client sends in its handshake; absent fields are not sent.
 * @typedef {object} ClientIdentity
 * @property {Record<string, unknown>} [auth] the CONNECT packet's payload
 * @property {Record<string, string>} [query] handshake query parameters (besides the URL's)
 * @property {Record<string, string>} [headers] on every polling request and the WebSocket upgrade
 * @property {Record<string, string>} [cookies] --cookie: what the client's jar starts with (name → value)
 * @property {string} [openMessage] what a plain WebSocket client sends once open (--send-on-open), rendered
 */

/**
 * Client i as a scenario's hooks see it (their context, without the namespace).
 * @typedef {object} ClientContext
 * @property {number} i its index in the whole run
 * @property {number} local its index in this simulator
 * @property {string} sim the simulator's id
 * @property {string | null} room
 * @property {Record<string, unknown> | null} row its feeder row
 * @property {Record<string, unknown> | null} [login] the fields of its login's JSON answer (--login, a scenario's login hook); null before it logged in
 */

/**
 * @typedef {object} Identities
 * @property {(i: number) => ClientIdentity} of the identity of client i, rendered now
 * @property {(i: number) => string | null} roomOf client i's room; null without --rooms/--room
 * @property {(i: number) => import('../../lib/input/template.js').Lookup} lookupOf client i's placeholders ({{i}} {{sim}} {{room}} {{rand}} {{row.FIELD}}), for other templates (--join, --emit)
 * @property {(i: number) => ClientContext} contextOf what client i is, as a scenario's hooks see it
 * @property {(flag: string, extra?: readonly string[]) => import('../../lib/input/template.js').TemplateRules} rules how another client template is checked (--join, --emit): these placeholders, plus `extra`
 * @property {boolean} personal whether identities differ between clients (else `of` returns one shared object)
 * @property {{ path: string, rows: number, fields: string[] } | null} feeder
 */

/**
 * @param {{ auth?: string | null, queryTemplate?: string | null, headers?: string[], cookies?: string[], sendOnOpen?: string | null, feeder?: string | null, rooms?: number | null,
 *   room?: string | null, clientOffset?: number, login?: string | null, scenario?: string | null }} options normalised simulator options
 * @param {{ simId: string, env?: NodeJS.ProcessEnv, login?: (i: number) => Record<string, unknown> | null }} context env: what {{env.NAME}} reads (default: this
 *   process's environment); login: client i's (local index) login answer, what {{login.FIELD}} reads
 * @returns {Identities}
 */
export function compileIdentities (options, { simId, env = process.env, login = () => null }) {
  const feeder = options.feeder ? loadFeeder(options.feeder) : null
  const hasRooms = Boolean(options.rooms || options.room)
  const names = hasRooms ? CLIENT_PLACEHOLDERS : CLIENT_PLACEHOLDERS.filter((n) => n !== 'room')
  // {{login.FIELD}}: with --login, or a scenario (its login hook answers them); never in --cookie or --room (read before the login).
  const canLogin = Boolean(options.login || options.scenario)
  const rules = (/** @type {string} */ flag, /** @type {readonly string[]} */ allowed = names) => ({
    flag, names: allowed, rowFields: feeder ? feeder.fields : null, env: true, login: canLogin && READ_BEFORE_LOGIN.includes(flag) ? undefined : canLogin
  })
  const roomTemplates = [
    ['--auth', options.auth], ['--query', options.queryTemplate], ['--header', (options.headers ?? []).join('\n')],
    ['--cookie', (options.cookies ?? []).join('\n')], ['--send-on-open', options.sendOnOpen]
  ]
  for (const [flag, text] of roomTemplates) {
    if (!hasRooms && text && /\{\{\s*room\s*\}\}/.test(text)) {
      throw invalidOption(/** @type {string} */ (flag), 'uses {{room}}, which needs --rooms R or --room TEMPLATE')
    }
  }
  if (options.auth && !options.auth.trim().startsWith('{')) {
    throw invalidOption('--auth', `must be a JSON object template such as '{"token":"{{row.token}}"}', got ${JSON.stringify(options.auth)}`)
  }
  const auth = options.auth ? compileJsonTemplate(options.auth, rules('--auth')) : null
  const query = parseQueryTemplate(options.queryTemplate, '--query').map(([k, v]) => /** @type {const} */ ([k, compileTextTemplate(v, rules('--query'))]))
  const headers = parseHeaders(options.headers, '--header').map(([k, v]) => /** @type {const} */ ([k, compileTextTemplate(v, rules('--header'))]))
  const cookies = parseCookies(options.cookies, '--cookie').map(([k, v]) => /** @type {const} */ ([k, compileTextTemplate(v, rules('--cookie'))]))
  const openMessage = options.sendOnOpen ? compileMessageTemplate(options.sendOnOpen, rules('--send-on-open')) : null
  const room = options.room ? compileTextTemplate(options.room, rules('--room', CLIENT_PLACEHOLDERS.filter((n) => n !== 'room'))) : null
  const offset = options.clientOffset ?? 0
  const rows = feeder?.rows ?? []

  /**
   * @param {number} i local index
   * @param {string | null} roomName
   */
  const lookupFor = (i, roomName) => (/** @type {string} */ name) => {
    const global = offset + i
    switch (name) {
      case 'i': return global
      case 'sim': return simId
      case 'room': return roomName
      case 'rand': return Math.random().toString(36).slice(2, 10)
      default:
        if (name.startsWith('env.')) return env[name.slice(4)] ?? ''
        if (name.startsWith('login.')) return login(i)?.[name.slice(6)] ?? ''
        return rows[global % rows.length]?.[name.slice(4)] ?? ''
    }
  }
  /** @param {number} i */
  const roomOf = (i) => {
    if (room) return String(room.render(lookupFor(i, null)))
    return options.rooms ? roomName((offset + i) % options.rooms) : null
  }
  /** @param {number} i */
  const render = (i) => {
    const lookup = lookupFor(i, roomOf(i))
    /** @type {ClientIdentity} */
    const identity = {}
    if (auth) identity.auth = /** @type {Record<string, unknown>} */ (auth.render(lookup))
    if (query.length > 0) identity.query = Object.fromEntries(query.map(([k, v]) => [k, String(v.render(lookup))]))
    if (headers.length > 0) identity.headers = Object.fromEntries(headers.map(([k, v]) => [k, String(v.render(lookup))]))
    if (cookies.length > 0) identity.cookies = Object.fromEntries(cookies.map(([k, v]) => [k, String(v.render(lookup))]))
    if (openMessage) identity.openMessage = String(openMessage.render(lookup))
    return identity
  }
  /** @param {number} i @returns {ClientContext} */
  const contextOf = (i) => {
    const lookup = lookupFor(i, roomOf(i))
    const row = feeder ? Object.fromEntries(feeder.fields.map((f) => [f, lookup(`row.${f}`)])) : null
    return { i: offset + i, local: i, sim: simId, room: roomOf(i), row, login: login(i) }
  }
  const templates = [auth, openMessage, ...query.map(([, v]) => v), ...headers.map(([, v]) => v), ...cookies.map(([, v]) => v)]
  const personal = templates.some((t) => t !== null && t.placeholders.length > 0)
  const shared = personal ? null : render(0)
  return {
    of: shared ? () => shared : render,
    roomOf,
    lookupOf: (i) => lookupFor(i, roomOf(i)),
    contextOf,
    rules: (flag, extra = []) => rules(flag, [...names, ...extra]),
    personal,
    feeder: feeder ? { path: feeder.path, rows: feeder.rows.length, fields: feeder.fields } : null
  }
}

/**
 * The identity the engines render at each connection attempt, and the one inspection sends
 * for the first client: a scenario's identity() over the options' templates. Undefined when
 * no client sends anything of its own (the engines then render nothing per attempt).
 * @param {{ auth?: string | null, queryTemplate?: string | null, headers?: string[], cookies?: string[], sendOnOpen?: string | null }} options
 * @param {Identities} identities
 * @param {((i: number) => ClientIdentity) | null} [scenario] a scenario's identity (scenarioIdentity)
 * @returns {((i: number) => ClientIdentity) | undefined}
 */
export function handshakeIdentity (options, identities, scenario = null) {
  if (scenario) return scenario
  return options.auth || options.queryTemplate || options.headers?.length || options.cookies?.length || options.sendOnOpen ? identities.of : undefined
}

/**
 * A scenario's identity(i, ctx) hook over the options' identity: what it returns replaces
 * their fields; a throw (counted by onError) or nothing returned keeps them.
 * @param {Identities} identities
 * @param {(i: number, ctx: ClientContext & { namespace: string }) => ClientIdentity | undefined} hook
 * @param {{ namespace: string, onCall?: () => void, onError?: (error: unknown) => void }} context namespace: the first one the client joins
 * @returns {(i: number) => ClientIdentity}
 */
export function scenarioIdentity (identities, hook, { namespace, onCall = () => {}, onError = () => {} }) {
  return (i) => {
    const own = identities.of(i)
    onCall()
    try {
      const given = hook(i, { ...identities.contextOf(i), namespace })
      if (given instanceof Promise) throw new Error('identity() must return synchronously (it runs at every connection attempt)')
      return given ? { ...own, ...given } : own
    } catch (error) {
      onError(error)
      return own
    }
  }
}

/**
 * A client's own --query parameters as the tail of a URL whose path (and query, if any) comes
 * before: `?a=1&b=2`, or `&a=1&b=2` after a query of the URL's own.
 * @param {Record<string, string> | undefined} query
 * @param {string} separator `?`, or `&` when the URL has a query already
 */
export function querySuffix (query, separator) {
  let suffix = ''
  if (query !== undefined) {
    for (const key in query) suffix += `${suffix === '' ? separator : '&'}${encodeURIComponent(key)}=${encodeURIComponent(query[key])}`
  }
  return suffix
}
