/**
 * The life of every lean client in one pool: connect, Engine.IO open, namespace CONNECT,
 * heartbeat deadlines, upgrade from polling, failures and reconnection with
 * socket.io-client's backoff. One object for the whole pool; clients are small records.
 */
import { STATE, WIRE, Client } from './client.js'
import { DeadlineSweeper } from '../../wire/scheduler.js'
import { stopWaiting } from '../../wire/state.js'
import { FrameCache } from '../../wire/frame-cache.js'
import { backoffDelayMs, reconnectOrDefer } from '../../wire/backoff.js'
import { parseOpen, encodeConnect, encodeDisconnect } from './codec.js'
import { openWebSocket } from './websocket-transport/websocket.js'
import { closePolling } from './polling/polling.js'
import { BY_WIRE, transports } from './transports.js'
import { CLIENT_MODES } from '../../../lib/transports.js'
import { afterPoll, onProbeAnswered, onProbeFailed } from './websocket-transport/upgrade.js'
import { PAYLOAD_TOO_LARGE } from '../../wire/limits.js'
import { emit, expireAcks, failAcks } from './namespaces.js'
import { seedCookies } from '../../sessions/cookie-jar.js'
import { timedTlsConnect } from '../../wire/tls/tls-time.js'
import { TlsClient } from '../../wire/tls/tls-client.js'

export class LeanSession {
  /**
   * @param {import('./config.js').LeanConfig} config
   * @param {import('../types.js').SwarmEvents} events
   */
  constructor (config, events) {
    this.config = config
    this.events = events
    this.nsp = config.nsp
    /** Every namespace each client joins (several: multiplexed on its one session). */
    this.nsps = config.nsps
    this.nspIndex = new Map(config.nsps.map((nsp, k) => [nsp, k]))
    this.allNamespaces = 2 ** config.nsps.length - 1
    /** Engine.IO v3 / Socket.IO v2 (socket.io 2.x servers): client pings, length-prefixed polling, implicit '/'. */
    this.eio3 = config.eio === 3
    this.wanted = config.wanted
    this.maxPayloadBytes = config.maxPayloadBytes
    /** @type {import('ws').ClientOptions} */
    /** @type {((tlsMs: number) => void) | null} each TLS connection's handshake time, to the swarm (wss://, https://) */
    this.onTls = config.secure && events.secured ? events.secured : null
    this.wsOptions = {
      perMessageDeflate: config.perMessageDeflate,
      maxPayload: config.maxPayloadBytes,
      ...config.tls,
      ...(this.onTls ? { createConnection: timedTlsConnect(this.onTls) } : {})
    }
    /** The built-in WebSocket client's TLS (wss://): one context, SNI and the latest session ticket for every client's connections. */
    this.tlsClient = config.secure && !config.wsLibrary ? new TlsClient({ host: config.host, trust: config.tls, onTls: this.onTls }) : null
    this.origin = `${config.secure ? 'https' : 'http'}://${config.host.includes(':') ? `[${config.host}]` : config.host}:${config.port}`
    /** Polling connections: no undici timeouts (a long poll lasts a ping interval; the ping deadline notices a dead server), keep-alive kept as long as the server allows. */
    /** @type {object | null} the same with a connector that times TLS handshakes (made on the first polling request: undici is loaded then) */
    this.timedHttpOptions = null
    this.httpOptions = {
      pipelining: 1,
      headersTimeout: 0,
      bodyTimeout: 0,
      keepAliveTimeout: 30000,
      keepAliveMaxTimeout: 600000,
      ...(config.tls ? { connect: { ...config.tls } } : {})
    }
    /** @type {(import('undici').Pool | undefined)[]} connections for POSTs, shared (they are short): one pool per source address */
    this.postPools = []
    this.cache = new FrameCache()
    this.sweeper = new DeadlineSweeper((i) => this.onDeadline(i), config.heartbeatTickMs)
    /** Each client's earliest ack deadline (a lower bound): one timer for every emit's ack timeout; it keeps no process alive. */
    this.ackSweeper = new DeadlineSweeper((i) => expireAcks(this, this.clients[i]), config.heartbeatTickMs, { unref: true })
    /** @type {Client[]} */
    this.clients = []
    /** Open sockets and requests, so closing the pool can wait for them. */
    this.handles = 0
    /** @type {(() => void) | null} */
    this.onIdle = null
    /** @type {(import('./polling/post-pool.js').PostPool | undefined)[]} the built-in HTTP client's POST pools, one per source address */
    this.builtinPostPools = []
    /** @type {string | undefined} request header lines of clients without headers or cookies (the built-in HTTP client) */
    this.headerLines = undefined
    /** @type {string | undefined} the rest of a poll GET after its path, for those clients */
    this.getTail = undefined
    /** Cache-busting stamp of the last poll. */
    this.stamp = 0
    this.handleClosed = () => this.onHandleClosed()
    /** Engine.IO v3 heartbeat, from the open packet (the same for every client of one server). */
    this.pingIntervalMs = 25000
    this.pingTimeoutMs = 20000
  }

