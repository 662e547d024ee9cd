/**
 * A plain WebSocket client on the built-in RFC 6455 implementation (wire/raw-socket.js; opt-in:
 * `--ws-client builtin`, ws:// and wss://): every socket reads into one shared buffer and the frame
 * reader (../../wire/raw-frames.js) handles frames where they lie, so a frame costs what it
 * costs the lean engine. It answers pings there; a close frame's status and reason are kept
 * for the reason the pool counts.
 */
import { OPCODE, handshakeRequest } from '../../wire/rfc6455.js'
import { RawSocket } from '../../wire/raw-socket.js'
import { errorText } from './reasons.js'

/** @typedef {import('./pool.js').PlainPool} PlainPool */
/** @typedef {import('./client.js').PlainClient} PlainClient */

const EMPTY = Buffer.alloc(0)
/** Close status 1000 (normal closure). */
const CLOSE_NORMAL = Buffer.from([0x03, 0xe8])

/** @extends {RawSocket<PlainPool, PlainClient>} */
export class PlainRawSocket extends RawSocket {
  /**
   * @param {PlainPool} pool
   * @param {PlainClient} client
   * @param {string} path request path and query
   * @param {Record<string, string> | null} headers
   */
  constructor (pool, client, path, headers) {
    // The pool is the frame reader's session: it holds the payload limit.
    super(pool, client)
    this.pool = pool
    this.path = path
    this.headers = headers
    /** What failed: the socket error or what was wrong with the handshake; '' = nothing. */
    this.error = ''
    this.connectTo({ port: pool.config.port, host: pool.config.host }, pool.tlsClient)
  }

  /** @returns {string} the upgrade request, with the subprotocols offered */
  request () {
    const { hostHeader, protocolHeader } = this.pool.config
    const headers = protocolHeader === null ? this.headers : { ...this.headers, 'Sec-WebSocket-Protocol': protocolHeader }
    return handshakeRequest(this.path, hostHeader, this.key, headers)
  }

  // sendText: the base's (wire/raw-socket.js), one frame written straight from the string.

  sendPing () {
    this.sendFrame(OPCODE.PING, EMPTY)
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
    super.shut(graceful, CLOSE_NORMAL)
  }

  offered () {
    return this.pool.config.subprotocols
  }

  /** @param {string} problem */
  refused (problem) {
    this.error = problem
    super.refused(problem)
  }

  /** @param {string} head the 101's status line and headers */
  opened (head) {
    this.pool.onUpgraded(this, undefined, head)
    this.pool.onOpen(this)
  }

  /** @param {Error} error */
  errored (error) {
    this.failed = true
    if (this.error === '') this.error = errorText(error)
  }

  closed () {
    this.pool.onSocketClosed(this)
  }
}
