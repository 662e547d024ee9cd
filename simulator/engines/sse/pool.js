/**
 * The life of every Server-Sent Events client in one pool, as a browser's EventSource lives:
 * a GET with `Accept: text/event-stream` on the built-in HTTP/1.1 stream reader
 * (stream-socket.js: far less memory and CPU per stream than Node's http client; https:// on
 * simulator/wire/tls/), one connection per client kept for the stream, the stream read by
 * parse.js, and after the stream ends a new GET that carries the last event id the client
 * saw as `Last-Event-ID` (so a server that keeps a history, as nchan and
 * Mercure do, resends what was published in the gap), after the delay the server set with
 * `retry:`, or the other engines' backoff while it set none.
 *
 * A client counts as connected when the answer's head is a 200 of type text/event-stream:
 * that is the moment an EventSource fires `open`. Any other answer is a refusal counted with
 * its status (`handshake refused: HTTP 404`) or its type (`not an event stream: text/html`);
 * the look before the swarm (simulator/inspection/sse-look.js) stops on it before any client
 * starts. Unlike EventSource, a refused client tries again after the backoff, as every engine
 * of a load test does, so a server that comes back is measured coming back; but a 204, which
 * tells an EventSource to stop reconnecting, stops the client too.
 */
import { DeadlineSweeper } from '../../wire/scheduler.js'
import { STATE, stopWaiting } from '../../wire/state.js'
import { FrameCache } from '../../wire/frame-cache.js'
import { backoffDelayMs, reconnectOrDefer } from '../../wire/backoff.js'
import { PAYLOAD_TOO_LARGE } from '../../wire/limits.js'
import { clientCookieHeader, storeCookies } from '../../sessions/cookie-jar.js'
import { EventStreamParser } from './parse.js'
import { SseSocket } from './stream-socket.js'
import { TlsClient } from '../../wire/tls/tls-client.js'
import { querySuffix } from '../../sessions/identity.js'

/** The reason the swarm counts a client closed on purpose under (the tracker keeps it out of storms). */
export const CLIENT_CLOSE = 'io client disconnect'
/** The reason of a stream the server ended (EventSource reconnects after it). */
export const STREAM_ENDED = 'stream ended by the server'

/** One client: a small record; its stream's objects are dropped at each end. */
class SseClient {
  /** @param {number} i */
  constructor (i, /** @type {SsePool} */ pool) {
    this.i = i
    /** @type {number} one of STATE */
    this.state = STATE.IDLE
    /** Bumped whenever a connection ends: callbacks of older requests compare and bow out. */
    this.gen = 0
    /** @type {SseSocket | null} the stream's connection */
    this.req = null
    this.attempts = 0
    this.reconnecting = false
    /** Its reconnect was deferred by --ramp-guard's cap (its token taken): it goes when the wait is over, without asking again. */
    this.paced = false
    /** @type {number | null} the server's `retry:` delay; null: the backoff */
    this.retryMs = null
    /** Kept across connections: its last event id is the next GET's Last-Event-ID. */
    this.parser = new EventStreamParser({
      event: (type, data) => pool.onEvent(this, type, data),
      retry: (ms) => { this.retryMs = ms }
    })
  }
}

export class SsePool {
  /**
   * @param {import('./config.js').SseConfig} config
   * @param {import('../types.js').SwarmEvents} events
   */
  constructor (config, events) {
    this.config = config
    this.events = events
    /** @type {import('./stream-socket.js').StreamOwner} what the built-in client's streams tell the pool (http://) */
    this.owner = {
      head: (s, status, type, setCookie, node) => this.opened(/** @type {SseClient} */ (s.client), s.gen, status, type, setCookie, node),
      nodeHeader: config.nodeHeader,
      data: (s, data) => this.onData(/** @type {SseClient} */ (s.client), s.gen, data),
      ended: (s, reason) => this.onFailure(/** @type {SseClient} */ (s.client), s.gen, reason)
    }
    /** https://: one TLS context, SNI and the latest session ticket for every stream of the destination. */
    this.tlsClient = config.secure ? new TlsClient({ host: config.host, trust: config.tls, onTls: events.secured ?? null }) : null
    /** Decode once: a published message reaches every client as the same data. */
    this.cache = new FrameCache()
    this.sweeper = new DeadlineSweeper((i) => this.onDeadline(i), config.heartbeatTickMs)
    /** @type {SseClient[]} */
    this.clients = []
    /** Each client's cookies (--cookie, its login's, its answers'), kept by index: a login fills it before the client exists. @type {import('../../sessions/cookie-jar.js').Jar[]} */
    this.jars = []
  }

