/**
 * Engine `sio`: the real socket.io-client, one Manager per client (forceNew), so what the
 * server sees is exactly what a browser or Node app would do. The fidelity reference for
 * the other engines.
 *
 * Polling in Node goes through xmlhttprequest-ssl, which uses `agent: opts.agent || false`:
 * without an agent every poll opens a new TCP connection (ephemeral ports, TIME_WAIT). We
 * always pass an agent chosen on purpose and report it.
 *
 * Payload limit: WebSocket messages are bounded by ws's `maxPayload`, which socket.io-client
 * passes through. Polling responses are not bounded by socket.io-client at all in Node:
 * xmlhttprequest-ssl keeps the whole body (re-concatenating it on every chunk), so the limit
 * is applied in the agent we hand it, which cuts a response the moment it passes the limit.
 */
import { backoffDelayMs } from '../wire/backoff.js'
import http from 'node:http'
import https from 'node:https'
import { createRequire } from 'node:module'
import { Manager } from 'socket.io-client'
import { CLIENT_MODES, wireOf } from '../../lib/transports.js'
import { DEFAULT_MAX_PAYLOAD_BYTES, PAYLOAD_TOO_LARGE, WS_TOO_LARGE_CODE } from '../wire/limits.js'
import { connectorFor } from '../wire/source-ports.js'
import { timedConnector } from '../wire/tls/tls-time.js'
import { JAR_TRANSPORTS, SioCookieJar, hookClientV2, jarHeadersV2 } from '../sessions/sio-cookies.js'
import { ackTimeout } from '../../lib/errors.js'
import { cookieValue, mergeCookies, seedCookies } from '../sessions/cookie-jar.js'
import { onFirstUse } from '../../lib/lazy-require.js'

/** socket.io-msgpack-parser, for --parser msgpack only. */
const msgpackParser = /** @type {() => typeof import('socket.io-msgpack-parser')} */ (onFirstUse('socket.io-msgpack-parser'))

/**
 * @typedef {import('./types.js').EngineOptions} EngineOptions
 * @typedef {import('./types.js').SwarmEvents} SwarmEvents
 * @typedef {import('./types.js').Transport} Transport
 * @typedef {import('socket.io-client').Socket} Socket
 */

/**
 * socket.io-client's transport options for a requested mode.
 * @param {Transport} transport
 */
function transportOptions (transport) {
  // socket.io-client's transport names are ours (lib/transports.js); several = upgrade.
  const transports = [...CLIENT_MODES[transport]]
  return { transports, upgrade: transports.length > 1 }
}

/**
 * A client's own cookie jar (socket.io-client 4): the Manager's, so reconnects keep it.
 * @param {Transport} transport
 * @param {SioCookieJar} jar
 */
function jarOptions (transport, jar) {
  return { cookieJar: jar, transports: CLIENT_MODES[transport].map((name) => JAR_TRANSPORTS[name]) }
}

/**
 * socket.io-client 2's extraHeaders: the client's headers, and the Cookie header of its jar.
 * @param {import('../sessions/identity.js').ClientIdentity} identity
 * @param {SioCookieJar | null} jar null: no jar
 */
function v2Headers (identity, jar) {
  if (jar === null) return identity.headers ? { extraHeaders: identity.headers } : {}
  return { extraHeaders: jarHeadersV2(jar, identity.headers) }
}

/** Code of the error the agent destroys an oversized response with. */
const RESPONSE_TOO_LARGE_CODE = 'IOSWARM_RESPONSE_TOO_LARGE'

/**
 * Whether a socket.io-client transport error (a disconnect's details, a connect_error) was a
 * payload over the limit: ws's ErrorEvent carries its error; xmlhttprequest-ssl keeps the
 * error that ended the request as its statusText.
 * @param {unknown} error
 */
