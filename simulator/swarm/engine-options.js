/**
 * What an engine is given (EngineOptions, simulator/engines/types.js), built from a swarm's
 * normalised options and what the swarm decided before opening its pool: the namespaces, the
 * events it listens to, each client's identity, the server's Engine.IO version.
 */

import { tlsTrust } from '../../lib/input/tls-trust.js'

/**
 * @typedef {Omit<import('../engines/types.js').EngineOptions, 'url'>} PoolOptions every destination's engine options but its URL
 */

/**
 * @param {import('../sim-options.js').SimOptions} options normalised
 * @param {object} swarm
 * @param {string[]} swarm.namespaces every namespace each client joins
 * @param {string[]} swarm.events the events the clients hand to the swarm ('*': every one)
 * @param {((i: number) => import('../sessions/identity.js').ClientIdentity) | undefined} swarm.identity rendered at each attempt (handshakeIdentity)
 * @param {3 | 4 | null} swarm.eio the server's Engine.IO version (null: a plain WebSocket server)
 * @param {boolean} [swarm.freshAuth] clients log in (--login): their auth is rendered at each CONNECT, a new login's {{login.FIELD}} with it
 * @returns {PoolOptions}
 */
export function engineOptions (options, { namespaces, events, identity, eio, freshAuth = false }) {
  return {
    path: options.path,
    namespace: options.namespace,
    namespaces,
    events,
    keepAlive: options.keepAlive,
    reconnect: options.reconnect,
    reconnectOnServerDisconnect: options.reconnectOnServerDisconnect,
    backoff: spreadBackoff(options.reconnectSpreadMs),
    parser: options.parser,
    maxPayloadBytes: options.maxPayloadBytes,
    wsClient: options.wsClient ?? undefined,
    httpClient: options.httpClient ?? undefined,
    eio: eio ?? undefined,
    query: options.query,
    identity,
    freshAuth,
    subprotocols: options.subprotocols,
    match: options.match,
    tls: tlsTrust(options),
    nodeHeader: options.nodeFrom?.kind === 'header' ? options.nodeFrom.name : null
  }
}

/**
 * Reconnection delays for --reconnect-spread: socket.io-client's formula with reconnectionDelay
 * half the window and randomizationFactor 1 (the first attempt waits 0 … the window), the max
 * the window (at least socket.io-client's 5 s). Undefined: its defaults.
 * @param {number | null | undefined} spreadMs
 */
export function spreadBackoff (spreadMs) {
  return spreadMs ? { minMs: spreadMs / 2, maxMs: Math.max(5000, spreadMs), jitter: 1 } : undefined
}
