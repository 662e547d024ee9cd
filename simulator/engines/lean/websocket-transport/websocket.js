/**
 * The session's WebSocket: the built-in client (raw-websocket.js; ws:// and wss://), or `ws`
 * for permessage-deflate or when asked (`wsClient: 'ws'`). Either serves as the
 * primary transport of `websocket` clients or as the upgrade probe of `upgrade` clients
 * (`2probe` → `3probe`, then `5` once polling is paused). Handlers are shared functions;
 * each socket carries its client, session and generation.
 */
import { WebSocket } from 'ws'
import { RawWebSocket } from './raw-websocket.js'
import { onSocketMessage } from '../inbound.js'
import { PAYLOAD_TOO_LARGE, WS_TOO_LARGE_CODE } from '../../../wire/limits.js'
import { refusalDetail, withDetail } from '../reasons.js'
import { connectorFor } from '../../../wire/source-ports.js'
import { noteUpgradeResponse, upgradeHeaders } from '../cookies.js'

/** @typedef {import('../client.js').Client} Client */
/** @typedef {import('../session.js').LeanSession} LeanSession */
/** @typedef {LeanWebSocket | RawWebSocket} SessionSocket */

/** ws.send's options for a text message handed over as a Buffer. */
const TEXT_FRAME = Object.freeze({ binary: false })

class LeanWebSocket extends WebSocket {
  /**
   * @param {string} url
   * @param {import('ws').ClientOptions} options
   * @param {LeanSession} session
   * @param {Client} client
   */
  constructor (url, options, session, client) {
    super(url, [], options)
    this.session = session
    this.client = client
    this.gen = client.gen
    /** An 'error' preceded 'close': the close is a transport error, not a clean close. */
    this.failed = false
    /** @type {string | undefined} what failed: an error code or `HTTP <status>` */
    this.detail = undefined
    /** The error was a message over maxPayload. */
    this.tooLarge = false
    /** @type {{ socket: import('node:net').Socket | null } | null} --source-address: the connect in flight */
    this.pendingConnect = null
    this.on('open', onOpen)
    this.on('message', onMessage)
    this.on('error', onError)
    this.on('close', onClose)
    if (session.config.cookieJar || session.config.nodeHeader !== null) this.on('upgrade', onUpgrade)
  }

  /**
   * Sends a text message in one write: given a Buffer (which ws treats as read-only), ws masks
   * it into the frame's own buffer; given a string, it would write a header and the payload
   * apart (cork, two writes, uncork).
   * @param {string} text
   */
  sendText (text) {
    this.send(Buffer.from(text), TEXT_FRAME)
  }

  /**
   * Closes politely (a close frame) or at once: a dead peer would hold a polite close for
   * ws's 30 s close timeout.
   * @param {boolean} graceful
   */
  shut (graceful) {
    if (graceful && this.readyState === WebSocket.OPEN) this.close()
    else this.terminate()
  }
}

/**
 * Opens the session's WebSocket (`websocket` clients) or the upgrade probe (`upgrade` clients).
 * @param {LeanSession} session
 * @param {Client} c
 * @param {boolean} probe
 */
export function openWebSocket (session, c, probe) {
  const { config } = session
  /** @type {SessionSocket} */
  let ws
  if (config.wsLibrary) {
    const url = probe ? `${config.wsUrl}${c.querySuffix}&sid=${encodeURIComponent(c.sid)}` : `${config.wsUrl}${c.querySuffix}`
    const headers = upgradeHeaders(session, c)
    let options = headers === null ? session.wsOptions : { ...session.wsOptions, headers }
    // --source-address: this client's address and a port of its own (ws hands it to http.request).
    const ports = config.sourcePorts
    // The connect in flight is held so that closing the socket (the connect timeout) ends it too.
    const pending = ports === null ? null : { socket: null }
    if (ports !== null && pending !== null) {
      const connect = connectorFor(ports, ports.addressOf(c.i), config.secure, { timeoutMs: config.connectTimeoutMs, pending, onTls: session.onTls })
      options = { ...options, createConnection: /** @type {any} */ (connect) }
    }
    ws = new LeanWebSocket(url, options, session, c)
    ws.pendingConnect = pending
  } else {
    ws = new RawWebSocket(session, c, probe)
  }
  session.handles++
  if (probe) c.probe = ws
  else c.ws = ws
}

/**
 * The 101 answer: its cookies go into the client's jar, its node header (--node-from header:NAME) to the swarm.
 * @this {WebSocket}
 * @param {import('node:http').IncomingMessage} res
 */
function onUpgrade (res) {
  const ws = /** @type {LeanWebSocket} */ (this)
  this.removeListener('upgrade', onUpgrade)
  noteUpgradeResponse(ws.session, ws.client, res)
}

/** @this {WebSocket} */
function onOpen () {
  const ws = /** @type {LeanWebSocket} */ (this)
  const c = ws.client
  if (c.gen === ws.gen && c.probe === ws) ws.send('2probe')
}

/**
 * @this {WebSocket}
 * @param {Buffer} data
 * @param {boolean} isBinary
 */
function onMessage (data, isBinary) {
  onSocketMessage(/** @type {LeanWebSocket} */ (this), data, 0, data.length, isBinary)
}

/**
 * @this {WebSocket}
 * @param {Error & { code?: string }} error
 */
function onError (error) {
  // 'close' always follows and reports; without a listener ws would throw.
  const ws = /** @type {LeanWebSocket} */ (this)
  ws.failed = true
  // What failed, for the reason: a connection error's code, or the status of a refused handshake.
  ws.detail ??= error.code ?? refusalDetail(error.message)
  if (error.code !== WS_TOO_LARGE_CODE) return
  // ws has sent a 1009 close and would read (and drop) the rest of the message until the server
  // answers, up to its 30 s close timeout; socket.io-client reports at once, so end it now.
  ws.tooLarge = true
  ws.terminate()
}

/** @this {WebSocket} */
function onClose () {
  const ws = /** @type {LeanWebSocket} */ (this)
  ws.pendingConnect?.socket?.destroy()
  ws.session.onHandleClosed()
  const c = ws.client
  if (c.gen !== ws.gen) return
  if (c.probe === ws) ws.session.onProbeFailed(c)
  else if (c.ws === ws) {
    ws.session.onTransportLost(c, ws.tooLarge ? PAYLOAD_TOO_LARGE : ws.failed ? withDetail('websocket error', ws.detail) : 'transport close')
  }
}
