/**
 * The lean engine's built-in WebSocket client for ws:// and wss:// (wire/raw-socket.js: RFC
 * 6455 over a `net` or TLS socket reading into one shared buffer; wire/tls-client.js: the TLS
 * every connection of the session shares), used instead of `ws` because it is what lets the
 * lean engine reach its per-frame CPU goal: a broadcast frame found in the frame cache is
 * compared in place and never copied. `ws` stays in use for permessage-deflate and when asked
 * (websocket.js).
 */
import { handshakeRequest } from '../../../wire/rfc6455.js'
import { RawSocket } from '../../../wire/raw-socket.js'
import { onSocketMessage } from '../inbound.js'
import { PAYLOAD_TOO_LARGE } from '../../../wire/limits.js'
import { refusalDetail, withDetail } from '../reasons.js'
import { MAX_PORT_TRIES } from '../../../wire/source-ports.js'
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
    this.open()
  }

  /** Connects (TLS for wss://), from this client's source address and a port of its own when --source-address is given. */
  open () {
    const { port, host, sourcePorts } = this.session.config
    const tls = this.session.tlsClient
    if (sourcePorts === null) return this.connectTo({ port, host }, tls)
    const localPort = sourcePorts.acquire(this.sourceAddress)
    if (localPort === 0) {
      sourcePorts.exhausted[this.sourceAddress]++
      this.socket = null
      this.failed = true
      return this.destroy()
    }
    this.sourcePort = localPort
    this.connectTo({ port, host, localAddress: sourcePorts.addresses[this.sourceAddress], localPort }, tls)
  }

  /** @returns {string} the upgrade request: the session's path (with the sid for a probe), its headers and cookies */
  request () {
    const { wsPath, hostHeader } = this.session.config
    const c = this.client
    const path = this.probe ? `${wsPath}${c.querySuffix}&sid=${encodeURIComponent(c.sid)}` : `${wsPath}${c.querySuffix}`
    return handshakeRequest(path, hostHeader, this.key, upgradeHeaders(this.session, c))
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

  /**
   * The server did not accept the upgrade: reported as `ws` reports it (`websocket error (HTTP 404)`).
   * @param {string} problem
   */
  refused (problem) {
    this.detail ??= refusalDetail(problem)
    super.refused(problem)
  }

  // A pong: Engine.IO heartbeats are packets, so this client never pings (the base's onPong).

  /** @param {Error & { code?: string }} error */
  errored (error) {
    // A source port the kernel refuses (held by another process, or TIME_WAIT to this server): the next one.
    if (this.sourcePort !== 0 && this.key !== '' && (error.code === 'EADDRINUSE' || error.code === 'EADDRNOTAVAIL') && ++this.portTries < MAX_PORT_TRIES) {
      this.retryPort = true
      return
    }
    this.failed = true
    // What failed: the connection error's code (a certificate's as `ws` reports it: both come from tls.connect).
    this.detail ??= error?.code
  }

  closed () {
    const ports = this.session.config.sourcePorts
    if (ports !== null && this.sourcePort !== 0) {
      ports.release(this.sourceAddress, this.sourcePort)
      this.sourcePort = 0
    }
    const c = this.client
    if (this.retryPort) {
      this.retryPort = false
      if (ports !== null) ports.refused[this.sourceAddress]++
      if (c.gen === this.gen && (c.ws === this || c.probe === this)) return this.open()
    }
    this.session.onHandleClosed()
    if (c.gen !== this.gen) return
    if (c.probe === this) this.session.onProbeFailed(c)
    else if (c.ws === this) {
      const why = this.tooLarge ? PAYLOAD_TOO_LARGE : this.failed || this.key !== '' ? withDetail('websocket error', this.detail) : 'transport close'
      this.session.onTransportLost(c, why)
    }
  }
}