  /**
   * @param {number} i
   * @param {import('../../../lib/values/parsers.js').Transport} mode
   */
  connect (i, mode) {
    let c = this.clients[i]
    if (c === undefined) c = this.clients[i] = new Client(i, mode)
    else if (c.state !== STATE.IDLE) return
    c.mode = mode
    c.pid = c.offset = ''
    c.attempts = 0
    c.reconnecting = false
    c.paced = false
    this.startAttempt(c)
  }

  /** @param {Client} c */
  startAttempt (c) {
    c.state = STATE.OPENING
    c.sid = ''
    const invalid = this.config.identity === undefined ? null : this.applyIdentity(c, this.config.identity(c.i))
    this.sweeper.setIn(c.i, this.config.connectTimeoutMs)
    const gen = c.gen
    this.events.attempt(c.i)
    if (c.gen !== gen || c.state !== STATE.OPENING) return
    // Its own data would split a request (a feeder row, an env or login value with a line break): it fails, and would again.
    if (invalid !== null) return this.end(c, invalid, false, false)
    const first = transports[CLIENT_MODES[c.mode][0]]
    c.wire = first.wire
    first.open(this, c)
  }

  /**
   * This attempt's own query parameters, headers and auth (--query, --header, --auth).
   * @param {Client} c
   * @param {import('../../sessions/identity.js').ClientIdentity} identity
   * @returns {string | null} why the attempt cannot be made: a header or cookie value with a line break (CR or LF); null when it can
   */
  applyIdentity (c, identity) {
    let suffix = ''
    if (identity.query !== undefined) for (const key in identity.query) suffix += `&${encodeURIComponent(key)}=${encodeURIComponent(identity.query[key])}`
    c.querySuffix = suffix
    c.headers = identity.headers ?? null
    c.auth = identity.auth
    // --cookie: set when the client (re)starts on purpose; a reconnect keeps what the server set since.
    if (identity.cookies !== undefined && !c.reconnecting) c.cookies = seedCookies(c.cookies, identity.cookies)
    return lineBreakIn(identity.headers, '--header') ?? lineBreakIn(identity.cookies, '--cookie')
  }

  /**
   * The Engine.IO open packet: heartbeat window, namespace CONNECT, upgrade probe.
   * @param {Client} c
   * @param {string} text
   */
  onOpen (c, text) {
    if (c.state !== STATE.OPENING) return
    const info = parseOpen(text)
    if (info === null) return this.fail(c, 'parse error')
    c.sid = info.sid
    c.pingWindowMs = info.pingIntervalMs + info.pingTimeoutMs
    c.state = STATE.OPEN
    c.attempts = 0
    const gen = c.gen
    this.events.opened?.(c.i)
    if (c.gen !== gen) return
    if (this.eio3) {
      // The client pings every pingInterval and waits pingTimeout for the pong. Socket.IO v2
      // connects '/' by itself; other namespaces are asked for, with no payload (no auth in v2).
      c.pingPending = false
      this.pingIntervalMs = info.pingIntervalMs
      this.pingTimeoutMs = info.pingTimeoutMs
      this.sweeper.setIn(c.i, info.pingIntervalMs)
      for (const nsp of this.nsps) if (nsp !== '/') this.send(c, encodeConnect(nsp, undefined))
    } else {
      this.sweeper.setIn(c.i, c.pingWindowMs)
      // Connection state recovery (pid/offset) is kept for the first namespace.
      for (let k = 0; k < this.nsps.length; k++) this.send(c, encodeConnect(this.nsps[k], k === 0 ? this.connectData(c) : c.auth ?? this.config.auth))
    }
    // A mode of several transports upgrades to the next one the server offers (upgrade.js).
    const next = CLIENT_MODES[c.mode][1]
    if (next === 'websocket' && info.upgrades.includes(next)) openWebSocket(this, c, true)
    if (c.reconnecting) {
      // socket.io-client counts a reconnection when the Engine.IO session reopens.
      c.reconnecting = false
      if (c.gen === gen) this.events.reconnected(c.i)
    }
  }

