/**
 * The built-in HTTP/1.1 client connection of the lean engine's long-polling (plain http://
 * only), to keep the CPU per frame low: a polling client makes one request per frame
 * it receives, and undici's request machinery was 45 % of that CPU. One keep-alive connection
 * carries one request at a time (no pipelining); the request is written as one string (head and
 * body), the response is read from ONE shared buffer (net's `onread`, as wire/raw-socket.js) by
 * a small parser: status line, headers, then a body framed by Content-Length, by chunked
 * encoding, or by the end of the connection. A body that arrives in the read that completes it
 * is decoded where it lies, never copied; parts cut by the end of a read are copied.
 *
 * The owner says what to do with a response's head (its cookies, say) and gets the whole body
 * as a string, or a failure: the HTTP status (non-2xx), PAYLOAD_TOO_LARGE past the limit, or
 * the connection's error code. A request written on a reused connection that the server closes
 * before answering a byte (its keep-alive timeout meeting our request) is not failed here: the
 * owner is told `retry` and sends it again on a new connection.
 */
import net from 'node:net'

const READ_BUFFER = Buffer.allocUnsafe(64 * 1024)
const HEAD_END = Buffer.from('\r\n\r\n')
const EMPTY = Buffer.alloc(0)
/** Longest response head kept (status line and headers): more fails the request. */
const MAX_HEAD_BYTES = 64 * 1024

/** Where the parser is in a response. */
export const PHASE = Object.freeze({
  IDLE: 0,
  HEAD: 1,
  LENGTH: 2,
  CHUNK_SIZE: 3,
  CHUNK_DATA: 4,
  CHUNK_END: 5,
  TRAILERS: 6,
  UNTIL_CLOSE: 7
})

/** A failure that is not the connection's own error. */
export const FAILURE = Object.freeze({
  TOO_LARGE: 'too large',
  PROTOCOL: 'HPE_INVALID',
  CLOSED: 'UND_ERR_SOCKET'
})

/**
 * What a connection tells its owner (one object per owner, shared by its connections).
 * @typedef {object} HttpHandler
 * @property {(conn: HttpSocket, status: number, head: string) => void} head a response's head came (before its body)
 * @property {(conn: HttpSocket, status: number, body: string) => void} done the whole body came; the connection may take the next request now
 * @property {(conn: HttpSocket, detail: string, retry: boolean) => void} failed the request failed (detail: `HTTP nnn`,
 *   FAILURE.TOO_LARGE, or an error code); retry: it went on a reused connection that closed before any answer, so sending it again is safe
 */

export class HttpSocket extends net.Socket {
  /**
   * @param {HttpHandler} handler
   * @param {number} maxBodyBytes
   */
  constructor (handler, maxBodyBytes) {
    // `onread` is documented for net.Socket but missing from @types/node's constructor options.
    super(/** @type {net.SocketConstructorOpts} */ ({ onread: { buffer: READ_BUFFER, callback: onRead } }))
    this.handler = handler
    this.maxBodyBytes = maxBodyBytes
    /** @type {number} one of PHASE */
    this.phase = PHASE.IDLE
    /** Requests written on this connection (a reused one may have been closed by the server meanwhile). */
    this.requests = 0
    /** Bytes of the current response seen so far (0: the server has not answered yet). */
    this.seen = 0
    /** @type {Buffer | null} a head, chunk-size line or trailer cut by the end of a read (a copy) */
    this.partial = null
    this.status = 0
    /** Bytes left of the body (LENGTH) or of the chunk (CHUNK_DATA, CHUNK_END). */
    this.remaining = 0
    /** @type {Buffer[] | null} body parts cut by the end of a read (copies) */
    this.parts = null
    this.bodyBytes = 0
    /** The server keeps the connection after this response. */
    this.keepAlive = true
    /** The connection ended, or the owner closed it: it takes no more requests. */
    this.done = false
    /** @type {string | null} a response header, lower-case, whose presence makes the handler get the head as text */
    this.watch = null
    /** @type {string | undefined} the connection's error code, when it failed */
    this.errorCode = undefined
    this.setNoDelay(true)
    this.on('error', onError)
    this.on('end', onEnd)
    this.on('close', onClose)
  }

  /** It can take a request now. */
  get ready () {
    return this.phase === PHASE.IDLE && !this.done && !this.destroyed
  }

  /**
   * Writes one request (head and body in one string); the answer comes to the handler.
   * @param {string} text
   */
  send (text) {
    this.requests++
    this.seen = 0
    this.phase = PHASE.HEAD
    this.write(text)
  }

