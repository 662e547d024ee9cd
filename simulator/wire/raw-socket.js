/**
 * The built-in WebSocket client's socket (RFC 6455 over a `net` socket, ws:// only), the base
 * of the lean engine's RawWebSocket and the plain WebSocket engine's PlainRawSocket. It exists
 * for the per-frame CPU goal: every socket reads into ONE shared buffer (net's `onread`), so a
 * frame costs no Readable-stream push, no per-read allocation and no Writable-stream Receiver;
 * frames are handled where they lie (raw-frames.js) and data is consumed or copied inside the
 * read callback, before the next read reuses the buffer. UTF-8 is not validated (as ws's
 * skipUTF8Validation). A subclass says what its protocol does once the server accepts the
 * handshake (`opened`), with a message (`deliver`) and a pong (`onPong`).
 */
import net from 'node:net'
import { OPCODE, newKey, checkHandshakeResponse, encodeFrame, encodeTextFrame, gatherHandshake } from './rfc6455.js'
import { readFrames, protocolError } from './raw-frames.js'

const READ_BUFFER = Buffer.allocUnsafe(64 * 1024)
const EMPTY = Buffer.alloc(0)

/**
 * @template {{ maxPayloadBytes: number }} S what the frame reader reads: the payload limit
 * @template {{ gen: number }} C
 */
export class RawSocket extends net.Socket {
  /**
   * @param {S} session
   * @param {C} client
   */
  constructor (session, client) {
    // `onread` is documented for net.Socket but missing from @types/node's constructor options.
    super(/** @type {net.SocketConstructorOpts} */ ({ onread: { buffer: READ_BUFFER, callback: onRead } }))
    this.session = session
    this.client = client
    this.gen = client.gen
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
    this.setNoDelay(true)
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
}

/**
 * @this {net.Socket}
 * @param {number} bytes
 * @param {Buffer} buf the shared read buffer
 */
function onRead (bytes, buf) {
  const ws = /** @type {RawSocket<{ maxPayloadBytes: number }, { gen: number }>} */ (this)
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
