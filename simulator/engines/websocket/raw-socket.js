/**
 * A plain WebSocket client on the lean engine's built-in RFC 6455 implementation (opt-in:
 * `--ws-client builtin`, ws:// only): every socket reads into one shared buffer and the lean
 * engine's frame reader (../../wire/raw-frames.js) handles frames where they lie, so a frame
 * costs what it costs the lean engine. It answers pings there; a close frame's status and
 * reason are kept for the reason the pool counts.
 */
import net from 'node:net'
import { OPCODE, newKey, handshakeRequest, checkHandshakeResponse, encodeFrame, gatherHandshake } from '../../wire/rfc6455.js'
import { readFrames, protocolError } from '../../wire/raw-frames.js'
import { errorText } from './reasons.js'

/** @typedef {import('./pool.js').PlainPool} PlainPool */
/** @typedef {import('./client.js').PlainClient} PlainClient */

const READ_BUFFER = Buffer.allocUnsafe(64 * 1024)
const EMPTY = Buffer.alloc(0)
/** Close status 1000 (normal closure). */
const CLOSE_NORMAL = Buffer.from([0x03, 0xe8])

export class PlainRawSocket extends net.Socket {
  /**
   * @param {PlainPool} pool
   * @param {PlainClient} client
   * @param {string} path request path and query
   * @param {Record<string, string> | null} headers
   */
  constructor (pool, client, path, headers) {
    super(/** @type {net.SocketConstructorOpts} */ ({ onread: { buffer: READ_BUFFER, callback: onRead } }))
    this.pool = pool
    /** What the frame reader reads: the payload limit. */
    this.session = pool
    this.client = client
    this.gen = client.gen
    this.path = path
    this.headers = headers
    /** The handshake key until the server accepts it, then ''. */
    this.key = newKey()
    this.closeCode = 0
    this.closeReason = ''
    this.error = ''
    this.failed = false
    this.tooLarge = false
    this.closing = false
    /** @type {Buffer | null} */
    this.partial = null
    /** @type {Buffer | null} */
    this.payload = null
    this.payloadFill = 0
    this.frameOpcode = 0
    this.frameFin = false
    /** @type {Buffer[] | null} */
    this.fragments = null
    this.fragmentOpcode = 0
    this.fragmentBytes = 0
    this.on('connect', onConnect)
    this.on('error', onError)
    this.on('close', onClose)
    this.setNoDelay(true)
    this.connect(pool.config.port, pool.config.host)
  }

  /** @param {string} text */
  sendText (text) {
    if (this.key === '' && !this.closing && !this.destroyed) this.write(encodeFrame(OPCODE.TEXT, Buffer.from(text)))
  }

  sendPing () {
    if (this.key === '' && !this.closing && !this.destroyed) this.write(encodeFrame(OPCODE.PING, EMPTY))
  }

  /**
   * @param {Buffer} data
   * @param {number} start
   * @param {number} end
   * @param {boolean} isBinary
   */
  deliver (data, start, end, isBinary) {
    this.pool.onMessage(this, data, start, end, isBinary)
  }

  onPong () {
    this.pool.onPong(this)
  }

  /** @param {boolean} graceful a close frame (1000) rather than a reset */
  shut (graceful) {
    if (graceful && this.key === '' && !this.closing && !this.destroyed) {
      this.closing = true
      this.end(encodeFrame(OPCODE.CLOSE, CLOSE_NORMAL))
    } else {
      this.destroy()
    }
  }
}

/** @this {net.Socket} */
function onConnect () {
  const ws = /** @type {PlainRawSocket} */ (this)
  const { hostHeader, protocolHeader } = ws.pool.config
  const headers = protocolHeader === null ? ws.headers : { ...ws.headers, 'Sec-WebSocket-Protocol': protocolHeader }
  ws.write(handshakeRequest(ws.path, hostHeader, ws.key, headers))
}

/**
 * @this {net.Socket}
 * @param {Error} error
 */
function onError (error) {
  const ws = /** @type {PlainRawSocket} */ (this)
  ws.failed = true
  if (ws.error === '') ws.error = errorText(error)
}

/** @this {net.Socket} */
function onClose () {
  const ws = /** @type {PlainRawSocket} */ (this)
  ws.pool.onSocketClosed(ws)
}

/**
 * @this {net.Socket}
 * @param {number} bytes
 * @param {Buffer} buf the shared read buffer
 */
function onRead (bytes, buf) {
  const ws = /** @type {PlainRawSocket} */ (this)
  if (ws.key !== '') readHandshake(ws, buf, bytes)
  else readFrames(ws, buf, 0, bytes)
}

/**
 * @param {PlainRawSocket} ws
 * @param {Buffer} buf
 * @param {number} end
 */
function readHandshake (ws, buf, end) {
  const got = gatherHandshake(ws, buf, end)
  if (got === 'incomplete') return
  if (got === 'too long') return fail(ws, 'handshake response too long')
  const problem = checkHandshakeResponse(got.head, ws.key, ws.pool.config.subprotocols)
  if (problem !== null) return fail(ws, problem)
  ws.key = ''
  ws.pool.onOpen(ws)
  if (got.rest < got.data.length && !ws.destroyed) readFrames(ws, got.data, got.rest, got.data.length)
}

/**
 * @param {PlainRawSocket} ws
 * @param {string} error
 */
function fail (ws, error) {
  ws.error = error
  protocolError(ws)
}
