/**
 * Engine `sio`: the real socket.io-client, one Manager per client (forceNew), so what the
 * server sees is exactly what a browser or Node app would do. The fidelity reference for
 * the other engines.
 *
 * Polling in Node goes through xmlhttprequest-ssl, which uses `agent: opts.agent || false`:
 * without an agent every poll opens a new TCP connection (ephemeral ports, TIME_WAIT). We
 * always pass an agent chosen on purpose and report it.
 */
import http from 'node:http'
import https from 'node:https'
import { Manager } from 'socket.io-client'
import msgpackParser from 'socket.io-msgpack-parser'

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
  if (transport === 'websocket') return { transports: ['websocket'], upgrade: false }
  if (transport === 'polling') return { transports: ['polling'], upgrade: false }
  return { transports: ['polling', 'websocket'], upgrade: true }
}

/**
 * A readable reason from a socket.io-client connect_error.
 * @param {Error & { description?: unknown, context?: unknown }} error
 */
export function connectErrorReason (error) {
  const description = /** @type {{ code?: string, message?: string, error?: { code?: string } } | undefined} */ (error.description)
  const detail = description?.code ?? description?.error?.code ?? (typeof description === 'number' ? `HTTP ${description}` : undefined)
  return detail ? `${error.message} (${detail})` : error.message
}

/** Socket.IO packet encodings a client can speak; the server must use the same one. */
export const PARSER_NAMES = Object.freeze(['json', 'msgpack'])

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
    /** @type {(Socket | undefined)[]} */
    const sockets = []
    const listenAll = options.events.includes('*')
    const parser = sioParser(options.parser ?? 'json')

    return {
      connect (i, transport) {
        const manager = new Manager(options.url, {
          ...transportOptions(transport),
          path: options.path,
          agent: /** @type {any} */ (agent),
          reconnection: options.reconnect,
          autoConnect: false,
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
          events.connected(i, manager.engine.transport.name === 'websocket' ? 'websocket' : 'polling')
          if (wasConnected) events.reconnected(i)
          wasConnected = true
        })
        socket.on('disconnect', (reason) => events.disconnected(i, reason))
        socket.on('connect_error', (error) => events.connectError(i, connectErrorReason(error)))
        if (listenAll) {
          socket.onAny((event, ...args) => events.message(i, event, args))
        } else {
          for (const event of options.events) socket.on(event, (...args) => events.message(i, event, args))
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
        // finish (bounded), then drop every kept-alive socket so the process can exit.
        await waitForIdle(agent, 2000)
        agent.destroy()
      },

      agent () {
        return { keepAlive: options.keepAlive, maxSockets: null }
      }
    }
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
