/**
 * The built-in WebSocket client's socket (RFC 6455 over a `net` socket, or a TLS one for
 * wss://), the base of the lean engine's RawWebSocket and the plain WebSocket engine's
 * PlainRawSocket. It exists for the per-frame CPU goal: every connection reads into ONE shared
 * buffer (net's and tls's `onread`), so a frame costs no Readable-stream push, no per-read
 * allocation and no Writable-stream Receiver; frames are handled where they lie
 * (raw-frames.js) and data is consumed or copied inside the read callback, before the next
 * read reuses the buffer. UTF-8 is not validated (as ws's skipUTF8Validation). The socket
 * holds its connection rather than being one, so that one class serves both: tls.connect()
 * makes its TLSSocket itself. A subclass says what its protocol sends once the connection is
 * up (`request`), does once the server accepts the handshake (`opened`), with a message
 * (`deliver`), a pong (`onPong`), an error (`errored`) and the end (`closed`).
 */
import net from 'node:net'
import { OPCODE, newKey, checkHandshakeResponse, encodeFrame, encodeTextFrame, gatherHandshake } from './rfc6455.js'
import { readFrames, protocolError } from './raw-frames.js'

const READ_BUFFER = Buffer.allocUnsafe(64 * 1024)
const ON_READ = Object.freeze({ buffer: READ_BUFFER, callback: onRead })
const EMPTY = Buffer.alloc(0)

/**
 * A connection and the RawSocket it carries (its events' handlers are shared functions).
 * @typedef {net.Socket & { owner: RawSocket<any, any> }} Connection
 */

/**
 * @template {{ maxPayloadBytes: number }} S what the frame reader reads: the payload limit
 * @template {{ gen: number }} C
 */
export class RawSocket {
  /**
   * @param {S} session
   * @param {C} client
   */
  constructor (session, client) {
    this.session = session
    this.client = client
    this.gen = client.gen
    /** @type {Connection | null} the TCP or TLS connection; a new one for each connect */
    this.socket = null
    /** The handshake key until the server accepts it, then ''. */
    this.key = newKey()
    /** An 'error' came before 'close', or the peer broke the protocol. */
    this.failed = false
    /** The peer announced a message over the payload limit. */
    this.tooLarge = false
    /** A close frame was sent: nothing more is sent or delivered. */
    this.closing = false
    /** @type {Buffer | null} handshake bytes or a frame header cut by the end of a read (a copy) */
    this.partial = null
    /** @type {Buffer | null} payload of a frame longer than what has arrived */
    this.payload = null
    this.payloadFill = 0
    this.frameOpcode = 0
    this.frameFin = false
    /** @type {Buffer[] | null} a fragmented message being assembled */
    this.fragments = null
    this.fragmentOpcode = 0
    this.fragmentBytes = 0
    /** Status and reason of the peer's close frame; 0 = none came. */
    this.closeCode = 0
    this.closeReason = ''
  }

  /**
   * Connects: TCP, then TLS when `tls` is given; the handshake request goes once the connection is up.
   * @param {{ host: string, port: number, localAddress?: string, localPort?: number }} to
   * @param {import('./tls/tls-client.js').TlsClient | null} tls
   */
  connectTo (to, tls) {
    // `onread` is documented for net.Socket but missing from @types/node's constructor options.
    const plain = () => new net.Socket(/** @type {net.SocketConstructorOpts} */ ({ onread: ON_READ }))
    const socket = /** @type {Connection} */ (tls === null ? plain() : tls.connect(to, ON_READ))
    socket.owner = this
    this.socket = socket
    socket.setNoDelay(true)
    socket.once(tls === null ? 'connect' : 'secureConnect', socketOnUp)
    socket.on('error', socketOnError)
    socket.on('close', socketOnClose)
    if (tls === null) socket.connect(to)
  }

  /** The connection has ended, or was never made. */
  get destroyed () {
    return this.socket === null || this.socket.destroyed
  }