function isPayloadTooLarge (error) {
  const e = /** @type {{ description?: { error?: { code?: unknown } }, context?: { statusText?: { code?: unknown } } } | undefined} */ (error)
  return e?.description?.error?.code === WS_TOO_LARGE_CODE || e?.context?.statusText?.code === RESPONSE_TOO_LARGE_CODE
}

/**
 * Cuts every response on `agent` whose body passes `maxBytes` (declared or as it arrives):
 * the response is destroyed with an error socket.io-client reports as a transport error.
 * Hooking addRequest is what agent-base (the proxy agents) does; it runs after the request's
 * own 'response' callback, so xmlhttprequest-ssl still sees the error and fails the poll.
 * @param {http.Agent} agent
 * @param {number} maxBytes
 */
function limitResponses (agent, maxBytes) {
  const target = /** @type {http.Agent & { addRequest: (req: http.ClientRequest, options: object) => void }} */ (agent)
  const addRequest = target.addRequest
  target.addRequest = function (req, options) {
    req.once('response', (/** @type {http.IncomingMessage} */ res) => limitBody(res, maxBytes))
    return addRequest.call(this, req, options)
  }
}

/**
 * @param {http.IncomingMessage} res
 * @param {number} maxBytes
 */
function limitBody (res, maxBytes) {
  const tooLarge = () => res.destroy(Object.assign(new Error(`response body over ${maxBytes} bytes`), { code: RESPONSE_TOO_LARGE_CODE }))
  if (Number(res.headers['content-length']) > maxBytes) return tooLarge()
  let bytes = 0
  const onData = (/** @type {Buffer} */ chunk) => {
    bytes += chunk.length
    if (bytes <= maxBytes) return
    res.off('data', onData)
    tooLarge()
  }
  res.on('data', onData)
}

/**
 * A readable reason from a socket.io-client connect_error.
 * @param {Error & { description?: unknown, context?: unknown }} error
 */
function connectErrorReason (error) {
  if (isPayloadTooLarge(error)) return PAYLOAD_TOO_LARGE
  const description = /** @type {{ code?: string, message?: string, error?: { code?: string } } | undefined} */ (error.description)
  const detail = description?.code ?? description?.error?.code ?? (typeof description === 'number' ? `HTTP ${description}` : undefined)
  return detail ? `${error.message} (${detail})` : error.message
}

/** What a socket.io 2 namespace refusal says: its text, or an error's message. @param {unknown} error */
function refusalText (error) {
  return typeof error === 'string' ? error : String(/** @type {Error} */ (error)?.message ?? error)
}

export { PARSER_NAMES } from '../../lib/values/option-values.js'

/**
 * socket.io's `parser` option for a parser name: undefined = the default JSON parser.
 * Exported so that other engines (and servers) pick the very same msgpack implementation.
 * @param {string} name one of PARSER_NAMES
 */
function sioParser (name) {
  return name === 'msgpack' ? msgpackParser() : undefined
}

