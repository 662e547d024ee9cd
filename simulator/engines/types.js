/**
 * The engine interface: an engine opens and drives one kind of client (socket.io-client,
 * the lean protocol implementation, or a plain WebSocket client: engine `websocket`) and tells the swarm what happens through
 * SwarmEvents. Clients are identified by their index; the swarm keeps all counts.
 */

/**
 * @typedef {import('../../lib/values/parsers.js').Transport} Transport
 * @typedef {import('../../lib/transports.js').WireTransport} WireTransport
 */

/**
 * Callbacks an engine calls. All but `secured` take the client index first.
 * @typedef {object} SwarmEvents
 * @property {(i: number) => void} attempt a connection attempt starts (first or reconnect)
 * @property {(i: number, wire: WireTransport, nsp?: string, recovered?: boolean) => void} connected namespace `nsp` (default: the first one) acknowledged the CONNECT; `recovered`: the server restored the session (connection state recovery)
 * @property {(i: number) => void} [opened] the Engine.IO open packet arrived: the server accepted the handshake (before any namespace CONNECT)
 * @property {(i: number) => void} upgraded the transport was upgraded from polling to WebSocket
 * @property {(i: number, event: string, args: unknown[], nsp?: string) => void} message an event the swarm listens to arrived on namespace `nsp`
 * @property {(i: number, event: string) => void} unmeasured an event it does not listen to (--event) arrived: only counted by name
 * @property {(i: number, reason: string, nsp?: string) => void} disconnected namespace `nsp` of a client lost its connection (a lost transport: once per connected namespace)
 * @property {(i: number, reason: string, nsp?: string) => void} connectError an attempt failed; with `nsp`, that namespace refused the client
 * @property {(i: number) => void} reconnected a client connected again after a disconnect
 * @property {(tlsMs: number) => void} [secured] a TLS connection of the swarm finished its handshake, `tlsMs` after its TCP connection
 *   was up (https:// and wss://: every connection, polling POSTs and shared agents included, so no client index)
 * @property {(i: number, value: string) => void} [node] a response of client i's handshake carried the node header (--node-from header:NAME)
 */

/**
 * @typedef {object} EngineOptions
 * @property {string} url http(s) base URL of the server
 * @property {string} path Engine.IO path, e.g. '/socket.io/'
 * @property {string} namespace e.g. '/': the first of `namespaces`
 * @property {string[]} [namespaces] every namespace each client joins over its one connection (default: [namespace])
 * @property {string[]} events events to record; '*' records every event
 * @property {boolean} keepAlive HTTP keep-alive for polling requests
 * @property {boolean} reconnect reconnect with the engine's backoff after a disconnect
 * @property {Record<string, unknown>} [auth] handshake auth payload
 * @property {string} [parser] Socket.IO packet encoding: 'json' (default) or 'msgpack'
 * @property {Record<string, string>} [query] query parameters of every handshake request (the URL's query string)
 * @property {(i: number) => import('../sessions/identity.js').ClientIdentity} [identity] client i's own auth, query and headers (--auth, --query, --header); rendered at each connection
 * @property {boolean} [freshAuth] the sio engine renders client i's auth at each CONNECT (reconnects too), not once per
 *   Manager: a new login's {{login.FIELD}} reaches the next attempt (the lean engine renders every attempt anyway)
 * @property {{ minMs: number, maxMs: number, jitter: number }} [backoff] reconnection delays (socket.io-client's reconnectionDelay, reconnectionDelayMax, randomizationFactor); default its defaults
 * @property {boolean} [reconnectOnServerDisconnect] reconnect (after the backoff) when the server disconnects a client on purpose
 * @property {() => number} [reconnectGate] --ramp-guard's reconnect cap, asked right before a reconnect attempt: 0 to go now, else the ms to wait
 *   (the attempt then goes after that wait without asking again). The lean and websocket engines ask it; socket.io-client paces its own
 * @property {3 | 4} [eio] Engine.IO protocol version of the server (3: socket.io 2.x); default 4
 * @property {number} [maxPayloadBytes] largest WebSocket message or polling response body a client accepts
 *   (default DEFAULT_MAX_PAYLOAD_BYTES in limits.js); a bigger one closes the client with reason PAYLOAD_TOO_LARGE
 * @property {'ws' | 'builtin'} [wsClient] the WebSocket client of the lean and websocket engines (the sio engine has its own)
 * @property {'builtin' | 'undici'} [httpClient] the lean engine's polling HTTP client: builtin (default for http://) or undici (always for https://)
 * @property {string[]} [subprotocols] plain WebSocket (engine websocket): subprotocols offered in the handshake
 * @property {import('../wire/source-ports.js').SourcePorts} [sourcePorts] --source-address: open every connection from these
 *   addresses and explicit source ports (client i from sourcePorts.addressOf(i))
 * @property {import('../../lib/input/tls-trust.js').TlsTrust | null} [tls] trust for https:// and wss:// (--ca, --insecure); null: Node's defaults
 * @property {boolean} [cookieJar] each client keeps the cookies responses set and sends them back (default true;
 *   false only to show what a cookie-sticky balancer does to clients without one)
 * @property {string | null} [nodeHeader] --node-from header:NAME: the response header (any case) naming the node that
 *   served a client's handshake, read from the first polling GET's answer and the WebSocket 101, told through `events.node`
 * @property {[string, string][]} [match] plain WebSocket: measure only JSON messages whose field (dot path) has this value
 */

/**
 * @typedef {object} EnginePool
 * @property {(i: number, transport: Transport) => void} connect open client i
 * @property {(i: number) => void} disconnect close client i on purpose (no reconnect)
 * @property {(i: number, nsp: string, event: string, args: unknown[], callback?: (error: Error | null, args: unknown[]) => void, timeoutMs?: number,
 *   wantsArgs?: boolean, encoded?: string | null) => boolean} emit
 *   client i emits `event` on namespace `nsp`; with `callback` it asks for an ack, and the callback gets the ack's
 *   arguments, or an error after `timeoutMs` (default 10 s) or when the connection ends first. False when client i
 *   is not connected to `nsp` (nothing was sent). wantsArgs false: the caller does not read the ack's arguments, and
 *   an engine may hand it [] instead of decoding them. encoded: `args` as JSON.stringify writes them, without the
 *   brackets (`{"a":1},2`), made once by the caller for a constant template: an engine that writes text may send it
 *   instead of encoding `args` again (the others ignore it)
 * @property {() => Promise<void>} close close every client and free shared resources
 * @property {() => { keepAlive: boolean, maxSockets: number | null }} agent the HTTP agent polling uses
 * @property {(i: number, name: string) => string | null} [cookieOf] the value of cookie `name` in client i's jar (--node-from cookie:NAME)
 * @property {(i: number, cookies: import('../sessions/cookie-jar.js').Jar) => void} [addCookies] a login's cookies into client i's jar
 *   (before its first connect too: the jar is made then)
 * @property {(i: number) => import('../sessions/cookie-jar.js').Jar} [jarOf] a copy of client i's jar (what a login sends again)
 */

/**
 * @typedef {object} Engine
 * @property {string} name
 * @property {(options: EngineOptions, events: SwarmEvents) => EnginePool} createPool
 */

export {}