  /** @param {Buffer | string} data */
  write (data) {
    this.socket?.write(data)
  }

  /** @param {Buffer} data the last bytes sent */
  end (data) {
    this.socket?.end(data)
  }

  /** Resets the connection ('close' follows); one not made yet ends at once. */
  destroy () {
    if (this.socket !== null) this.socket.destroy()
    else process.nextTick(() => this.closed())
  }

  /**
   * Sends one frame, once the handshake is done and until a close frame has gone.
   * @param {number} opcode
   * @param {Buffer} payload
   */
  sendFrame (opcode, payload) {
    if (this.key === '' && !this.closing && !this.destroyed) this.write(encodeFrame(opcode, payload))
  }

  /**
   * Sends a text message as one frame, in one write (the same rules as sendFrame).
   * @param {string} text
   */
  sendText (text) {
    if (this.key === '' && !this.closing && !this.destroyed) this.write(encodeTextFrame(text))
  }

  /**
   * @param {boolean} graceful a close frame (as ws.close()) rather than a reset
   * @param {Buffer} [body] the close frame's status and reason (none: no status)
   */
  shut (graceful, body = EMPTY) {
    if (graceful && this.key === '' && !this.closing && !this.destroyed) {
      this.closing = true
      this.end(encodeFrame(OPCODE.CLOSE, body))
    } else {
      this.destroy()
    }
  }

  /** @returns {string} the opening handshake request, sent once the connection is up */
  request () {
    return ''
  }

  /** @returns {string[] | null} the subprotocols the handshake offered (null: not checked) */
  offered () {
    return null
  }

  /**
   * The server's handshake response is not an acceptance: the connection ends as failed.
   * @param {string} problem what is wrong (ws's wording)
   */
  refused (problem) {
    protocolError(this)
  }

  /**
   * The server accepted the handshake.
   * @param {string} head the answer's status line and headers (its cookies, say)
   */
  opened (head) {}

  /**
   * A whole message: data[start, end), valid only during the call for text.
   * @param {Buffer} data
   * @param {number} start
   * @param {number} end
   * @param {boolean} isBinary
   */
  deliver (data, start, end, isBinary) {}

  /** A pong came. */
  onPong () {}

  /**
   * The connection failed ('close' follows); a subclass keeps what failed.
   * @param {Error & { code?: string }} error
   */
  // eslint-disable-next-line n/handle-callback-err
  errored (error) {
    this.failed = true
  }

  /** The connection has closed. */
  closed () {}
}

/** @this {net.Socket} */
function socketOnUp () {
  const ws = /** @type {Connection} */ (this).owner
  ws.write(ws.request())
}

/**
 * @this {net.Socket}
 * @param {Error & { code?: string }} error
 */
function socketOnError (error) {
  const ws = /** @type {Connection} */ (this).owner
  if (ws.socket === this) ws.errored(error)
}

/** @this {net.Socket} */
function socketOnClose () {
  const ws = /** @type {Connection} */ (this).owner
  if (ws.socket === this) ws.closed()
}

/**
 * @this {net.Socket}
 * @param {number} bytes
 * @param {Buffer} buf the shared read buffer
 */
function onRead (bytes, buf) {
  const ws = /** @type {Connection} */ (this).owner
  if (ws.key !== '') readHandshake(ws, buf, bytes)
  else readFrames(ws, buf, 0, bytes)
}

/**
 * @param {RawSocket<{ maxPayloadBytes: number }, { gen: number }>} ws
 * @param {Buffer} buf
 * @param {number} end
 */
function readHandshake (ws, buf, end) {
  const got = gatherHandshake(ws, buf, end)
  if (got === 'incomplete') return
  if (got === 'too long') return ws.refused('handshake response too long')
  const problem = checkHandshakeResponse(got.head, ws.key, ws.offered())
  if (problem !== null) return ws.refused(problem)
  ws.key = ''
  ws.opened(got.head)
  if (got.rest < got.data.length && !ws.destroyed) readFrames(ws, got.data, got.rest, got.data.length)
}
