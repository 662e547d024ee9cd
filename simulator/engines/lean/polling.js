/**
 * The HTTP long-polling transport over one shared keep-alive agent: at most one GET and one
 * POST in flight per client (Engine.IO v4 closes a session that overlaps requests); packets
 * written while a POST is in flight wait and leave together, joined by the record separator.
 */
import { EIO_RECORD_SEPARATOR } from '../../../lib/protocol.js'
import { onPollBody } from './inbound.js'
import { PAYLOAD_TOO_LARGE } from '../limits.js'

/** @typedef {import('./client.js').Client} Client */
/** @typedef {import('./session.js').LeanSession} LeanSession */
/** @typedef {import('node:http').ClientRequest} ClientRequest */
/** @typedef {import('node:http').IncomingMessage} IncomingMessage */

const GET_HEADERS = Object.freeze({ Accept: '*/*' })
const POST_HEADERS = Object.freeze({ Accept: '*/*', 'Content-Type': 'text/plain;charset=UTF-8' })

/**
 * Starts the Engine.IO handshake GET (no sid yet), or the next poll.
 * @param {LeanSession} session
 * @param {Client} c
 */
export function poll (session, c) {
  const gen = c.gen
  const req = request(session, 'GET', pollPath(session, c.sid), GET_HEADERS)
  const fail = (/** @type {string} */ reason = 'xhr poll error') => {
    if (c.gen === gen && c.getReq === req) session.onTransportLost(c, reason)
  }
  c.getReq = req
  req.on('response', (res) => readBody(session, res, req, (body) => {
    if (c.gen !== gen || c.getReq !== req) return
    c.getReq = null
    onPollBody(session, c, body)
    if (c.gen === gen && c.getReq === null) session.afterPoll(c)
  }, fail))
  req.on('error', () => fail())
  req.end()
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
  const req = post(session, pollPath(session, c.sid), queue.join(EIO_RECORD_SEPARATOR), () => {
    if (c.gen !== gen || c.postReq !== req) return
    c.postReq = null
    if (c.pausing) session.afterPoll(c)
    else flushPost(session, c)
  }, (reason = 'xhr post error') => {
    if (c.gen === gen && c.postReq === req) session.onTransportLost(c, reason)
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
  const path = pollPath(session, c.sid)
  const body = queued === null ? '1' : `${queued.join(EIO_RECORD_SEPARATOR)}${EIO_RECORD_SEPARATOR}1`
  const sendClose = () => {
    post(session, path, body, () => get?.destroy(), () => get?.destroy())
  }
  if (inFlight === null) sendClose()
  else inFlight.once('close', sendClose) // never two POSTs at once for one sid
}

/**
 * The request path of a poll, with a cache-busting stamp (as socket.io-client's `t`) and the sid.
 * @param {LeanSession} session
 * @param {string} sid '' for the handshake
 */
function pollPath (session, sid) {
  const stamp = (++session.stamp).toString(36)
  const base = session.config.pollBase
  return sid === '' ? `${base}&t=${stamp}` : `${base}&sid=${encodeURIComponent(sid)}&t=${stamp}`
}

/**
 * An HTTP request on the pool's one agent, counted until it closes.
 * @param {LeanSession} session
 * @param {string} method
 * @param {string} path
 * @param {Readonly<Record<string, string>>} headers
 */
function request (session, method, path, headers) {
  const { host, port } = session.config
  const req = session.requestFn({ agent: session.agent, host, port, path, method, headers })
  session.handles++
  req.on('close', session.handleClosed)
  return req
}

/**
 * @param {LeanSession} session
 * @param {string} path
 * @param {string} body
 * @param {() => void} onDone
 * @param {(reason?: string) => void} onFail
 */
function post (session, path, body, onDone, onFail) {
  const req = request(session, 'POST', path, POST_HEADERS)
  req.on('response', (res) => readBody(session, res, req, onDone, onFail))
  req.on('error', () => onFail())
  req.end(body)
  return req
}

/**
 * Reads a whole response body within the payload limit. A non-200 status, an oversized or
 * cut-off body fail the request (and destroy it, freeing its socket); an oversized one, known
 * from Content-Length or counted as it arrives, fails with PAYLOAD_TOO_LARGE and is never
 * held beyond the limit.
 * @param {LeanSession} session
 * @param {IncomingMessage} res
 * @param {ClientRequest} req
 * @param {(body: string) => void} onBody
 * @param {(reason?: string) => void} onFail
 */
function readBody (session, res, req, onBody, onFail) {
  const declaredTooLarge = Number(res.headers['content-length']) > session.maxPayloadBytes
  if (res.statusCode !== 200 || declaredTooLarge) {
    res.resume()
    req.destroy()
    onFail(res.statusCode !== 200 ? undefined : PAYLOAD_TOO_LARGE)
    return
  }
  /** @type {Buffer[]} */
  const chunks = []
  let bytes = 0
  let tooLarge = false
  res.on('data', (/** @type {Buffer} */ chunk) => {
    if (tooLarge) return
    bytes += chunk.length
    if (bytes > session.maxPayloadBytes) {
      tooLarge = true
      chunks.length = 0
      req.destroy()
      onFail(PAYLOAD_TOO_LARGE)
      return
    }
    chunks.push(chunk)
  })
  res.on('error', () => {}) // reported by 'close' below
  res.on('close', () => {
    if (!res.complete) onFail()
  })
  res.on('end', () => {
    if (!tooLarge) onBody(chunks.length === 1 ? chunks[0].toString() : Buffer.concat(chunks, bytes).toString())
  })
}
