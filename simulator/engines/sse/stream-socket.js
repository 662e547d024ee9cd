/**
 * The built-in HTTP/1.1 client of an event stream: one GET written as one string on a TCP
 * connection (https://: TLS on it, from simulator/wire/tls/, whose context, SNI and latest
 * session ticket every connection of a destination shares, as the built-in WebSocket client's), the answer
 * read from ONE buffer shared by every connection (net's `onread`, as the other built-in
 * clients of simulator/wire/ do) by a small parser: the head (status, content type, cookies),
 * then a body framed by chunked encoding, by Content-Length, or by the end of the connection,
 * each piece handed to the stream's reader as it comes. No request object, no response stream
 * and no HTTP parser per client: what Node's http client costs per stream, in memory and per
 * event, is most of what a subscriber costs (bench/engines.js, the sse rows).
 */
import net from 'node:net'

const READ_BUFFER = Buffer.allocUnsafe(64 * 1024)
const HEAD_END = Buffer.from('\r\n\r\n')
/** Longest answer head kept (status line and headers): more ends the stream. */
const MAX_HEAD_BYTES = 64 * 1024
/** Longest chunk-size line (hex digits and extensions). */
const MAX_SIZE_LINE = 1024

/** Where the reader is in the answer. */
const READ = Object.freeze({ HEAD: 0, UNTIL_CLOSE: 1, LENGTH: 2, CHUNK_SIZE: 3, CHUNK_DATA: 4, CHUNK_END: 5, DONE: 6 })

/**
 * What a stream tells its owner (the pool: one object for every stream).
 * @typedef {object} StreamOwner
 * @property {(socket: SseSocket, status: number, type: string, setCookie: string[], node: string | null) => boolean} head the answer's head
 *   (node: the value of the header named by nodeHeader); false: no stream, stop reading
 * @property {string | null} nodeHeader a response header (lower-case) whose value the head hands on: --node-from header:NAME
 * @property {(socket: SseSocket, data: Buffer) => void} data a piece of the body (valid only during the call)
 * @property {(socket: SseSocket, reason: string) => void} ended the stream ended or failed (told once)
 */

/** @typedef {net.Socket & { stream?: SseSocket }} Connection a plain or TLS socket, with the stream it carries */

/** Every connection reads into the one buffer. */
const ON_READ = { buffer: READ_BUFFER, callback: onRead }

export class SseSocket {
  /**
   * @param {StreamOwner} owner
   * @param {unknown} client whose stream it is (the owner's)
   * @param {number} gen the client's generation when it opened
   * @param {{ host: string, port: number }} to
   * @param {string} request the whole GET, head and blank line
   * @param {import('../../wire/tls/tls-client.js').TlsClient | null} tls https://: the destination's shared TLS (context, SNI, session ticket)
   */
  constructor (owner, client, gen, to, request, tls = null) {
    this.owner = owner
    this.client = client
    this.gen = gen
    this.request = request
    /** @type {number} one of READ */
    this.phase = READ.HEAD
    /** @type {Buffer | null} a head or chunk-size line cut by the end of a read (a copy) */
    this.partial = null
    /** Bytes left of the body (LENGTH) or of the chunk (CHUNK_DATA), or of the CRLF after it (CHUNK_END). */
    this.remaining = 0
    /** Told the owner it ended (once). */
    this.over = false
    /** @type {string} the connection's error, when it failed */
    this.error = ''
    // `onread` is documented for net.Socket but missing from @types/node's constructor options.
    const plain = () => new net.Socket(/** @type {net.SocketConstructorOpts} */ ({ onread: ON_READ }))
    const socket = /** @type {Connection} */ (tls === null ? plain() : tls.connect({ host: to.host, port: to.port }, ON_READ))
    socket.stream = this
    this.socket = socket
    socket.setNoDelay(true)
    socket.once(tls === null ? 'connect' : 'secureConnect', onUp)
    socket.on('error', onError)
    socket.on('close', onClose)
    if (tls === null) socket.connect(to.port, to.host)
  }

  /** Drops the connection (the owner hears nothing more: it ended the client itself). */
  destroy () {
    this.over = true
    this.phase = READ.DONE
    this.socket.destroy()
  }

  /**
   * Ends the stream for the owner, once, and drops the connection.
   * @param {string} reason
   */
  finish (reason) {
    this.phase = READ.DONE
    this.partial = null
    if (!this.over) {
      this.over = true
      this.owner.ended(this, reason)
    }
    this.socket.destroy()
  }
}

/** @this {Connection} */
function onUp () {
  this.write(/** @type {SseSocket} */ (this.stream).request)
}

/**
 * @this {Connection}
 * @param {Error & { code?: string }} error
 */
function onError (error) {
  const s = /** @type {SseSocket} */ (this.stream)
  if (s.error === '') s.error = typeof error.code === 'string' && /^[A-Z][A-Z0-9_]+$/.test(error.code) ? error.code : error.message
}

/** @this {Connection} */
function onClose () {
  const s = /** @type {SseSocket} */ (this.stream)
  s.finish(s.error !== '' ? s.error : s.phase === READ.HEAD ? 'closed before an answer' : 'stream ended by the server')
}

/**
 * @this {Connection}
 * @param {number} bytes
 * @param {Buffer} buf the shared read buffer
 */
function onRead (bytes, buf) {
  const s = /** @type {SseSocket} */ (this.stream)
  if (s.phase !== READ.DONE) readAnswer(s, buf, 0, bytes)
}

