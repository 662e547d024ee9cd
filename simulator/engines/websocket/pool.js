/**
 * The life of every plain WebSocket client in one pool: open, send --send-on-open's message,
 * the first round trip, messages, and reconnection with the lean engine's backoff after any
 * close. One object for the whole pool; clients are small records without timers (deadlines
 * live in one DeadlineSweeper) and sockets carry their client, so handlers are shared.
 *
 * A client counts as connected after its first round trip, not at the handshake: once open it
 * sends its --send-on-open message, then a ping, and is connected when the pong (or any
 * message) comes back. A server that turns clients away after accepting the handshake (a
 * close 1008 on a bad token) does it in that round trip, as a Socket.IO server refuses in its
 * CONNECT ack, so such a client is a refusal, counted with the close code and reason, never
 * a connected client. A server that never answers pings has its clients counted connected
 * when the connect timeout passes.
 */
import { DeadlineSweeper } from '../../wire/scheduler.js'
import { stopWaiting } from '../../wire/state.js'
import { FrameCache } from '../../wire/frame-cache.js'
import { backoffDelayMs, reconnectOrDefer } from '../../wire/backoff.js'
import { WEBSOCKET_EVENT } from '../../../lib/values/option-values.js'
import { decodeInto } from './decode.js'
import { CLIENT_CLOSE, CONNECT_TIMEOUT, endReason } from './reasons.js'
import { PlainWsSocket } from './ws-socket.js'
import { PlainRawSocket } from './raw-socket.js'
import { TlsClient } from '../../wire/tls/tls-client.js'
import { PlainClient, STATE } from './client.js'
import { addCookieHeader, clientCookieHeader, storeCookies, storeHeadCookies } from '../../sessions/cookie-jar.js'
import { querySuffix } from '../../sessions/identity.js'

/** @typedef {import('./client.js').PlainSocket} PlainSocket */

export class PlainPool {
  /**
   * @param {import('./config.js').PlainConfig} config
   * @param {import('../types.js').SwarmEvents} events
   */
  constructor (config, events) {
    this.config = config
    this.events = events
    this.maxPayloadBytes = config.maxPayloadBytes
    /** @type {import('ws').ClientOptions} no permessage-deflate offered: the lean engine's default, and far less memory per client */
    this.wsOptions = { perMessageDeflate: false, maxPayload: config.maxPayloadBytes, ...config.tls }
    /** The built-in client's TLS (wss://): one context, SNI and the latest session ticket for every connection. */
    this.tlsClient = config.secure && !config.wsLibrary ? new TlsClient({ host: config.host, trust: config.tls }) : null
    /** Decode once: a broadcast reaches every client as the same frame (text and binary apart). */
    this.textCache = new FrameCache()
    this.binaryCache = new FrameCache()
    this.sweeper = new DeadlineSweeper((i) => this.onDeadline(i), config.heartbeatTickMs)
    /** @type {PlainClient[]} */
    this.clients = []
    /** Each client's cookies (--cookie, its login's, its 101 answers'), sent on each upgrade; kept by index, as a login fills it before the client exists. @type {import('../../sessions/cookie-jar.js').Jar[]} */
    this.jars = []
    /** Open sockets, so closing the pool can wait for them. */
    this.handles = 0
    /** @type {(() => void) | null} */
    this.onIdle = null
  }

  /** @param {number} i */
  connect (i) {
    let c = this.clients[i]
    if (c === undefined) c = this.clients[i] = new PlainClient(i)
    else if (c.state !== STATE.IDLE) return
    c.attempts = 0
    c.reconnecting = false
    c.paced = false
    this.startAttempt(c)
  }

  /** @param {PlainClient} c */
  startAttempt (c) {
    c.state = STATE.OPENING
    const identity = this.config.identity?.(c.i)
    this.sweeper.setIn(c.i, this.config.connectTimeoutMs)
    const gen = c.gen
    this.events.attempt(c.i)
    if (c.gen !== gen || c.state !== STATE.OPENING) return
    const suffix = querySuffix(identity?.query, this.config.querySeparator)
    const headers = this.upgradeHeaders(c, identity)
    c.openMessage = identity?.openMessage ?? null
    c.ws = this.config.wsLibrary
      ? new PlainWsSocket(`${this.config.url}${suffix}`, this.config.subprotocols, headers === null ? this.wsOptions : { ...this.wsOptions, headers }, this, c)
      : new PlainRawSocket(this, c, `${this.config.path}${suffix}`, headers)
    this.handles++
  }

  /**
   * Client c's headers for its upgrade: --header, and its jar's cookies (--cookie is set when
   * the client starts on purpose; a reconnect keeps what the server set since). Null when none.
   * @param {PlainClient} c
   * @param {import('../../sessions/identity.js').ClientIdentity | undefined} identity
   * @returns {Record<string, string> | null}
   */
  upgradeHeaders (c, identity) {
    const headers = identity?.headers ?? null
    if (!this.config.cookieJar) return headers
    const cookie = clientCookieHeader(this.jars, c.i, identity, c.reconnecting, this.config.cookieScope.path)
    return cookie === '' ? headers : addCookieHeader({ ...headers }, cookie)
  }

  /**
   * The server's 101: its cookies into the client's jar.
   * @param {PlainSocket} ws
   * @param {string | string[] | undefined} setCookie the `ws` client's answer's Set-Cookie
   * @param {string} [head] the built-in client's answer head
   */
  onUpgraded (ws, setCookie, head) {
    if (!this.config.cookieJar || ws.client.gen !== ws.gen) return
    const i = ws.client.i
    const jar = this.jars[i] ?? null
    this.jars[i] = head === undefined ? storeCookies(jar, setCookie, this.config.cookieScope) : storeHeadCookies(jar, head, this.config.cookieScope)
  }