  /** Closes the connection, and with it any request in flight (the handler hears nothing more). */
  discard () {
    this.done = true
    this.phase = PHASE.IDLE
    this.parts = this.partial = null
    this.destroy()
  }
}

/**
 * @this {HttpSocket}
 * @param {number} bytes
 * @param {Buffer} buf the shared read buffer
 */
function onRead (bytes, buf) {
  const conn = this
  if (conn.phase === PHASE.IDLE) {
    // Bytes nobody asked for: the connection cannot be trusted with the next request.
    if (!conn.done) conn.discard()
    return
  }
  conn.seen += bytes
  readResponse(conn, buf, 0, bytes)
}

/**
 * Reads buf[at, end) of the response in flight.
 * @param {HttpSocket} conn
 * @param {Buffer} buf
 * @param {number} at
 * @param {number} end
 */
export function readResponse (conn, buf, at, end) {
  while (at < end) {
    switch (conn.phase) {
      case PHASE.HEAD: {
        if (conn.partial === null) {
          // The usual case: the whole head in this read, read where it lies.
          const found = buf.indexOf(HEAD_END, at)
          if (found !== -1 && found + 4 <= end) {
            const from = at
            at = found + 4
            if (!onHead(conn, buf, from, found)) return
            break
          }
        }
        const stop = lineEnd(conn, buf, at, end, true)
        if (stop === -1) return
        at = stop
        const h = conn.partial ?? EMPTY
        conn.partial = null
        if (!onHead(conn, h, 0, h.length)) return
        break
      }
      case PHASE.LENGTH: {
        const take = Math.min(conn.remaining, end - at)
        conn.remaining -= take
        if (conn.remaining === 0) return complete(conn, buf, at, at + take, end)
        keep(conn, buf, at, at + take)
        return
      }
      case PHASE.CHUNK_SIZE: {
        const stop = lineEnd(conn, buf, at, end, false)
        if (stop === -1) return
        at = stop
        if (!onChunkSize(conn)) return
        break
      }
      case PHASE.CHUNK_DATA: {
        const take = Math.min(conn.remaining, end - at)
        keep(conn, buf, at, at + take)
        at += take
        conn.remaining -= take
        if (conn.remaining === 0) {
          conn.phase = PHASE.CHUNK_END
          conn.remaining = 2
        }
        break
      }
      case PHASE.CHUNK_END: {
        // The CRLF after a chunk's data (may be cut between reads).
        const expected = conn.remaining === 2 ? 13 : 10
        if (buf[at] !== expected) return fail(conn, FAILURE.PROTOCOL)
        at++
        if (--conn.remaining === 0) conn.phase = PHASE.CHUNK_SIZE
        break
      }
      case PHASE.TRAILERS: {
        const stop = lineEnd(conn, buf, at, end, false)
        if (stop === -1) return
        at = stop
        // An empty line ends the trailers, and the response.
        if (conn.partial === null) return complete(conn, buf, at, at, end)
        conn.partial = null
        break
      }
      case PHASE.UNTIL_CLOSE:
        keep(conn, buf, at, end)
        return
      default:
        return
    }
  }
}

/**
 * Finds the end of the head (a blank line) or of one line, from buf[at]; what came before in
 * earlier reads is in conn.partial. On success conn.partial holds the head or line (without
 * its terminator; null for an empty line) and the index after the terminator is returned; -1
 * when it is not there yet (what there is was kept).
 * @param {HttpSocket} conn
 * @param {Buffer} buf
 * @param {number} at
 * @param {number} end
 * @param {boolean} head look for CRLFCRLF rather than CRLF
 */
function lineEnd (conn, buf, at, end, head) {
  const mark = head ? '\r\n\r\n' : '\r\n'
  const prior = conn.partial
  if (prior === null) {
    const found = buf.indexOf(mark, at, 'latin1')
    if (found !== -1 && found + mark.length <= end) {
      conn.partial = found === at ? null : buf.subarray(at, found)
      return found + mark.length
    }
    if (end - at > MAX_HEAD_BYTES) return tooLong(conn)
    conn.partial = Buffer.from(buf.subarray(at, end))
    return -1
  }
  // The terminator may straddle the reads: look again over what was kept and what came.
  const joined = Buffer.concat([prior, buf.subarray(at, end)])
  const found = joined.indexOf(mark, Math.max(0, prior.length - mark.length + 1), 'latin1')
  if (found === -1) {
    if (joined.length > MAX_HEAD_BYTES) return tooLong(conn)
    conn.partial = joined
    return -1
  }
  conn.partial = found === 0 ? null : joined.subarray(0, found)
  return at + found + mark.length - prior.length
}