  /**
   * CONNECT payload: the auth, plus pid/offset to recover a connection-state-recovery session.
   * @param {Client} c
   * @returns {Record<string, unknown> | undefined}
   */
  connectData (c) {
    const auth = c.auth ?? this.config.auth
    if (c.pid === '') return auth
    return c.offset === '' ? { pid: c.pid, ...auth } : { pid: c.pid, offset: c.offset, ...auth }
  }

  /**
   * Engine.IO v3: the server answered the client's ping; the next one goes after pingInterval.
   * @param {Client} c
   */
  onPong (c) {
    if (!this.eio3 || !c.pingPending || (c.state !== STATE.OPEN && c.state !== STATE.CONNECTED)) return
    c.pingPending = false
    this.sweeper.setIn(c.i, this.pingIntervalMs)
  }

  /** @param {Client} c */
  onPing (c) {
    if (c.state !== STATE.OPEN && c.state !== STATE.CONNECTED) return
    this.sweeper.setIn(c.i, c.pingWindowMs)
    this.send(c, '3')
  }

  /**
   * @param {Client} c
   * @param {string} packet
   */
  send (c, packet) {
    BY_WIRE[c.wire]?.send(this, c, packet)
  }

  /**
   * Client c's backoff is over: it tries again, unless --ramp-guard's cap defers it (once).
   * @param {Client} c
   */
  reconnect (c) {
    reconnectOrDefer(this, c)
  }

  /** @param {number} i */
  onDeadline (i) {
    const c = this.clients[i]
    if (c === undefined) return
    if (c.state === STATE.WAITING) this.reconnect(c)
    else if (c.state === STATE.OPENING) this.end(c, 'timeout', true, false)
    else if ((c.state === STATE.OPEN || c.state === STATE.CONNECTED) && this.eio3 && !c.pingPending) {
      c.pingPending = true
      this.sweeper.setIn(i, this.pingTimeoutMs)
      this.send(c, '2')
    } else if (c.state === STATE.OPEN || c.state === STATE.CONNECTED) this.end(c, 'ping timeout', true, false)
  }

  /**
   * A transport failed or closed under the session.
   * @param {Client} c
   * @param {string} reason 'transport close', 'websocket error', 'xhr poll error', 'xhr post error', PAYLOAD_TOO_LARGE
   */
  onTransportLost (c, reason) {
    // Before the open packet socket.io-client reports the transport's error; after it, 'transport error'.
    // A payload over the limit keeps its own reason (the sio engine reports it the same way), and
    // reconnects like any transport error: after the backoff delay, never in a tight loop.
    const opened = c.state === STATE.OPEN || c.state === STATE.CONNECTED
    const generic = opened && reason !== 'transport close' && reason !== PAYLOAD_TOO_LARGE
    this.end(c, generic ? 'transport error' : reason, true, false)
  }

  /**
   * Malformed input: the client is closed like socket.io-client closes on a parse error.
   * @param {Client} c
   * @param {string} reason
   */
  fail (c, reason) {
    this.end(c, reason, true, false)
  }

