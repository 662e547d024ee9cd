/**
 * The HTTP long-polling transport: at most one GET and one POST in flight per client
 * (Engine.IO v4 closes a session that overlaps requests); packets written while a POST is in
 * flight wait and leave together, joined by the record separator.
 *
 * Requests go over undici's low-level `dispatch`: Node's http client costs ≈ 60 µs of CPU
 * per request here, undici's dispatch ≈ 20 µs (bench/results/2026-11-engines.md), and a polling client makes
 * one request per frame it receives. Each client polls on its own keep-alive connection
 * (undici's Pool scans its connections for a free one, and long polls keep nearly all of
 * them busy); POSTs are short, so they share one bounded pool per destination (postConnections, config.js),
 * one per source address with --source-address, so that every request of a client leaves from
 * its address (an address-sticky balancer keeps it on one node). Each request carries the
 * client's cookies, and each response's Set-Cookie goes into its jar.
 */
import { encodePayloadV3 } from '../codec.js'
import { EIO_RECORD_SEPARATOR } from '../../../../lib/protocol.js'
import { onPollBody } from '../inbound.js'
import { withDetail } from '../reasons.js'
import { PAYLOAD_TOO_LARGE } from '../../../wire/limits.js'
import { connectorFor } from '../../../wire/source-ports.js'
import { noteRawNodeHeader, requestHeaders, storeRawSetCookies } from '../cookies.js'
import { onFirstUse } from '../../../../lib/lazy-require.js'
import { timedConnector } from '../../../wire/tls/tls-time.js'
import { BuiltinRequest, closeBuiltin, closePostSockets, requestText } from './http-builtin.js'
import { PendingRequest } from './pending-request.js'

/** undici, on the first polling request: a WebSocket-only swarm never loads it (a process loads only what it uses). */
const undici = /** @type {() => typeof import('undici')} */ (onFirstUse('undici'))
/** @typedef {import('undici').Client} HttpClient */
/** @typedef {import('undici').Pool} HttpPool */

/** @typedef {import('../client.js').Client} Client */
/** @typedef {import('../session.js').LeanSession} LeanSession */
/** @typedef {PollRequest | BuiltinRequest} AnyRequest a request in flight, on either client */

const GET_HEADERS = Object.freeze({ accept: '*/*' })
const POST_HEADERS = Object.freeze({ accept: '*/*', 'content-type': 'text/plain;charset=UTF-8' })
/** @type {Error | undefined} */
let abortedError
/** The one abort reason of every poll (made once: an abort happens only after undici is loaded). */
const aborted = () => (abortedError ??= new (undici().errors.RequestAbortedError)())
/**
 * One request in flight on undici: destroy() aborts it (its callbacks are not called after that).
 */
export class PollRequest extends PendingRequest {
  /** @param {LeanSession} session */
  constructor (session) {
    super(session)
    /** @type {((error: Error) => void) | null} */
    this.abort = null
  }

  destroy () {
    if (this.over || this.aborted) return
    this.aborted = true
    this.abort?.(aborted())
  }
}

/**
 * Starts the Engine.IO handshake GET (no sid yet), or the next poll.
 * @param {LeanSession} session
 * @param {Client} c
 */
export function poll (session, c) {
  const gen = c.gen
  const req = get(session, c, pollPath(session, c, c.sid), (body) => {
    if (c.gen !== gen || c.getReq !== req) return
    c.getReq = null
    onPollBody(session, c, body)
    if (c.gen === gen && c.getReq === null) session.afterPoll(c)
  }, (reason, detail) => {
    if (c.gen === gen && c.getReq === req) session.onTransportLost(c, reason ?? withDetail('xhr poll error', detail))
  })
  c.getReq = req
}

/**
 * Queues a packet for the server; sends it now unless a POST is in flight or an upgrade is pausing polling.
 * @param {LeanSession} session
 * @param {Client} c
 * @param {string} packet
 */
export function pollSend (session, c, packet) {
  if (c.outQueue === null) c.outQueue = [packet]
  else c.outQueue.push(packet)
  if (c.postReq === null && !c.pausing) flushPost(session, c)
}

/**
 * Sends the queued packets in one POST.
 * @param {LeanSession} session
 * @param {Client} c
 */