  /** @param {number} i */
  connect (i) {
    let c = this.clients[i]
    if (c === undefined) c = this.clients[i] = new SseClient(i, this)
    else if (c.state !== STATE.IDLE) return
    else {
      // Started on purpose (a new session, as a new EventSource): no last event id, no server delay yet.
      c.parser.lastEventId = ''
      c.retryMs = null
    }
    c.attempts = 0
    c.reconnecting = false
    c.paced = false
    this.startAttempt(c)
  }

  /** @param {SseClient} c */
  startAttempt (c) {
    c.state = STATE.OPENING
    const identity = this.config.identity?.(c.i)
    this.sweeper.setIn(c.i, this.config.connectTimeoutMs)
    const gen = c.gen
    this.events.attempt(c.i)
    if (c.gen !== gen || c.state !== STATE.OPENING) return
    const suffix = querySuffix(identity?.query, this.config.querySeparator)
    const { path } = this.config
    /** @type {Record<string, string>} */
    const headers = { ...identity?.headers, Accept: 'text/event-stream', 'Cache-Control': 'no-cache' }
    if (c.parser.lastEventId !== '') headers['Last-Event-ID'] = c.parser.lastEventId
    const cookie = this.cookiesOf(c, identity)
    if (cookie !== '') headers.Cookie = cookie
    c.parser.reset()
    let request = `GET ${path}${suffix} HTTP/1.1\r\nHost: ${this.config.hostHeader}\r\n`
    for (const name in headers) request += `${name}: ${headers[name]}\r\n`
    const ports = this.config.sourcePorts
    const source = ports === null ? null : { ports, a: ports.addressOf(c.i) }
    c.req = new SseSocket(this.owner, c, gen, this.config, `${request}\r\n`, this.tlsClient, source)
  }

  /**
   * Client c's Cookie header: --cookie seeds its jar when it starts on purpose; a reconnect
   * keeps what the server set since.
   * @param {SseClient} c
   * @param {import('../../sessions/identity.js').ClientIdentity | undefined} identity
   */
  cookiesOf (c, identity) {
    if (!this.config.cookieJar) return ''
    return clientCookieHeader(this.jars, c.i, identity, c.reconnecting, this.config.cookieScope.path)
  }

  /**
   * The answer's head: a 200 of type text/event-stream opens the stream; anything else is a refusal.
   * @param {SseClient} c
   * @param {number} gen
   * @param {number} status
   * @param {string} type its content type, lower-case, without parameters
   * @param {string | string[] | undefined} setCookie
   * @param {string | null} node the --node-from header's value, null when not asked for or not sent
   * @returns {boolean} whether the stream is open (else the client has ended it)
   */
  opened (c, gen, status, type, setCookie, node) {
    if (c.gen !== gen) return false
    if (this.config.cookieJar) this.jars[c.i] = storeCookies(this.jars[c.i] ?? null, setCookie, this.config.cookieScope)
    if (node !== null) this.events.node?.(c.i, node)
    const refusal = refusalOf(status, type)
    if (refusal !== null) {
      // 204 No Content is how a server tells an EventSource to stop reconnecting: this client stops too.
      this.end(c, refusal, status !== 204)
      return false
    }
    this.settle(c)
    return true
  }

  /**
   * The stream is open: the client is connected.
   * @param {SseClient} c
   */
  settle (c) {
    c.state = STATE.CONNECTED
    c.attempts = 0
    this.sweeper.clear(c.i)
    const gen = c.gen
    // No wire of its own in the counts: the one long-lived connection, as a WebSocket is.
    this.events.connected(c.i, 'websocket')
    if (c.reconnecting && c.gen === gen) {
      c.reconnecting = false
      this.events.reconnected(c.i)
    }
  }

  /**
   * @param {SseClient} c
   * @param {number} gen
   * @param {Buffer} chunk
   */
  onData (c, gen, chunk) {
    if (c.gen !== gen) return
    c.parser.write(chunk)
    if (c.gen === gen && c.parser.holding() > this.config.maxPayloadBytes) this.end(c, PAYLOAD_TOO_LARGE, true)
  }

