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
import { backoffDelayMs } from './lean/backoff.js'
import http from 'node:http'
import https from 'node:https'
import { createRequire } from 'node:module'
import { Manager } from 'socket.io-client'
import { CLIENT_MODES, wireOf } from '../../lib/transports.js'
import msgpackParser from 'socket.io-msgpack-parser'
import { DEFAULT_MAX_PAYLOAD_BYTES, PAYLOAD_TOO_LARGE, WS_TOO_LARGE_CODE } from './limits.js'

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

/** Code of the error the agent destroys an oversized response with. */
const RESPONSE_TOO_LARGE_CODE = 'IOSWARM_RESPONSE_TOO_LARGE'

/**
 * Whether a socket.io-client transport error (a disconnect's details, a connect_error) was a
 * payload over the limit: ws's ErrorEvent carries its error; xmlhttprequest-ssl keeps the
 * error that ended the request as its statusText.
 * @param {unknown} error
 */
export function isPayloadTooLarge (error) {
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
export function limitResponses (agent, maxBytes) {
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
export function connectErrorReason (error) {
  if (isPayloadTooLarge(error)) return PAYLOAD_TOO_LARGE
  const description = /** @type {{ code?: string, message?: string, error?: { code?: string } } | undefined} */ (error.description)
  const detail = description?.code ?? description?.error?.code ?? (typeof description === 'number' ? `HTTP ${description}` : undefined)
  return detail ? `${error.message} (${detail})` : error.message
}

export { PARSER_NAMES } from '../../lib/cli-options/simulate.js'

/**
 * socket.io's `parser` option for a parser name: undefined = the default JSON parser.
 * Exported so that other engines (and servers) pick the very same msgpack implementation.
 * @param {string} name one of PARSER_NAMES
 */
export function sioParser (name) {
  return name === 'msgpack' ? msgpackParser : undefined
}

/** @type {import('./types.js').Engine} */
export const sioEngine = {
  name: 'sio',
  createPool (options, events) {
    const Agent = options.url.startsWith('https:') ? https.Agent : http.Agent
    // One shared agent: keep-alive reuses sockets across polls; maxSockets Infinity so no
    // hidden cap (the 2012 rig's http.globalAgent.maxSockets = 5 faked its server results).
    const agent = new Agent({ keepAlive: options.keepAlive, maxSockets: Infinity })
    const maxPayloadBytes = options.maxPayloadBytes ?? DEFAULT_MAX_PAYLOAD_BYTES
    limitResponses(agent, maxPayloadBytes)
    /** @type {object} ws's maxPayload: not in ManagerOptions' types, but engine.io-client passes it to ws */
    const wsLimit = { maxPayload: maxPayloadBytes }
    /** @type {(Socket | undefined)[]} */
    const sockets = []
    const listenAll = options.events.includes('*')
    const wanted = new Set(options.events)
    const parser = sioParser(options.parser ?? 'json')

    /**
     * A client of a socket.io 2.x server (Engine.IO v3): socket.io-client 2.5, the client made
     * for it (the v3/v4 client refuses to talk to it). It has no onAny and no disconnect details.
     * @param {number} i
     * @param {Transport} transport
     */
    function connectV2 (i, transport) {
      const { Manager: ManagerV2 } = loadClientV2()
      const manager = new ManagerV2(options.url, {
        ...transportOptions(transport),
        path: options.path,
        query: options.query ?? {},
        agent,
        reconnection: options.reconnect,
        autoConnect: false,
        ...wsLimit,
        ...(parser ? { parser } : {})
      })
      const socket = manager.socket(options.namespace)
      sockets[i] = /** @type {Socket} */ (socket)
      let wasConnected = false
      manager.on('open', () => { manager.engine.once('upgrade', () => events.upgraded(i)) })
      manager.on('reconnect_attempt', () => events.attempt(i))
      socket.on('connect', () => {
        events.connected(i, wireOf(manager.engine.transport.name))
        if (wasConnected) events.reconnected(i)
        wasConnected = true
      })
      socket.on('disconnect', (/** @type {string} */ reason) => events.disconnected(i, reason))
      socket.on('connect_error', (/** @type {Error} */ error) => events.connectError(i, connectErrorReason(error)))
      // A namespace the server refuses: 'error' with its text (v2 has no CONNECT_ERROR).
      socket.on('error', (/** @type {unknown} */ error) => events.connectError(i, typeof error === 'string' ? error : String(/** @type {Error} */ (error)?.message ?? error)))
      const onevent = socket.onevent
      socket.onevent = function (/** @type {{ data: unknown[] }} */ packet) {
        const [event, ...args] = packet.data
        if (listenAll || wanted.has(String(event))) events.message(i, String(event), args)
        else events.unmeasured(i, String(event))
        return onevent.call(this, packet)
      }
      events.attempt(i)
      socket.open()
    }

    return {
      connect (i, transport) {
        if (options.eio === 3) return connectV2(i, transport)
        const manager = new Manager(options.url, {
          ...transportOptions(transport),
          path: options.path,
          query: options.query ?? {},
          agent: /** @type {any} */ (agent),
          reconnection: options.reconnect,
          autoConnect: false,
          ...wsLimit,
          ...(parser ? { parser } : {})
        })
        const socket = manager.socket(options.namespace, { auth: options.auth ?? {} })
        sockets[i] = socket
        let wasConnected = false
        manager.on('open', () => {
          manager.engine.once('upgrade', () => events.upgraded(i))
        })
        manager.on('reconnect_attempt', () => events.attempt(i))
        socket.on('connect', () => {
          events.connected(i, wireOf(manager.engine.transport.name))
          if (wasConnected) events.reconnected(i)
          wasConnected = true
        })
        socket.on('disconnect', (reason, details) => {
          events.disconnected(i, isPayloadTooLarge(details) ? PAYLOAD_TOO_LARGE : reason)
          // socket.io-client stays away after a server disconnect; many apps call connect() again.
          if (reason === 'io server disconnect' && options.reconnectOnServerDisconnect && options.reconnect !== false) {
            setTimeout(() => { if (sockets[i] === socket) { events.attempt(i); socket.connect() } }, backoffDelayMs(0)).unref()
          }
        })
        socket.on('connect_error', (error) => events.connectError(i, connectErrorReason(error)))
        if (listenAll) {
          socket.onAny((event, ...args) => events.message(i, event, args))
        } else {
          for (const event of options.events) socket.on(event, (...args) => events.message(i, event, args))
          socket.onAny((event) => { if (!wanted.has(event)) events.unmeasured(i, String(event)) })
        }
        events.attempt(i)
        socket.connect()
      },

      disconnect (i) {
        sockets[i]?.disconnect()
      },

      async close () {
        for (const socket of sockets) socket?.disconnect()
        sockets.length = 0
        // Polling clients send their close packet in a POST after disconnect(); let those
        // finish (bounded), then drop every kept-alive socket so the process can exit. A
        // server that holds long-polls open (python-socketio) makes engine.io-client send
        // requests after that: refused from then on, or they keep the process alive.
        await waitForIdle(agent, 2000)
        refuseRequests(agent)
        agent.destroy()
      },

      agent () {
        return { keepAlive: options.keepAlive, maxSockets: null }
      }
    }
  }
}

/** @type {any} */
let clientV2 = null

/** socket.io-client 2.5 (an npm alias of this package), loaded only for socket.io 2.x servers. */
function loadClientV2 () {
  clientV2 ??= createRequire(import.meta.url)('socket.io-client-v2')
  return clientV2
}

/**
 * From now on, every request through `agent` is destroyed before it opens a socket.
 * @param {http.Agent} agent
 */
function refuseRequests (agent) {
  const target = /** @type {http.Agent & { addRequest: (req: http.ClientRequest, options: object) => void }} */ (agent)
  target.addRequest = (req) => { req.destroy(new Error('the swarm is closed')) }
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
