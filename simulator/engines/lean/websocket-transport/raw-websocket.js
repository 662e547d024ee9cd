/**
 * The lean engine's built-in WebSocket client for plain ws:// (wire/raw-socket.js: RFC 6455
 * over a `net` socket reading into one shared buffer), used instead of `ws` because it is what
 * lets the lean engine reach its per-frame CPU goal: a broadcast frame found in the frame cache
 * is compared in place and never copied. `ws` stays in use for wss:// and permessage-deflate
 * (websocket.js).
 */
import { handshakeRequest } from '../../../wire/rfc6455.js'
import { RawSocket } from '../../../wire/raw-socket.js'
import { onSocketMessage } from '../inbound.js'
import { PAYLOAD_TOO_LARGE } from '../../../wire/limits.js'
import { withDetail } from '../reasons.js'
import { MAX_PORT_TRIES, connectOwnPort } from '../../../wire/source-ports.js'
import { noteHeadNodeHeader, storeHeadSetCookies, upgradeHeaders } from '../cookies.js'

/** @typedef {import('../client.js').Client} Client */
/** @typedef {import('../session.js').LeanSession} LeanSession */

/** @extends {RawSocket<LeanSession, Client>} */
export class RawWebSocket extends RawSocket {
  /**
   * @param {LeanSession} session
   * @param {Client} client
   * @param {boolean} probe an upgrade probe (the path carries the sid)
   */
  constructor (session, client, probe) {
    super(session, client)
    this.probe = probe
    /** @type {string | undefined} what failed: the connection error's code */
    this.detail = undefined
    /** --source-address: this socket's address index and port (0 = none held), and ports tried. */
    this.sourceAddress = session.config.sourcePorts?.addressOf(client.i) ?? -1
    this.sourcePort = 0
    this.portTries = 0
    /** The kernel refused the port: close, then connect again from the next one. */
    this.retryPort = false
    this.on('connect', onConnect)
    this.on('error', onError)
    this.on('close', onClose)
    this.open()
  }

  /** Connects, from this client's source address and a port of its own when --source-address is given. */
  open () {
    const { port, host, sourcePorts } = this.session.config
    if (sourcePorts === null) return this.connect(port, host)
    this.sourcePort = connectOwnPort(this, sourcePorts, this.sourceAddress, host, port)
    if (this.sourcePort === 0) {
      this.failed = true
      this.destroy()
    }
  }

  /** @param {string} text an Engine.IO packet */
  send (text) {
    this.sendText(text)
  }

  /**
   * @param {Buffer} data
   * @param {number} start
   * @param {number} end
   * @param {boolean} isBinary
   */
  deliver (data, start, end, isBinary) {
    onSocketMessage(this, data, start, end, isBinary)
  }

  /**
   * The server accepted: its cookies go into the jar, its node header to the swarm; an upgrade probe sends its ping.
   * @param {string} head the 101 answer's head
   */
  opened (head) {
    const c = this.client
    storeHeadSetCookies(this.session, c, head)
    noteHeadNodeHeader(this.session, c, head)
    if (c.gen === this.gen && c.probe === this) this.send('2probe')
  }

  // A pong: Engine.IO heartbeats are packets, so this client never pings (the base's onPong).
}

/** @this {import('node:net').Socket} */
function onConnect () {
  const ws = /** @type {RawWebSocket} */ (this)
  const { wsPath, hostHeader } = ws.session.config
  const c = ws.client
  const path = ws.probe ? `${wsPath}${c.querySuffix}&sid=${encodeURIComponent(c.sid)}` : `${wsPath}${c.querySuffix}`
  ws.write(handshakeRequest(path, hostHeader, ws.key, upgradeHeaders(ws.session, c)))
}

/**
 * @this {import('node:net').Socket}
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

/** @this {import('node:net').Socket} */
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