/**
 * @param {Buffer} h
 * @param {number} at
 * @param {string} text ASCII
 */
function startsWith (h, at, text) {
  for (let k = 0; k < text.length; k++) if (h[at + k] !== text.charCodeAt(k)) return false
  return true
}

/**
 * h[at…] is `lower` in any case (a header name).
 * @param {Buffer} h
 * @param {number} at
 * @param {string} lower lower-case ASCII
 */
function sameLower (h, at, lower) {
  for (let k = 0; k < lower.length; k++) if ((h[at + k] | 0x20) !== lower.charCodeAt(k)) return false
  return true
}

/** @param {number} byte */
function digit (byte) {
  return byte >= 48 && byte <= 57 ? byte - 48 : NaN
}

/**
 * A whole decimal number in h[from, to) between optional spaces; -1 if it is not one.
 * @param {Buffer} h
 * @param {number} from
 * @param {number} to
 */
function integerAt (h, from, to) {
  while (from < to && (h[from] === 32 || h[from] === 9)) from++
  while (to > from && (h[to - 1] === 32 || h[to - 1] === 9)) to--
  if (from === to || to - from > 15) return -1
  let value = 0
  for (let k = from; k < to; k++) {
    const d = digit(h[k])
    if (!(d >= 0)) return -1
    value = value * 10 + d
  }
  return value
}

/** @param {HttpSocket} conn */
function tooLong (conn) {
  fail(conn, FAILURE.PROTOCOL)
  return -1
}

/**
 * The head in h[from, to) (without its blank line): status, framing, keep-alive; tells the
 * handler, with the head as text only when it has a header the handler reads (Set-Cookie, the
 * watched one), else ''. Read from the bytes: no string per response. False when the request
 * ended here (failed, or an answer without a body).
 * @param {HttpSocket} conn
 * @param {Buffer} h
 * @param {number} from
 * @param {number} to
 */
function onHead (conn, h, from, to) {
  // HTTP/1.x NNN
  if (to - from < 12 || !startsWith(h, from, 'HTTP/1.') || h[from + 8] !== 32) {
    fail(conn, FAILURE.PROTOCOL)
    return false
  }
  const status = digit(h[from + 9]) * 100 + digit(h[from + 10]) * 10 + digit(h[from + 11])
  if (!(status >= 100 && status <= 999)) {
    fail(conn, FAILURE.PROTOCOL)
    return false
  }
  // 1xx: an interim answer; the real one follows.
  if (status < 200) return true
  let length = -1
  let chunked = false
  let keepAlive = h[from + 7] === 49 // HTTP/1.1 keeps the connection unless told; 1.0 closes it
  let wanted = false
  const watch = conn.watch
  // Each header line: its name's length and first letter pick the few read here.
  for (let at = from; at < to;) {
    let start = at
    while (start < to && h[start] !== 10) start++
    start++
    let colon = start
    while (colon < to && h[colon] !== 58 && h[colon] !== 13) colon++
    let stop = colon
    while (stop < to && h[stop] !== 13) stop++
    at = stop
    if (colon >= stop) continue
    const n = colon - start
    const first = h[start] | 0x20
    if (n === 14 && first === 99 && sameLower(h, start, 'content-length')) {
      const value = integerAt(h, colon + 1, stop)
      if (value < 0 || (length !== -1 && length !== value)) {
        fail(conn, FAILURE.PROTOCOL)
        return false
      }
      length = value
    } else if (n === 17 && first === 116 && sameLower(h, start, 'transfer-encoding')) {
      chunked = h.toString('latin1', colon + 1, stop).trim().toLowerCase().endsWith('chunked')
    } else if (n === 10 && first === 99 && sameLower(h, start, 'connection')) {
      const v = h.toString('latin1', colon + 1, stop).toLowerCase()
      if (v.includes('close')) keepAlive = false
      else if (v.includes('keep-alive')) keepAlive = true
    } else if (n === 10 && first === 115 && sameLower(h, start, 'set-cookie')) {
      wanted = true
    } else if (watch !== null && n === watch.length && sameLower(h, start, watch)) {
      wanted = true
    }
  }
  const head = wanted ? h.toString('latin1', from, to) : ''
  conn.status = status
  conn.keepAlive = keepAlive
  conn.bodyBytes = 0
  conn.handler.head(conn, status, head)
  if (conn.done || conn.phase !== PHASE.HEAD) return false
  if (chunked) {
    conn.phase = PHASE.CHUNK_SIZE
  } else if (length >= 0 || status === 204 || status === 304) {
    if (length > conn.maxBodyBytes) {
      fail(conn, FAILURE.TOO_LARGE)
      return false
    }
    if (length <= 0) {
      complete(conn, EMPTY, 0, 0, 0)
      return false
    }
    conn.phase = PHASE.LENGTH
    conn.remaining = length
  } else {
    // Neither: the body lasts until the server closes (HTTP/1.1 §6.3); no reuse after.
    conn.keepAlive = false
    conn.phase = PHASE.UNTIL_CLOSE
  }
  return true
}

