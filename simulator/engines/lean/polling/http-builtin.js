/**
 * Polling requests over the built-in HTTP/1.1 client (wire/http-socket.js; plain http:// only,
 * the default there: `--http-client builtin`). Each client polls on a keep-alive connection of
 * its own (a long poll is nearly always in flight); POSTs go over a bounded pool of keep-alive
 * connections per source address that the session's clients share (post-pool.js), as a browser's
 * tabs share its connections to an origin and as undici's POST pool does. A connection of its own
 * per client for POSTs was measured: the server's keep-alive timeout (5 s in Node) closes it
 * between two pongs (25 s), and each pong then paid a new connection, 3-5 µs per delivered frame
 * at 5,000 clients. Every connection leaves from the client's own source address (--source-address),
 * so an address-sticky balancer sees all of a client's requests come from one address.
 * A request is one string: its head is pre-built per client and sid (only the cache-busting
 * `t=` changes per request); the client's cookies, when it has any, are added per request.
 * A request that a reused connection lost before any answer (the server's keep-alive timeout
 * met it) is sent once more on a new connection; a source port the kernel refuses, from the next port.
 */
import { FAILURE, HttpSocket } from '../../../wire/http-socket.js'
import { MAX_PORT_TRIES, connectOwnPort } from '../../../wire/source-ports.js'
import { PAYLOAD_TOO_LARGE } from '../../../wire/limits.js'
import { noteHeadNodeHeader, requestHeaders, storeHeadSetCookies } from '../cookies.js'
import { PendingRequest } from './pending-request.js'
import { PostPool } from './post-pool.js'

/** @typedef {import('../client.js').Client} Client */
/** @typedef {import('../session.js').LeanSession} LeanSession */
/** @typedef {import('./polling.js').PollRequest} PollRequest */

/** Times a request lost on a reused connection before any answer is sent again (on a new connection). */
const MAX_RESENDS = 1

/** A connection and the source port it holds (0: none). */
class PollSocket extends HttpSocket {
  /**
   * @param {LeanSession} session
   * @param {number} a the source address's index (0 without --source-address)
   * @param {PostPool | null} pool the POST pool it belongs to; null: a client's poll connection
   */
  constructor (session, a, pool) {
    super(HANDLER, session.maxPayloadBytes)
    /** @type {BuiltinRequest | null} the request in flight */
    this.request = null
    this.pool = pool
    this.sourceAddress = -1
    this.sourcePort = 0
    // The head comes as text only with a Set-Cookie or this header (--node-from header:NAME).
    this.watch = session.config.nodeHeader
    if (pool !== null) {
      // A shared connection that never connects would hold its POST until the client's ping deadline: it fails that POST alone.
      this.setTimeout(session.config.connectTimeoutMs)
      this.once('timeout', onConnectTimeout)
      this.once('connect', onConnected)
    }
    const { host, port, sourcePorts } = session.config
    if (sourcePorts === null) {
      this.connect(port, host)
      return
    }
    this.sourceAddress = a
    const localPort = this.sourcePort = connectOwnPort(this, sourcePorts, a, host, port)
    if (localPort === 0) {
      this.errorCode = 'EADDRNOTAVAIL'
      this.destroy()
      return
    }
    this.once('close', () => sourcePorts.release(a, localPort))
  }
}

/** @this {PollSocket} */
function onConnected () {
  this.setTimeout(0)
  this.off('timeout', onConnectTimeout)
}

/** @this {PollSocket} */
function onConnectTimeout () {
  this.errorCode ??= 'ETIMEDOUT'
  this.destroy()
}

/** One request of a client over its GET or POST connection. */
export class BuiltinRequest extends PendingRequest {
  /**
   * @param {LeanSession} session
   * @param {Client} c
   * @param {boolean} isGet
   * @param {string} text the whole request
   * @param {(body: string) => void} onBody
   * @param {(reason?: string, detail?: string) => void} onFail
   */
  constructor (session, c, isGet, text, onBody, onFail) {
    super(session)
    this.c = c
    this.isGet = isGet
    this.text = text
    this.onBody = onBody
    this.onFail = onFail
    /** Sends again after a lost keep-alive connection or a refused source port (bounded). */
    this.resent = 0
    this.portTries = 0
    /** @type {PollSocket | null} */
    this.conn = null
    this.send()
  }