/**
 * Reads buf[at, end) of the answer.
 * @param {SseSocket} s
 * @param {Buffer} buf
 * @param {number} at
 * @param {number} end
 */
export function readAnswer (s, buf, at, end) {
  while (at < end && s.phase !== READ.DONE) {
    switch (s.phase) {
      case READ.HEAD:
        at = readHead(s, buf, at, end)
        break
      case READ.UNTIL_CLOSE:
        s.owner.data(s, buf.subarray(at, end))
        at = end
        break
      case READ.LENGTH:
      case READ.CHUNK_DATA: {
        const take = Math.min(s.remaining, end - at)
        s.owner.data(s, buf.subarray(at, at + take))
        at += take
        s.remaining -= take
        if (s.remaining === 0) {
          if (s.phase === READ.LENGTH) s.finish('stream ended by the server')
          else {
            s.phase = READ.CHUNK_END
            s.remaining = 2
          }
        }
        break
      }
      case READ.CHUNK_END: {
        // The CRLF after a chunk's data.
        const take = Math.min(s.remaining, end - at)
        at += take
        s.remaining -= take
        if (s.remaining === 0) s.phase = READ.CHUNK_SIZE
        break
      }
      case READ.CHUNK_SIZE:
        at = readChunkSize(s, buf, at, end)
        break
    }
  }
}

/**
 * Reads the answer's head; hands it to the owner once whole.
 * @param {SseSocket} s
 * @param {Buffer} buf
 * @param {number} at
 * @param {number} end
 * @returns {number} where the body starts (or end, when the head is not whole yet)
 */
function readHead (s, buf, at, end) {
  // A head cut by the end of a read is joined to the next read (a copy); the usual head comes whole.
  const data = s.partial === null ? buf : Buffer.concat([s.partial, buf.subarray(at, end)])
  const from = data === buf ? at : 0
  const to = data === buf ? end : data.length
  const stop = data.indexOf(HEAD_END, from)
  if (stop === -1 || stop >= to) {
    if (to - from > MAX_HEAD_BYTES) s.finish('answer head too large')
    else s.partial = Buffer.from(data.subarray(from, to))
    return end
  }
  s.partial = null
  const { status, type, chunked, length, setCookie, node } = parseHead(data.toString('latin1', from, stop), s.owner.nodeHeader)
  if (status === 0) {
    s.finish('not an HTTP answer')
    return end
  }
  if (!s.owner.head(s, status, type, setCookie, node)) {
    // The owner has ended the client itself: nothing more to tell it.
    s.over = true
    s.finish('')
    return end
  }
  s.phase = chunked ? READ.CHUNK_SIZE : length >= 0 ? READ.LENGTH : READ.UNTIL_CLOSE
  s.remaining = length
  if (s.phase === READ.LENGTH && length === 0) s.finish('stream ended by the server')
  if (data === buf) return stop + 4
  // The rest of the joined copy is body: read it there.
  readAnswer(s, data, stop + 4, to)
  return end
}

/**
 * @param {string} head status line and header lines
 * @param {string | null} watch a header (lower-case) whose value is wanted
 */
function parseHead (head, watch) {
  const lines = head.split('\r\n')
  const status = /^HTTP\/1\.[01] (\d{3})/.exec(lines[0])
  let type = ''
  let chunked = false
  let length = -1
  /** @type {string[]} */
  const setCookie = []
  /** @type {string | null} */
  let node = null
  for (let k = 1; k < lines.length; k++) {
    const line = lines[k]
    const colon = line.indexOf(':')
    if (colon <= 0) continue
    const name = line.slice(0, colon).trim().toLowerCase()
    const value = line.slice(colon + 1).trim()
    if (name === 'content-type') type = value.split(';')[0].trim().toLowerCase()
    else if (name === 'transfer-encoding') chunked = /(^|,)\s*chunked\s*$/i.test(value)
    else if (name === 'content-length') length = /^\d+$/.test(value) ? Number(value) : -1
    else if (name === 'set-cookie') setCookie.push(value)
    else if (name === watch) node = value
  }
  return { status: status ? Number(status[1]) : 0, type, chunked, length: chunked ? -1 : length, setCookie, node }
}

/**
 * Reads a chunk-size line; a size of 0 ends the stream.
 * @param {SseSocket} s
 * @param {Buffer} buf
 * @param {number} at
 * @param {number} end
 * @returns {number}
 */
function readChunkSize (s, buf, at, end) {
  const lf = buf.indexOf(10, at)
  if (lf === -1 || lf >= end) {
    const part = buf.subarray(at, end)
    s.partial = s.partial === null ? Buffer.from(part) : Buffer.concat([s.partial, part])
    if (s.partial.length > MAX_SIZE_LINE) s.finish('bad chunked encoding')
    return end
  }
  let line = buf.toString('latin1', at, lf)
  if (s.partial !== null) {
    line = s.partial.toString('latin1') + line
    s.partial = null
  }
  const size = parseInt(line, 16)
  if (!Number.isFinite(size) || !/^[0-9a-fA-F]/.test(line)) {
    s.finish('bad chunked encoding')
    return end
  }
  if (size === 0) {
    s.finish('stream ended by the server')
    return end
  }
  s.phase = READ.CHUNK_DATA
  s.remaining = size
  return lf + 1
}