/**
 * The chunk-size line in conn.partial (hex, perhaps `;extensions`).
 * @param {HttpSocket} conn
 */
function onChunkSize (conn) {
  const line = conn.partial === null ? '' : conn.partial.toString('latin1')
  conn.partial = null
  const semi = line.indexOf(';')
  const hex = (semi === -1 ? line : line.slice(0, semi)).trim()
  const size = /^[0-9a-fA-F]{1,12}$/.test(hex) ? parseInt(hex, 16) : -1
  if (size < 0) {
    fail(conn, FAILURE.PROTOCOL)
    return false
  }
  if (size === 0) {
    conn.phase = PHASE.TRAILERS
    return true
  }
  if (conn.bodyBytes + size > conn.maxBodyBytes) {
    fail(conn, FAILURE.TOO_LARGE)
    return false
  }
  conn.phase = PHASE.CHUNK_DATA
  conn.remaining = size
  return true
}

/**
 * Body bytes buf[from, to) that the response is not complete with: kept as a copy (the read
 * buffer is reused), within the limit.
 * @param {HttpSocket} conn
 * @param {Buffer} buf
 * @param {number} from
 * @param {number} to
 */
function keep (conn, buf, from, to) {
  if (to === from) return
  conn.bodyBytes += to - from
  if (conn.bodyBytes > conn.maxBodyBytes) return fail(conn, FAILURE.TOO_LARGE)
  const part = Buffer.from(buf.subarray(from, to))
  if (conn.parts === null) conn.parts = [part]
  else conn.parts.push(part)
}

/**
 * The response is complete with buf[from, to): the body goes to the handler, decoded where
 * it lies when nothing was kept before. Bytes after it (to < end) were never asked for.
 * @param {HttpSocket} conn
 * @param {Buffer} buf
 * @param {number} from
 * @param {number} to
 * @param {number} end
 */
function complete (conn, buf, from, to, end) {
  const parts = conn.parts
  let body
  if (parts === null) body = to === from ? '' : buf.toString('utf8', from, to)
  else {
    if (to > from) parts.push(buf.subarray(from, to))
    body = Buffer.concat(parts).toString()
  }
  conn.parts = null
  conn.phase = PHASE.IDLE
  if (to < end || !conn.keepAlive) {
    // No reuse: the server closes it, or sent more than was asked for.
    conn.done = true
    conn.end()
  }
  conn.handler.done(conn, conn.status, body)
}

/**
 * The request in flight fails; the connection is closed (what is left of the answer would be read as the next one's).
 * @param {HttpSocket} conn
 * @param {string} detail
 * @param {boolean} [retry]
 */
function fail (conn, detail, retry = false) {
  if (conn.phase === PHASE.IDLE) return
  conn.phase = PHASE.IDLE
  conn.parts = conn.partial = null
  conn.done = true
  conn.destroy()
  conn.handler.failed(conn, detail, retry)
}

/**
 * @this {HttpSocket}
 * @param {Error & { code?: string }} error
 */
function onError (error) {
  const conn = this
  conn.errorCode ??= error?.code ?? 'ECONNRESET'
}

/** @this {HttpSocket} */
function onEnd () {
  const conn = this
  conn.done = true
  // A body that lasts until the server closes is complete now.
  if (conn.phase === PHASE.UNTIL_CLOSE) complete(conn, EMPTY, 0, 0, 0)
}

/** @this {HttpSocket} */
function onClose () {
  const conn = this
  conn.done = true
  if (conn.phase === PHASE.IDLE) return
  if (conn.phase === PHASE.UNTIL_CLOSE && conn.errorCode === undefined) return complete(conn, EMPTY, 0, 0, 0)
  // Closed before any answer on a connection that had served a request: its keep-alive ran out under ours.
  fail(conn, conn.errorCode ?? FAILURE.CLOSED, conn.seen === 0 && conn.requests > 1)
}
