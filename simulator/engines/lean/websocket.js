/**
 * The WebSocket transport over `ws`: the primary transport of `websocket` clients, and the
 * upgrade probe of `upgrade` clients (`2probe` → `3probe`, then `5` once polling is paused).
 * Handlers are shared functions; each socket carries its client, session and generation.
 */
import { WebSocket } from 'ws'
import { onWsText, onBinary } from './inbound.js'

/** @typedef {import('./client.js').Client} Client */
/** @typedef {import('./session.js').LeanSession} LeanSession */

export class LeanWebSocket extends WebSocket {
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
    this.on('open', onOpen)
    this.on('message', onMessage)
    this.on('error', onError)
    this.on('close', onClose)
  }
}

/**
 * Opens the session's WebSocket (`websocket` clients) or the upgrade probe (`upgrade` clients).
 * @param {LeanSession} session
 * @param {Client} c
 * @param {boolean} probe
 */
export function openWebSocket (session, c, probe) {
  const url = probe ? `${session.wsUrl}&sid=${encodeURIComponent(c.sid)}` : session.wsUrl
  const ws = new LeanWebSocket(url, session.wsOptions, session, c)
  session.handles++
  if (probe) c.probe = ws
  else c.ws = ws
}

/**
 * Closes a WebSocket the session no longer uses: a close frame when leaving politely,
 * a reset otherwise (a dead peer would hold a polite close for ws's 30 s close timeout).
 * @param {LeanWebSocket} ws
 * @param {boolean} graceful
 */
export function closeWebSocket (ws, graceful) {
  if (graceful && ws.readyState === WebSocket.OPEN) ws.close()
  else ws.terminate()
}

/**
 * Is this socket still the one its client uses?
 * @param {LeanWebSocket} ws
 */
function current (ws) {
  const c = ws.client
  return c.gen === ws.gen && (c.ws === ws || c.probe === ws)
}

/** @this {WebSocket} */
function onOpen () {
  const ws = /** @type {LeanWebSocket} */ (this)
  if (current(ws) && ws.client.probe === ws) ws.send('2probe')
}

/**
 * @this {WebSocket}
 * @param {Buffer} data
 * @param {boolean} isBinary
 */
function onMessage (data, isBinary) {
  const ws = /** @type {LeanWebSocket} */ (this)
  const c = ws.client
  if (c.gen !== ws.gen) return
  if (c.ws === ws) {
    if (isBinary) onBinary(ws.session, c, data)
    else onWsText(ws.session, c, data)
  } else if (c.probe === ws) {
    if (!isBinary && data.length === 6 && data.toString() === '3probe') ws.session.onProbeAnswered(c)
    else ws.session.onProbeFailed(c)
  }
}

/** @this {WebSocket} */
function onError () {
  // 'close' always follows and reports; without a listener ws would throw.
  /** @type {LeanWebSocket} */ (this).failed = true
}

/** @this {WebSocket} */
function onClose () {
  const ws = /** @type {LeanWebSocket} */ (this)
  ws.session.onHandleClosed()
  if (!current(ws)) return
  const c = ws.client
  if (c.probe === ws) ws.session.onProbeFailed(c)
  else ws.session.onTransportLost(c, ws.failed ? 'websocket error' : 'transport close')
}
