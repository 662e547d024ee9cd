/**
 * The engine interface: an engine opens and drives one kind of client (socket.io-client,
 * or the lean protocol implementation) and tells the swarm what happens through
 * SwarmEvents. Clients are identified by their index; the swarm keeps all counts.
 */

/**
 * @typedef {import('../../lib/options.js').Transport} Transport
 * @typedef {import('../../lib/transports.js').WireTransport} WireTransport
 */

/**
 * Callbacks an engine calls. All take the client index first.
 * @typedef {object} SwarmEvents
 * @property {(i: number) => void} attempt a connection attempt starts (first or reconnect)
 * @property {(i: number, wire: WireTransport) => void} connected the namespace CONNECT was acknowledged
 * @property {(i: number) => void} upgraded the transport was upgraded from polling to WebSocket
 * @property {(i: number, event: string, args: unknown[]) => void} message an event the swarm listens to arrived
 * @property {(i: number, event: string) => void} unmeasured an event it does not listen to (--event) arrived: only counted by name
 * @property {(i: number, reason: string) => void} disconnected a connected client lost its connection
 * @property {(i: number, reason: string) => void} connectError an attempt failed
 * @property {(i: number) => void} reconnected a client connected again after a disconnect
 */

/**
 * @typedef {object} EngineOptions
 * @property {string} url http(s) base URL of the server
 * @property {string} path Engine.IO path, e.g. '/socket.io/'
 * @property {string} namespace e.g. '/'
 * @property {string[]} events events to record; '*' records every event
 * @property {boolean} keepAlive HTTP keep-alive for polling requests
 * @property {boolean} reconnect reconnect with the engine's backoff after a disconnect
 * @property {Record<string, unknown>} [auth] handshake auth payload
 * @property {string} [parser] Socket.IO packet encoding: 'json' (default) or 'msgpack'
 * @property {Record<string, string>} [query] query parameters of every handshake request (the URL's query string)
 * @property {boolean} [reconnectOnServerDisconnect] reconnect (after the backoff) when the server disconnects a client on purpose
 * @property {3 | 4} [eio] Engine.IO protocol version of the server (3: socket.io 2.x); default 4
 * @property {number} [maxPayloadBytes] largest WebSocket message or polling response body a client accepts
 *   (default DEFAULT_MAX_PAYLOAD_BYTES in limits.js); a bigger one closes the client with reason PAYLOAD_TOO_LARGE
 * @property {'ws' | 'builtin'} [wsClient] the lean engine's WebSocket client (the sio engine has its own)
 */

/**
 * @typedef {object} EnginePool
 * @property {(i: number, transport: Transport) => void} connect open client i
 * @property {(i: number) => void} disconnect close client i on purpose (no reconnect)
 * @property {() => Promise<void>} close close every client and free shared resources
 * @property {() => { keepAlive: boolean, maxSockets: number | null }} agent the HTTP agent polling uses
 */

/**
 * @typedef {object} Engine
 * @property {string} name
 * @property {(options: EngineOptions, events: SwarmEvents) => EnginePool} createPool
 */

export {}