  /**
   * The handshake is done: send the client's --send-on-open message, then the ping whose pong
   * settles it.
   * @param {PlainSocket} ws
   */
  onOpen (ws) {
    const c = ws.client
    if (c.gen !== ws.gen || c.state !== STATE.OPENING) return
    c.state = STATE.OPEN
    if (c.openMessage !== null) ws.sendText(c.openMessage)
    ws.sendPing()
  }

  /** @param {PlainSocket} ws */
  onPong (ws) {
    const c = ws.client
    if (c.gen === ws.gen && c.state === STATE.OPEN) this.settle(c)
  }

  /**
   * The first round trip is done: the client is connected.
   * @param {PlainClient} c
   */
  settle (c) {
    c.state = STATE.CONNECTED
    c.attempts = 0
    this.sweeper.clear(c.i)
    const gen = c.gen
    this.events.connected(c.i, 'websocket')
    if (c.reconnecting && c.gen === gen) {
      c.reconnecting = false
      this.events.reconnected(c.i)
    }
  }

  /**
   * A whole message, data[start, end) (text: valid only during the call). The hot path: a
   * frame already decoded for another client is found by its bytes, not decoded again.
   * @param {PlainSocket} ws
   * @param {Buffer} data
   * @param {number} start
   * @param {number} end
   * @param {boolean} isBinary
   */
  onMessage (ws, data, start, end, isBinary) {
    const c = ws.client
    if (c.gen !== ws.gen) return
    if (c.state !== STATE.CONNECTED) {
      if (c.state !== STATE.OPEN) return
      // A message is an answer too: the server is serving this client.
      const gen = c.gen
      this.settle(c)
      if (c.gen !== gen) return
    }
    const cache = isBinary ? this.binaryCache : this.textCache
    /** @type {import('./decode.js').PlainDecoded | null} */
    let decoded = cache.findBytes(data, start, end)
    if (decoded === null) decoded = decodeInto(cache, data, start, end, isBinary, this.config.match)
    if (decoded.args === null) this.events.unmeasured(c.i, decoded.event)
    else this.events.message(c.i, WEBSOCKET_EVENT, decoded.args)
  }

  /** @param {PlainSocket} ws */
  onSocketClosed (ws) {
    if (--this.handles === 0 && this.onIdle !== null) this.onIdle()
    const c = ws.client
    if (c.gen !== ws.gen || c.ws !== ws) return
    this.end(c, endReason(ws, c.state === STATE.CONNECTED), true)
  }

  /**
   * Client c's backoff is over: it tries again, unless --ramp-guard's cap defers it (once).
   * @param {PlainClient} c
   */
  reconnect (c) {
    reconnectOrDefer(this, c)
  }

  /** @param {number} i */
  onDeadline (i) {
    const c = this.clients[i]
    if (c === undefined) return
    if (c.state === STATE.WAITING) this.reconnect(c)
    else if (c.state === STATE.OPENING) this.end(c, CONNECT_TIMEOUT, true)
    else if (c.state === STATE.OPEN) this.settle(c) // open all this time, it just never answered the ping
  }

  /**
   * Ends client c's connection and tells the swarm; waits to reconnect when allowed.
   * @param {PlainClient} c
   * @param {string} reason
   * @param {boolean} retry
   */
  end (c, reason, retry) {
    if (c.state === STATE.IDLE || c.state === STATE.WAITING) return
    const wasConnected = this.stop(c, false)
    if (retry && this.config.reconnect) {
      c.state = STATE.WAITING
      c.reconnecting = true
      this.sweeper.setIn(c.i, backoffDelayMs(c.attempts++, Math.random, this.config.backoff))
    }
    if (wasConnected) this.events.disconnected(c.i, reason)
    else this.events.connectError(c.i, reason)
  }

  /**
   * Frees client c's socket and deadline, leaving it idle.
   * @param {PlainClient} c
   * @param {boolean} graceful
   * @returns {boolean} whether it was connected
   */
  stop (c, graceful) {
    const wasConnected = c.state === STATE.CONNECTED
    c.gen++
    c.state = STATE.IDLE
    this.sweeper.clear(c.i)
    c.ws?.shut(graceful)
    c.ws = null
    return wasConnected
  }

  /**
   * Client i sends a message: its first argument, as JSON text (a string as it is). Plain
   * WebSocket has no event names and no acks: a callback gets an error at once.
   * @param {number} i
   * @param {unknown[]} args
   * @param {(error: Error | null, args: unknown[]) => void} [callback]
   * @returns {boolean} false when client i is not connected (nothing was sent)
   */
  send (i, args, callback) {
    const c = this.clients[i]
    if (c === undefined || c.state !== STATE.CONNECTED || c.ws === null) return false
    const value = args[0]
    c.ws.sendText(typeof value === 'string' ? value : JSON.stringify(value ?? null))
    if (callback) queueMicrotask(() => callback(new Error('plain WebSocket has no acks'), []))
    return true
  }

  /**
   * Closes client i on purpose (a close frame, 1000), with no reconnection.
   * @param {number} i
   */
  disconnect (i) {
    const c = this.clients[i]
    if (c === undefined || stopWaiting(this.sweeper, c) || c.state === STATE.IDLE) return
    if (this.stop(c, true)) this.events.disconnected(i, CLIENT_CLOSE)
  }
}
