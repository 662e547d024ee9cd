/**
 * A plain WebSocket client on the `ws` library (the default, and always for wss://). Its
 * handlers are shared functions that find the client and pool through the socket, as in the
 * lean engine: no closure per client. `ws` answers the server's pings by itself.
 */
import { WebSocket } from 'ws'
import { WS_TOO_LARGE_CODE } from '../../wire/limits.js'
import { errorText } from './reasons.js'

/** @typedef {import('./pool.js').PlainPool} PlainPool */
/** @typedef {import('./client.js').PlainClient} PlainClient */

export class PlainWsSocket extends WebSocket {
  /**
   * @param {string} url
   * @param {string[]} protocols
   * @param {import('ws').ClientOptions} options
   * @param {PlainPool} pool
   * @param {PlainClient} client
   */
  constructor (url, protocols, options, pool, client) {
    super(url, protocols, options)
    this.pool = pool
    this.client = client
    this.gen = client.gen
    this.closeCode = 0
    this.closeReason = ''
    this.error = ''
    this.tooLarge = false
    this.on('upgrade', onUpgrade)
    this.on('open', onOpen)
    this.on('message', onMessage)
    this.on('pong', onPong)
    this.on('error', onError)
    this.on('close', onClose)
  }

  /** @param {string} text */
  sendText (text) {
    if (this.readyState === WebSocket.OPEN) this.send(text)
  }

  /** An empty ping: its pong is the client's first round trip. */
  sendPing () {
    if (this.readyState === WebSocket.OPEN) this.ping()
  }

  /**
   * Closes politely (a close frame, 1000) or at once: a dead peer would hold a polite close
   * for ws's 30 s close timeout.
   * @param {boolean} graceful
   */
  shut (graceful) {
    if (graceful && this.readyState === WebSocket.OPEN) this.close(1000)
    else this.terminate()
  }
}

/**
 * @this {WebSocket}
 * @param {import('node:http').IncomingMessage} res the 101
 */
function onUpgrade (res) {
  const ws = /** @type {PlainWsSocket} */ (this)
  ws.pool.onUpgraded(ws, res.headers['set-cookie'])
}

/** @this {WebSocket} */
function onOpen () {
  const ws = /** @type {PlainWsSocket} */ (this)
  ws.pool.onOpen(ws)
}

/**
 * @this {WebSocket}
 * @param {Buffer} data
 * @param {boolean} isBinary
 */
function onMessage (data, isBinary) {
  const ws = /** @type {PlainWsSocket} */ (this)
  ws.pool.onMessage(ws, data, 0, data.length, isBinary)
}

/** @this {WebSocket} */
function onPong () {
  const ws = /** @type {PlainWsSocket} */ (this)
  ws.pool.onPong(ws)
}

/**
 * @this {WebSocket}
 * @param {Error & { code?: string }} error
 */
function onError (error) {
  // 'close' always follows and reports; without a listener ws would throw.
  const ws = /** @type {PlainWsSocket} */ (this)
  if (ws.error === '') ws.error = errorText(error)
  if (error.code !== WS_TOO_LARGE_CODE) return
  // ws has sent a 1009 close and would read the rest until the server answers: end it now.
  ws.tooLarge = true
  ws.terminate()
}

/**
 * @this {WebSocket}
 * @param {number} code 1005: a close frame without status; 1006: no close frame
 * @param {Buffer} reason
 */
function onClose (code, reason) {
  const ws = /** @type {PlainWsSocket} */ (this)
  // ws reports 1006 when no close frame came; a 1009 it sent itself is not the server's.
  if (code !== 1006 && !ws.tooLarge && ws.error === '') {
    ws.closeCode = code
    ws.closeReason = reason.toString()
  }
  ws.pool.onSocketClosed(ws)
}
