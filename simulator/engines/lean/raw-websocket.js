/**
 * The built-in WebSocket client for plain ws:// (RFC 6455 over a `net` socket), used instead
 * of `ws` because it is what lets the lean engine reach its per-frame CPU goal: every socket
 * reads into ONE shared buffer (net's `onread`), so a frame costs no Readable-stream push, no
 * per-read allocation and no Writable-stream Receiver; a broadcast frame found in the frame
 * cache is compared in place and never copied. Data is consumed or copied inside the read
 * callback, before the next read reuses the buffer. `ws` stays in use for wss:// and
 * permessage-deflate (websocket.js). UTF-8 is not validated (as ws's skipUTF8Validation).
 */
import net from 'node:net'
import { OPCODE, newKey, handshakeRequest, checkHandshakeResponse, encodeFrame, gatherHandshake } from './rfc6455.js'
import { readFrames, protocolError } from './raw-frames.js'
import { onSocketMessage } from './inbound.js'
import { PAYLOAD_TOO_LARGE } from '../limits.js'
import { withDetail } from './polling.js'
import { MAX_PORT_TRIES } from '../../source-ports.js'
import { storeHeadSetCookies, upgradeHeaders } from './cookies.js'

/** @typedef {import('./client.js').Client} Client */
/** @typedef {import('./session.js').LeanSession} LeanSession */

const READ_BUFFER = Buffer.allocUnsafe(64 * 1024)
const EMPTY = Buffer.alloc(0)

export class RawWebSocket extends net.Socket {
  /**
   * @param {LeanSession} session
   * @param {Client} client
   * @param {boolean} probe an upgrade probe (the path carries the sid)
   */
  constructor (session, client, probe) {
    // `onread` is documented for net.Socket but missing from @types/node's constructor options.
    super(/** @type {net.SocketConstructorOpts} */ ({ onread: { buffer: READ_BUFFER, callback: onRead } }))
    this.session = session
    this.client = client
    this.gen = client.gen
    this.probe = probe
    /** The handshake key until the server accepts it, then ''. */
    this.key = newKey()
    /** An 'error' came before 'close', or the peer broke the protocol. */
    this.failed = false
    /** @type {string | undefined} what failed: the connection error's code */
    this.detail = undefined
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
    /** --source-address: this socket's address index and port (0 = none held), and ports tried. */
    this.sourceAddress = session.config.sourcePorts?.addressOf(client.i) ?? -1
    this.sourcePort = 0
    this.portTries = 0
    /** The kernel refused the port: close, then connect again from the next one. */
    this.retryPort = false
    this.on('connect', onConnect)
    this.on('error', onError)
    this.on('close', onClose)
    this.setNoDelay(true)
    this.open()
  }

  /** Connects, from this client's source address and a port of its own when --source-address is given. */
  open () {
    const { port, host, sourcePorts } = this.session.config
    if (sourcePorts === null) return this.connect(port, host)
    this.sourcePort = sourcePorts.acquire(this.sourceAddress)
    if (this.sourcePort === 0) {
      sourcePorts.exhausted[this.sourceAddress]++
      this.failed = true
      return this.destroy()
    }
    this.connect({ port, host, localAddress: sourcePorts.addresses[this.sourceAddress], localPort: this.sourcePort })
  }

  /** @param {string} text an Engine.IO packet */
  send (text) {
    if (this.key === '' && !this.closing && !this.destroyed) this.write(encodeFrame(OPCODE.TEXT, Buffer.from(text)))
  }

  /**
   * A whole message from the frame reader: data[start, end), valid only during the call for text.
   * @param {Buffer} data
   * @param {number} start
   * @param {number} end
   * @param {boolean} isBinary
   */
  deliver (data, start, end, isBinary) {
    onSocketMessage(this, data, start, end, isBinary)
  }

  /** A pong: Engine.IO heartbeats are packets, so this client never pings. */
  onPong () {}

  /** @param {boolean} graceful a close frame (as ws.close()) rather than a reset */
  shut (graceful) {
    if (graceful && this.key === '' && !this.closing && !this.destroyed) {
      this.closing = true
      this.end(encodeFrame(OPCODE.CLOSE, EMPTY))
    } else {
      this.destroy()
    }
  }
}

/** @this {net.Socket} */
function onConnect () {
  const ws = /** @type {RawWebSocket} */ (this)
  const { wsPath, hostHeader } = ws.session.config
  const c = ws.client
  const path = ws.probe ? `${wsPath}${c.querySuffix}&sid=${encodeURIComponent(c.sid)}` : `${wsPath}${c.querySuffix}`
  ws.write(handshakeRequest(path, hostHeader, ws.key, upgradeHeaders(ws.session, c)))
}

/**
 * @this {net.Socket}
 * @param {Error & { code?: string }} error
 */
function onError (error) {
  const ws = /** @type {RawWebSocket} */ (this)
  // A source port the kernel refuses (held by another process, or TIME_WAIT to this server): the next one.
  if (ws.sourcePort !== 0 && ws.key !== '' && (error.code === 'EADDRINUSE' || error.code === 'EADDRNOTAVAIL') && ++ws.portTries < MAX_PORT_TRIES) {
    ws.retryPort = true
    return
  }
  ws.failed = true
  ws.detail ??= error?.code
}

/** @this {net.Socket} */
function onClose () {
  const ws = /** @type {RawWebSocket} */ (this)
  const ports = ws.session.config.sourcePorts
  if (ports !== null && ws.sourcePort !== 0) {
    ports.release(ws.sourceAddress, ws.sourcePort)
    ws.sourcePort = 0
  }
  if (ws.retryPort) {
    // net.Socket may connect again once it has closed (Node's docs: "reconnecting a socket after 'close'").
    ws.retryPort = false
    if (ports !== null) ports.refused[ws.sourceAddress]++
    if (ws.client.gen === ws.gen && (ws.client.ws === ws || ws.client.probe === ws)) return ws.open()
  }
  ws.session.onHandleClosed()
  const c = ws.client
  if (c.gen !== ws.gen) return
  if (c.probe === ws) ws.session.onProbeFailed(c)
  else if (c.ws === ws) ws.session.onTransportLost(c, ws.tooLarge ? PAYLOAD_TOO_LARGE : ws.failed || ws.key !== '' ? withDetail('websocket error', ws.detail) : 'transport close')
}

/**
 * @this {net.Socket}
 * @param {number} bytes
 * @param {Buffer} buf the shared read buffer
 */
function onRead (bytes, buf) {
  const ws = /** @type {RawWebSocket} */ (this)
  if (ws.key !== '') readHandshake(ws, buf, bytes)
  else readFrames(ws, buf, 0, bytes)
}

/**
 * @param {RawWebSocket} ws
 * @param {Buffer} buf
 * @param {number} end
 */
function readHandshake (ws, buf, end) {
  const got = gatherHandshake(ws, buf, end)
  if (got === 'incomplete') return
  if (got === 'too long' || checkHandshakeResponse(got.head, ws.key) !== null) return protocolError(ws)
  ws.key = ''
  const c = ws.client
  storeHeadSetCookies(ws.session, c, got.head)
  if (c.gen === ws.gen && c.probe === ws) ws.send('2probe')
  if (got.rest < got.data.length) readFrames(ws, got.data, got.rest, got.data.length)
}