  /**
   * Ends client c's session and tells the swarm; waits to reconnect when allowed.
   * @param {Client} c
   * @param {string} reason
   * @param {boolean} retry the end was not on purpose (socket.io-client would reconnect)
   * @param {boolean} graceful close the transports politely
   * @param {string} [refusedBy] the namespace that refused the client, when that is why
   */
  end (c, reason, retry, graceful, refusedBy) {
    if (c.state === STATE.IDLE || c.state === STATE.WAITING) return
    const up = this.stop(c, graceful)
    if (retry && this.config.reconnect) {
      c.state = STATE.WAITING
      c.reconnecting = true
      this.sweeper.setIn(c.i, backoffDelayMs(c.attempts++, Math.random, this.config.backoff))
    }
    if (up === 0) this.events.connectError(c.i, reason, refusedBy)
    else this.dropped(c.i, up, reason)
  }

  /**
   * Tells the swarm that each namespace in `up` was lost.
   * @param {number} i
   * @param {number} up bits of the namespaces that were connected
   * @param {string} reason
   */
  dropped (i, up, reason) {
    for (let k = 0; k < this.nsps.length; k++) if (up & (1 << k)) this.events.disconnected(i, reason, this.nsps[k])
  }

  /**
   * The client's own emit (EnginePool.emit).
   * @param {number} i
   * @param {string} nsp
   * @param {string} event
   * @param {unknown[]} args
   * @param {((error: Error | null, args: unknown[]) => void) | undefined} callback
   * @param {number} timeoutMs
   * @param {boolean} wantsArgs
   * @param {string | null} encoded args as JSON, made by the caller (null: encoded here)
   */
  emit (i, nsp, event, args, callback, timeoutMs, wantsArgs, encoded) {
    return emit(this, i, nsp, event, args, callback, timeoutMs, wantsArgs, encoded)
  }

  /**
   * Frees client c's transports and deadline, leaving it idle.
   * @param {Client} c
   * @param {boolean} graceful
   * @returns {number} bits of the namespaces that were connected (0: none)
   */
  stop (c, graceful) {
    const up = c.state === STATE.CONNECTED ? c.up : 0
    c.up = c.refused = 0
    failAcks(c, -1, 'disconnected')
    c.gen++
    c.state = STATE.IDLE
    this.sweeper.clear(c.i)
    if (c.ws !== null) c.ws.shut(graceful)
    if (c.probe !== null) c.probe.shut(false)
    c.ws = c.probe = null
    if (c.wire === WIRE.POLLING || c.getReq !== null || c.postReq !== null) closePolling(this, c, graceful && c.wire === WIRE.POLLING)
    c.wire = WIRE.NONE
    c.sid = ''
    c.binary = c.early = null
    c.pausing = false
    return up
  }

  /** @param {number} i */
  disconnect (i) {
    const c = this.clients[i]
    if (c === undefined || stopWaiting(this.sweeper, c) || c.state === STATE.IDLE) return
    if (c.state === STATE.CONNECTED) for (let k = 0; k < this.nsps.length; k++) if (c.up & (1 << k)) this.send(c, encodeDisconnect(this.nsps[k]))
    this.dropped(i, this.stop(c, true), 'io client disconnect')
  }

  /** @param {Client} c a poll finished: poll again, or complete a pending upgrade */
  afterPoll (c) {
    afterPoll(this, c)
  }

  /** @param {Client} c the upgrade probe answered `3probe` */
  onProbeAnswered (c) {
    onProbeAnswered(this, c)
  }

  /** @param {Client} c the upgrade probe failed */
  onProbeFailed (c) {
    onProbeFailed(this, c)
  }

  onHandleClosed () {
    if (--this.handles === 0 && this.onIdle !== null) this.onIdle()
  }
}

/**
 * The reason a client's rendered headers or cookies cannot be sent: a value with CR or LF
 * would end the header line and start another of the client's making (header injection, or
 * a request split in two), which no HTTP client sends. Checked per attempt: the templates are
 * checked when the options are, but a value they render (a feeder row, {{env.X}}, {{login.X}})
 * is known only now.
 * @param {Readonly<Record<string, string>> | undefined} values
 * @param {string} flag
 * @returns {string | null}
 */
function lineBreakIn (values, flag) {
  if (values === undefined) return null
  for (const name in values) if (/[\r\n]/.test(name + values[name])) return `${flag} ${name}: its value for this client has a line break (CR or LF), not sent`
  return null
}