  /**
   * A GET on the client's poll connection (a new one when it cannot take it); a POST on a
   * connection of the pool of the client's source address: an idle one, a new one (always when
   * sent again after a reused one was lost) while there is room, else it waits for one.
   */
  send () {
    const c = this.c
    if (!this.isGet) {
      const pool = postPoolOf(this.session, c)
      const fresh = this.resent > 0
      const conn = pool.take(fresh)
      if (conn === null) pool.wait(this, fresh)
      else this.sendOn(/** @type {PollSocket} */ (conn))
      return
    }
    let conn = /** @type {PollSocket | null} */ (c.httpGet)
    if (!(conn instanceof PollSocket) || !conn.ready) {
      // One still carrying a request (the old session's last poll) finishes it, then is closed (retire).
      if (conn instanceof PollSocket && !conn.done && conn.request === null) conn.discard()
      conn = c.httpGet = new PollSocket(this.session, addressOf(this.session, c), null)
    }
    this.sendOn(conn)
  }

  /** @param {import('../../../wire/http-socket.js').HttpSocket} conn a connection that can take it now */
  sendOn (conn) {
    const socket = /** @type {PollSocket} */ (conn)
    this.conn = socket
    socket.request = this
    socket.send(this.text)
  }

  /** Aborts it: its connection is closed, its callbacks are not called. */
  destroy () {
    if (this.over || this.aborted) return
    this.aborted = true
    const conn = this.conn
    if (conn !== null && conn.request === this) {
      conn.request = null
      conn.discard()
    }
    this.settle()
  }

  /**
   * @param {string | undefined} reason
   * @param {string | undefined} detail
   */
  fail (reason, detail) {
    if (this.over) return
    this.settle()
    this.onFail(reason, detail)
  }
}

/**
 * The POST pool of the client's source address (made on its first POST).
 * @param {LeanSession} session
 * @param {Client} c
 */
function postPoolOf (session, c) {
  const a = addressOf(session, c)
  let pool = session.builtinPostPools[a]
  if (pool !== undefined) return pool
  pool = session.builtinPostPools[a] = new PostPool(session.config.postConnections, () => new PollSocket(session, a, /** @type {PostPool} */ (pool)))
  return pool
}

/**
 * @param {LeanSession} session
 * @param {Client} c
 */
function addressOf (session, c) {
  const ports = session.config.sourcePorts
  return ports === null ? 0 : ports.addressOf(c.i)
}

/**
 * A connection is free again: a POST connection takes the next waiting POST of its pool, or
 * waits idle (one that is closing makes room in its pool when it has closed); a poll connection
 * that its client replaced is closed.
 * @param {PollSocket} socket
 * @param {BuiltinRequest} req
 */
function release (socket, req) {
  socket.request = null
  if (socket.pool === null) return retire(socket, req.c)
  if (socket.ready) socket.pool.freed(socket)
}

/** @type {import('../../../wire/http-socket.js').HttpHandler} */
const HANDLER = {
  head (conn, status, head) {
    const req = /** @type {PollSocket} */ (conn).request
    if (req === null) return
    const { session, c } = req
    if (head !== '') {
      storeHeadSetCookies(session, c, head)
      // The handshake's answer (no sid yet) names the node (--node-from header:NAME); later polls are not read.
      if (c.sid === '' && req.isGet) noteHeadNodeHeader(session, c, head)
    }
    if (status !== 200) {
      /** @type {PollSocket} */ (conn).request = null
      conn.discard()
      req.fail(undefined, `HTTP ${status}`)
    }
  },
  done (conn, status, body) {
    const socket = /** @type {PollSocket} */ (conn)
    const req = socket.request
    if (req === null) return
    release(socket, req)
    req.settle()
    req.onBody(body)
  },
  failed (conn, detail, retry) {
    const socket = /** @type {PollSocket} */ (conn)
    const req = socket.request
    if (req === null) return
    socket.request = null
    if (socket.pool === null) retire(socket, req.c)
    // An idle connection the server was closing as it was taken: sent again on a new one.
    if (retry && req.resent < MAX_RESENDS) {
      req.resent++
      return req.send()
    }
    const ports = req.session.config.sourcePorts
    const portTaken = detail === 'EADDRINUSE' || detail === 'EADDRNOTAVAIL'
    if (ports !== null && socket.sourcePort !== 0 && conn.seen === 0 && portTaken && ++req.portTries < MAX_PORT_TRIES) {
      ports.refused[socket.sourceAddress]++
      return req.send()
    }
    req.fail(detail === FAILURE.TOO_LARGE ? PAYLOAD_TOO_LARGE : undefined, detail)
  }
}