/** @type {import('./types.js').Engine} */
export const sioEngine = {
  name: 'sio',
  createPool (options, events) {
    const secure = options.url.startsWith('https:')
    const Agent = secure ? https.Agent : http.Agent
    const maxPayloadBytes = options.maxPayloadBytes ?? DEFAULT_MAX_PAYLOAD_BYTES
    const ports = options.sourcePorts
    // One shared agent: keep-alive reuses sockets across polls; maxSockets Infinity so no
    // hidden cap (the 2012 rig's http.globalAgent.maxSockets = 5 faked its server results).
    // With --source-address, one agent per address, whose every socket (polls, and the
    // WebSocket: engine.io-client hands the agent to ws) gets a source port of its own.
    const agents = (ports ? ports.addresses : [null]).map((_, a) => {
      const one = new Agent({ keepAlive: options.keepAlive, maxSockets: Infinity, ...(secure ? options.tls : null) })
      // Polling requests and the WebSocket (engine.io-client hands ws the agent) connect through it; TLS handshakes timed.
      const onTls = secure && events.secured ? events.secured : null
      if (ports) /** @type {any} */ (one).createConnection = connectorFor(ports, a, secure, { onTls })
      else if (onTls) /** @type {any} */ (one).createConnection = timedConnector(one.createConnection, onTls)
      limitResponses(one, maxPayloadBytes)
      return one
    })
    /** @type {object} ws's maxPayload: not in ManagerOptions' types, but engine.io-client passes it to ws */
    const wsLimit = { maxPayload: maxPayloadBytes }
    const namespaces = options.namespaces ?? [options.namespace]
    const nspIndex = new Map(namespaces.map((nsp, k) => [nsp, k]))
    /** Each client's sockets, one per namespace, on its own Manager. @type {(Socket[] | undefined)[]} */
    const clients = []
    /** Each client's cookie jar, kept across its connects (a login's cookies go in before the first). @type {(SioCookieJar | undefined)[]} */
    const jars = []
    const listenAll = options.events.includes('*')
    const wanted = new Set(options.events)
    const parser = sioParser(options.parser ?? 'json')
    const v2 = options.eio === 3
    const base = new URL(options.url)
    /** Every request of a client goes to this origin and path: what its cookie jar needs. */
    const cookieScope = { secure, host: base.hostname.replace(/^\[(.*)\]$/, '$1'), path: options.path }
    const nodeHeader = options.nodeHeader ? options.nodeHeader.toLowerCase() : null

    /**
     * Events of one namespace's socket, for socket.io-client 4 and 2 alike (2 has no onAny, no
     * disconnect details, and reports a refused namespace as 'error'). A transport that fails
     * before it opens reaches every socket of the Manager: counted once, by the first one.
     * @param {number} i
     * @param {Socket} socket
     * @param {any} manager
     * @param {string} nsp
     * @param {{ connectedBefore: boolean }} state
     */
    function watch (i, socket, manager, nsp, state) {
      const first = nsp === namespaces[0]
      socket.on('connect', () => {
        events.connected(i, wireOf(manager.engine.transport.name), nsp, socket.recovered === true)
        if (!first) return
        if (state.connectedBefore) events.reconnected(i)
        state.connectedBefore = true
      })
      socket.on('disconnect', (/** @type {string} */ reason, /** @type {unknown} */ details) => {
        events.disconnected(i, isPayloadTooLarge(details) ? PAYLOAD_TOO_LARGE : reason, nsp)
        // socket.io-client stays away after a server disconnect; many apps call connect() again.
        if (reason === 'io server disconnect' && options.reconnectOnServerDisconnect && options.reconnect !== false) {
          const again = () => {
            if (!clients[i]?.includes(socket)) return
            if (first) events.attempt(i)
            socket.connect()
          }
          setTimeout(again, backoffDelayMs(0, Math.random, options.backoff)).unref()
        }
      })
      socket.on('connect_error', (/** @type {Error} */ error) => {
        // While the Manager's transport is open, a connect_error is this namespace refusing. So
        // is an error made from a CONNECT_ERROR packet (socket.io-client sets its `data`): the
        // last namespace of a Manager to be refused closes the Manager before it tells its
        // socket, and was not counted at all.
        const refused = manager._readyState === 'open' || Object.hasOwn(error, 'data')
        if (refused || first) events.connectError(i, connectErrorReason(error), refused ? nsp : undefined)
      })
      // socket.io 2: a namespace the server refuses answers with 'error' and its text.
      if (v2) socket.on('error', (/** @type {unknown} */ error) => events.connectError(i, refusalText(error), nsp))
      if (v2) {
        // socket.io-client 2 has no onAny: every event passes through onevent.
        const raw = /** @type {any} */ (socket)
        /** @type {(packet: { data: unknown[] }) => unknown} */
        const onevent = raw.onevent
        raw.onevent = function (/** @type {{ data: unknown[] }} */ packet) {
          const [event, ...args] = packet.data
          if (listenAll || wanted.has(String(event))) events.message(i, String(event), args, nsp)
          else events.unmeasured(i, String(event))
          return onevent.call(this, packet)
        }
      } else if (listenAll) {
        socket.onAny((event, ...args) => events.message(i, String(event), args, nsp))
      } else {
        for (const event of options.events) socket.on(event, (...args) => events.message(i, event, args, nsp))
        socket.onAny((event) => { if (!wanted.has(event)) events.unmeasured(i, String(event)) })
      }
    }

    return {
      connect (i, transport) {
        const identity = options.identity?.(i) ?? {}
        // --node-from header:NAME: the jar reads it from the client's answers (without a jar, never).
        const node = nodeHeader === null ? null : { header: nodeHeader, tell: (/** @type {string} */ value) => events.node?.(i, value) }
        const jar = options.cookieJar === false ? null : (jars[i] ??= new SioCookieJar(cookieScope, undefined, node))
        if (jar !== null) jar.node = node
        // --cookie: set when the client (re)starts on purpose, as the lean engine does.
        if (jar !== null && identity.cookies) jar.jar = seedCookies(jar.jar, identity.cookies)
        // socket.io-client 2.5 for a socket.io 2.x server (Engine.IO v3): the v4 client refuses to talk to it.
        const ManagerClass = v2 ? loadClientV2().Manager : Manager
        const manager = new ManagerClass(options.url, {
          ...transportOptions(transport),
          ...(v2 || jar === null ? {} : jarOptions(transport, jar)),
          path: options.path,
          query: { ...options.query, ...identity.query },
          ...(v2 ? v2Headers(identity, jar) : identity.headers ? { extraHeaders: identity.headers } : {}),
          agent: /** @type {any} */ (agents[ports ? ports.addressOf(i) : 0]),
          reconnection: options.reconnect,
          ...(options.backoff
            ? { reconnectionDelay: options.backoff.minMs, reconnectionDelayMax: options.backoff.maxMs, randomizationFactor: options.backoff.jitter }
            : {}),
          autoConnect: false,
          ...wsLimit,
          // xmlhttprequest-ssl and ws pass their own rejectUnauthorized over the agent's.
          ...(secure && options.tls ? { rejectUnauthorized: options.tls.rejectUnauthorized } : {}),
          ...(parser ? { parser } : {})
        })
        manager.on('open', () => {
          events.opened?.(i)
          manager.engine.once('upgrade', () => events.upgraded(i))
        })
        manager.on('reconnect_attempt', () => events.attempt(i))
        const state = { connectedBefore: false }
        // Socket.IO v2 has no CONNECT payload: no auth.
        // With logins, socket.io-client asks for the auth at each CONNECT: a new login's token reaches the reconnect.
        const auth = options.freshAuth && options.identity !== undefined
          ? (/** @type {(data: object) => void} */ give) => {
              const identityOf = /** @type {NonNullable<typeof options.identity>} */ (options.identity)
              give(identityOf(i).auth ?? options.auth ?? {})
            }
          : identity.auth ?? options.auth ?? {}
        const sockets = namespaces.map((nsp) => /** @type {Socket} */ (v2 ? manager.socket(nsp) : manager.socket(nsp, { auth })))
        clients[i] = sockets
        sockets.forEach((socket, k) => watch(i, socket, manager, namespaces[k], state))
        events.attempt(i)
        for (const socket of sockets) v2 ? /** @type {any} */ (socket).open() : socket.connect()
      },

      disconnect (i) {
        for (const socket of clients[i] ?? []) socket.disconnect()
      },

      emit (i, nsp, event, args, callback, timeoutMs = 10000) {
        const socket = clients[i]?.[nspIndex.get(nsp) ?? -1]
        if (!socket?.connected) return false
        if (callback === undefined) socket.emit(event, ...args)
        else if (v2) emitWithTimeout(socket, event, args, callback, timeoutMs)
        else {
          /** @param {Error | null} error @param {unknown[]} answer */
          const acked = (error, ...answer) => callback(ackErrorOf(socket, error), answer)
          socket.timeout(timeoutMs).emit(event, ...args, acked)
        }
        return true
      },

      async close () {
        for (const sockets of clients) for (const socket of sockets ?? []) socket.disconnect()
        clients.length = 0
        // Polling clients send their close packet in a POST after disconnect(); let those
        // finish (bounded), then drop every kept-alive socket so the process can exit. A
        // server that holds long-polls open (python-socketio) makes engine.io-client send
        // requests after that: refused from then on, or they keep the process alive.
        await Promise.all(agents.map((agent) => waitForIdle(agent, 2000)))
        for (const agent of agents) {
          refuseRequests(agent)
          agent.destroy()
        }
      },

      agent () {
        return { keepAlive: options.keepAlive, maxSockets: null }
      },

      cookieOf (i, name) {
        const jar = jars[i]
        return jar ? cookieValue(jar.jar, name) : null
      },

      addCookies (i, cookies) {
        if (options.cookieJar === false) return
        const jar = jars[i] ??= new SioCookieJar(cookieScope, undefined)
        jar.jar = mergeCookies(jar.jar, cookies)
      },

      jarOf: (i) => jars[i]?.jar?.slice() ?? null
    }
  }
}