export function flushPost (session, c) {
  const queue = c.outQueue
  if (queue === null || c.postReq !== null) return
  c.outQueue = null
  const gen = c.gen
  const req = post(session, c, pollPath(session, c, c.sid), payloadOf(session, queue), () => {
    if (c.gen !== gen || c.postReq !== req) return
    c.postReq = null
    if (c.pausing) session.afterPoll(c)
    else flushPost(session, c)
  }, (reason, detail) => {
    if (c.gen === gen && c.postReq === req) session.onTransportLost(c, reason ?? withDetail('xhr post error', detail))
  })
  c.postReq = req
}

/**
 * Ends a client's polling: politely (queued packets + CLOSE, posted after any POST in flight,
 * then the pending GET is dropped) or at once. The client may start a new session meanwhile.
 * @param {LeanSession} session
 * @param {Client} c
 * @param {boolean} graceful
 */
export function closePolling (session, c, graceful) {
  const get = c.getReq
  const inFlight = c.postReq
  const queued = c.outQueue
  c.getReq = c.postReq = c.outQueue = null
  if (!graceful || c.sid === '') {
    get?.destroy()
    inFlight?.destroy()
    return
  }
  const path = pollPath(session, c, c.sid)
  const body = payloadOf(session, [...(queued ?? []), '1'])
  const sendClose = () => {
    post(session, c, path, body, () => get?.destroy(), () => get?.destroy())
  }
  if (inFlight === null) sendClose()
  else inFlight.onSettled(sendClose) // never two POSTs at once for one sid
}

/**
 * Packets as one polling body: separated by \x1e (Engine.IO v4), or length-prefixed (v3).
 * @param {LeanSession} session
 * @param {string[]} packets
 */
function payloadOf (session, packets) {
  return session.eio3 ? encodePayloadV3(packets) : packets.join(EIO_RECORD_SEPARATOR)
}

/**
 * The request path of a poll, with a cache-busting stamp (as socket.io-client's `t`) and the sid.
 * @param {LeanSession} session
 * @param {Client} c
 * @param {string} sid '' for the handshake
 */
function pollPath (session, c, sid) {
  const stamp = (++session.stamp).toString(36)
  // Everything but the stamp is made once per sid and query (a session, an attempt's --query).
  if (c.pathSid !== sid || c.pathQuery !== c.querySuffix) {
    const base = `${session.config.pollBase}${c.querySuffix}`
    c.pathBase = sid === '' ? `${base}&t=` : `${base}&sid=${encodeURIComponent(sid)}&t=`
    c.pathSid = sid
    c.pathQuery = c.querySuffix
  }
  return c.pathBase + stamp
}

/**
 * Sends one request on a client's connection and reads the whole response body within the
 * payload limit, counted as a session handle until it is over. A non-200 status, a cut-off
 * body or a connection error fail it; an oversized body, known from Content-Length or
 * counted as it arrives, fails with PAYLOAD_TOO_LARGE and is never held beyond the limit.
 * @param {LeanSession} session
 * @param {Client} c whose jar takes the response's cookies
 * @param {HttpClient | HttpPool} connection
 * @param {'GET' | 'POST'} method
 * @param {string} path
 * @param {Readonly<Record<string, string>>} headers
 * @param {string | null} body
 * @param {(body: string) => void} onBody
 * @param {(reason?: string, detail?: string) => void} onFail reason: PAYLOAD_TOO_LARGE, else the caller's; detail: the HTTP status or the connection error's code
 */