/**
 * Closes a connection the client no longer uses (a new session took a new one while this one
 * carried the old session's last request).
 * @param {PollSocket} socket
 * @param {Client} c
 */
function retire (socket, c) {
  if (c.httpGet !== socket && !socket.done) socket.discard()
}

/**
 * The whole text of a poll GET or a POST, from the client's pre-built head.
 * @param {LeanSession} session
 * @param {Client} c
 * @param {string} path
 * @param {string | null} body
 */
export function requestText (session, c, path, body) {
  if (body === null && c.cookies === null && c.headers === null) {
    // The usual poll: only the path differs from one to the next.
    session.getTail ??= ` HTTP/1.1\r\nHost: ${session.config.hostHeader}\r\n${headerLines(session, c)}\r\n`
    return `GET ${path}${session.getTail}`
  }
  const headers = c.cookies === null ? headerLines(session, c) : formatHeaders(requestHeaders(session, c, NO_HEADERS), session.config.keepAlive)
  const start = `${body === null ? 'GET' : 'POST'} ${path} HTTP/1.1\r\nHost: ${session.config.hostHeader}\r\n${headers}`
  return body === null ? `${start}\r\n` : `${start}Content-Type: text/plain;charset=UTF-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
}

const NO_HEADERS = Object.freeze({})

/**
 * The client's own header lines (Accept, --header, Connection), made once per header set.
 * @param {LeanSession} session
 * @param {Client} c
 */
function headerLines (session, c) {
  if (c.headers === null) {
    session.headerLines ??= formatHeaders(NO_HEADERS, session.config.keepAlive)
    return session.headerLines
  }
  if (c.headerLinesOf !== c.headers) {
    c.headerLinesOf = c.headers
    c.headerLines = formatHeaders(c.headers, session.config.keepAlive)
  }
  return c.headerLines
}

/**
 * Header lines: Accept (unless given), each header, and Connection: close without keep-alive.
 * A header with a line break never gets here (LeanSession.applyIdentity fails the client's
 * attempt and says why); one that did would be left out rather than split the request.
 * @param {Readonly<Record<string, string>>} headers
 * @param {boolean} keepAlive
 */
function formatHeaders (headers, keepAlive) {
  let lines = ''
  let accept = false
  for (const name in headers) {
    const value = String(headers[name])
    if (/[\r\n]/.test(value) || /[\r\n:]/.test(name)) continue
    if (name.toLowerCase() === 'accept') accept = true
    lines += `${name}: ${value}\r\n`
  }
  if (!accept) lines = `Accept: */*\r\n${lines}`
  return keepAlive ? lines : `${lines}Connection: close\r\n`
}

/**
 * Closes a client's poll connection (its polling is over).
 * @param {Client} c
 */
export function closeBuiltin (c) {
  if (c.httpGet instanceof PollSocket) c.httpGet.discard()
  c.httpGet = null
}

/**
 * Closes the session's POST connections and aborts the POSTs still waiting for one (end of the swarm).
 * @param {LeanSession} session
 */
export function closePostSockets (session) {
  for (const pool of session.builtinPostPools) for (const req of pool?.close() ?? []) /** @type {BuiltinRequest} */ (req).destroy()
  session.builtinPostPools = []
}