  /**
   * An event was dispatched: measured when its type is one of --event, else counted by its type.
   * @param {SseClient} c
   * @param {string} type
   * @param {string} data
   */
  onEvent (c, type, data) {
    if (c.state !== STATE.CONNECTED) return
    // A whole event in one chunk is over the limit only here (onData sees what is held between chunks).
    if (data.length > this.config.maxPayloadBytes) {
      this.end(c, PAYLOAD_TOO_LARGE, true)
      return
    }
    const events = this.config.events
    if (events !== null && !events.has(type)) {
      this.events.unmeasured(c.i, type)
      return
    }
    const cached = this.cache.findText(data)
    let args = cached === null ? null : cached.args
    if (args === null) {
      args = [parseData(data)]
      this.cache.add(data, { event: type, args })
    }
    this.events.message(c.i, type, args)
  }

  /**
   * The request or the stream failed or ended.
   * @param {SseClient} c
   * @param {number} gen
   * @param {string} reason
   */
  onFailure (c, gen, reason) {
    if (c.gen === gen) this.end(c, reason, true)
  }

  /**
   * Client c's wait is over: it tries again, unless --ramp-guard's cap defers it (once).
   * @param {SseClient} c
   */
  reconnect (c) {
    reconnectOrDefer(this, c)
  }

  /** @param {number} i */
  onDeadline (i) {
    const c = this.clients[i]
    if (c === undefined) return
    if (c.state === STATE.WAITING) this.reconnect(c)
    else if (c.state === STATE.OPENING) this.end(c, 'timeout', true)
  }

  /**
   * Ends client c's stream and tells the swarm; waits to reconnect when allowed: the server's
   * `retry:` delay as EventSource waits it, else the backoff.
   * @param {SseClient} c
   * @param {string} reason
   * @param {boolean} retry
   */
  end (c, reason, retry) {
    if (c.state === STATE.IDLE || c.state === STATE.WAITING) return
    const wasConnected = this.stop(c)
    if (retry && this.config.reconnect) {
      c.state = STATE.WAITING
      c.reconnecting = true
      const attempt = c.attempts++
      this.sweeper.setIn(c.i, c.retryMs ?? backoffDelayMs(attempt, Math.random, this.config.backoff))
    }
    if (wasConnected) this.events.disconnected(c.i, reason)
    else this.events.connectError(c.i, reason)
  }

  /**
   * Frees client c's request and deadline, leaving it idle.
   * @param {SseClient} c
   * @returns {boolean} whether it was connected
   */
  stop (c) {
    const wasConnected = c.state === STATE.CONNECTED
    c.gen++
    c.state = STATE.IDLE
    this.sweeper.clear(c.i)
    c.req?.destroy()
    c.req = null
    return wasConnected
  }

  /**
   * Closes client i on purpose, with no reconnection.
   * @param {number} i
   */
  disconnect (i) {
    const c = this.clients[i]
    if (c === undefined || stopWaiting(this.sweeper, c) || c.state === STATE.IDLE) return
    if (this.stop(c)) this.events.disconnected(i, CLIENT_CLOSE)
  }

  /** Closes every client and the deadlines' timer. */
  close () {
    for (const c of this.clients) if (c !== undefined) this.disconnect(c.i)
    this.sweeper.stop()
  }
}

/**
 * Why an answer opens no stream, or null when it does (a 200 of type text/event-stream).
 * @param {number} status
 * @param {string} type
 * @returns {string | null}
 */
export function refusalOf (status, type) {
  if (status !== 200) return `handshake refused: HTTP ${status}`
  return type === 'text/event-stream' ? null : `not an event stream: ${type === '' ? 'no content type' : `content type ${type}`}`
}

/**
 * An event's data as the recorder takes it: a JSON object or array parsed (its id and send
 * time then come from --id-field and --sent-at-field), other text as it is (told apart by
 * its content).
 * @param {string} data
 * @returns {unknown}
 */
export function parseData (data) {
  const text = data.trimStart()
  const first = text.charCodeAt(0)
  if (first !== 123 && first !== 91) return data // '{' or '['
  try {
    return JSON.parse(text)
  } catch {
    return data
  }
}