/**
 * socket.io-client 4's ack error, coded: it fails an ack in two ways, its timer (while the
 * socket is still connected) or the socket's disconnect (which marks it disconnected first).
 * @param {Socket} socket
 * @param {Error | null} error
 */
function ackErrorOf (socket, error) {
  if (error === null || error === undefined) return null
  return socket.connected ? ackTimeout() : error
}

/**
 * socket.io-client 2 has no emit timeout: an ack with a timer of our own.
 * @param {Socket} socket
 * @param {string} event
 * @param {unknown[]} args
 * @param {(error: Error | null, args: unknown[]) => void} callback
 * @param {number} timeoutMs
 */
function emitWithTimeout (socket, event, args, callback, timeoutMs) {
  let done = false
  const timer = setTimeout(() => { if (!done) { done = true; callback(ackTimeout(), []) } }, timeoutMs)
  timer.unref()
  socket.emit(event, ...args, (/** @type {unknown[]} */ ...answer) => {
    if (done) return
    done = true
    clearTimeout(timer)
    callback(null, answer)
  })
}

/** @type {any} */
let clientV2 = null

/** socket.io-client 2.5 (an npm alias of this package), loaded only for socket.io 2.x servers. */
function loadClientV2 () {
  if (clientV2 !== null) return clientV2
  const requireHere = createRequire(import.meta.url)
  clientV2 = requireHere('socket.io-client-v2')
  hookClientV2(createRequire(requireHere.resolve('socket.io-client-v2')))
  return clientV2
}

/**
 * From now on, every request through `agent` fails before it opens a socket: destroyed, and its
 * error told. A request destroyed before it has a socket emits nothing (Node emits the error
 * once a socket is assigned, and none ever is), so its owner (xmlhttprequest-ssl, under
 * engine.io-client) waited for ever, and with it a closing client's ping timer: the process
 * stayed up to pingInterval + pingTimeout (45 s by default) after the run.
 * @param {http.Agent} agent
 */
export function refuseRequests (agent) {
  const target = /** @type {http.Agent & { addRequest: (req: http.ClientRequest, options: object) => void }} */ (agent)
  target.addRequest = (req) => {
    const error = new Error('the swarm is closed')
    req.destroy(error)
    process.nextTick(() => {
      req.emit('error', error)
      req.emit('close')
    })
  }
}

/**
 * Resolves when the agent has no request in flight, or after `maxMs`.
 * @param {http.Agent} agent
 * @param {number} maxMs
 */
async function waitForIdle (agent, maxMs) {
  const deadline = Date.now() + maxMs
  const busy = () => Object.values(agent.sockets).some((list) => list && list.length > 0) || Object.keys(agent.requests).length > 0
  while (busy() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10))
}