function request (session, c, connection, method, path, headers, body, onBody, onFail) {
  const req = new PollRequest(session)
  const limit = session.maxPayloadBytes
  /** @type {Buffer[]} */
  const chunks = []
  let bytes = 0
  let failed = false
  const fail = (/** @type {string | undefined} */ reason, /** @type {string | undefined} */ detail = undefined) => {
    if (failed || req.aborted) return
    failed = true
    chunks.length = 0
    req.abort?.(aborted())
    onFail(reason, detail)
  }
  connection.dispatch({ origin: session.origin, path, method, headers, body, reset: !session.config.keepAlive }, {
    onConnect (abort) {
      req.abort = abort
      if (req.aborted) abort(aborted())
    },
    onHeaders (statusCode, rawHeaders) {
      if (session.config.cookieJar) storeRawSetCookies(session, c, rawHeaders)
      // The handshake's answer (no sid yet) names the node (--node-from header:NAME); later polls are not read.
      if (c.sid === '' && method === 'GET') noteRawNodeHeader(session, c, rawHeaders)
      if (statusCode !== 200) fail(undefined, `HTTP ${statusCode}`)
      else if (declaredLength(rawHeaders) > limit) fail(PAYLOAD_TOO_LARGE)
      return true
    },
    onData (chunk) {
      if (failed) return true
      bytes += chunk.length
      if (bytes > limit) fail(PAYLOAD_TOO_LARGE)
      else chunks.push(chunk)
      return true
    },
    onComplete () {
      req.settle()
      if (failed || req.aborted) return
      onBody(chunks.length === 1 ? chunks[0].toString() : Buffer.concat(chunks, bytes).toString())
    },
    onError (error) {
      // Later, not inside undici's error handling: what follows may dispatch on this connection.
      queueMicrotask(() => {
        req.settle()
        fail(undefined, /** @type {{ code?: string }} */ (error)?.code)
      })
    }
  })
  return req
}

/**
 * A poll GET: over the built-in client, or on the client's undici connection.
 * @param {LeanSession} session
 * @param {Client} c
 * @param {string} path
 * @param {(body: string) => void} onBody
 * @param {(reason?: string, detail?: string) => void} onFail
 * @returns {AnyRequest}
 */
function get (session, c, path, onBody, onFail) {
  if (session.config.builtinHttp) return new BuiltinRequest(session, c, true, requestText(session, c, path, null), onBody, onFail)
  const conn = /** @type {HttpClient | null} */ (c.httpGet) ?? new (undici().Client)(session.origin, connectionOptions(session, c.i))
  c.httpGet = conn
  return request(session, c, conn, 'GET', path, requestHeaders(session, c, GET_HEADERS), null, onBody, onFail)
}

/**
 * @param {LeanSession} session
 * @param {Client} c
 * @param {string} path
 * @param {string} body
 * @param {() => void} onDone
 * @param {(reason?: string, detail?: string) => void} onFail
 * @returns {AnyRequest}
 */
function post (session, c, path, body, onDone, onFail) {
  if (session.config.builtinHttp) return new BuiltinRequest(session, c, false, requestText(session, c, path, body), onDone, onFail)
  const ports = session.config.sourcePorts
  const a = ports === null ? 0 : ports.addressOf(c.i)
  const pool = session.postPools[a] ??= new (undici().Pool)(session.origin, { ...connectionOptions(session, c.i), connections: session.config.postConnections })
  return request(session, c, pool, 'POST', path, requestHeaders(session, c, POST_HEADERS), body, onDone, onFail)
}

/**
 * undici options of a connection: with --source-address, a connector that opens it from
 * client i's address (a POST pool: the address of the client that made it) and a port of its own;
 * over TLS, a connector that times each handshake.
 * @param {LeanSession} session
 * @param {number} i
 */
function connectionOptions (session, i) {
  const ports = session.config.sourcePorts
  const { onTls } = session
  if (ports === null) {
    if (onTls === null) return session.httpOptions
    return (session.timedHttpOptions ??= { ...session.httpOptions, connect: timedConnector(undici().buildConnector({ ...session.config.tls }), onTls) })
  }
  const { secure, connectTimeoutMs, tls } = session.config
  const connect = connectorFor(ports, ports.addressOf(i), secure, { timeoutMs: connectTimeoutMs, tls, onTls })
  return { ...session.httpOptions, connect: /** @type {any} */ (connect) }
}

/**
 * The Content-Length of a response from undici's raw headers (name, value, …), or -1.
 * @param {Buffer[] | string[] | null} raw
 */
function declaredLength (raw) {
  if (raw === null) return -1
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]
    if (name.length === 14 && name.toString().toLowerCase() === 'content-length') return Number(raw[i + 1].toString())
  }
  return -1
}

/**
 * Closes every polling connection of a session (end of the swarm).
 * @param {LeanSession} session
 */
export function closeConnections (session) {
  for (const c of session.clients) {
    if (c === undefined || c.httpGet === null) continue
    if (session.config.builtinHttp) closeBuiltin(c)
    else /** @type {HttpClient} */ (c.httpGet)?.destroy().catch(() => {})
    c.httpGet = null
  }
  for (const pool of session.postPools) pool?.destroy().catch(() => {})
  session.postPools = []
  closePostSockets(session)
}
