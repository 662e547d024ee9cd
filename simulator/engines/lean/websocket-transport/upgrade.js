/**
 * The upgrade from polling to WebSocket, as socket.io-client does it (Engine.IO v4): the probe
 * WebSocket sends `2probe`; on `3probe` polling pauses (no new GET, the in-flight GET and POST
 * finish; the server cycles the GET with a noop); then `5` on the WebSocket, which carries
 * the session and whatever was queued meanwhile. A failed probe leaves the client on polling.
 */
import { STATE, WIRE } from '../client.js'
import { poll, flushPost } from '../polling/polling.js'
import { closeBuiltin } from '../polling/http-builtin.js'

/** @typedef {import('../client.js').Client} Client */
/** @typedef {import('../session.js').LeanSession} LeanSession */

/**
 * A poll GET (or, while pausing, the POST) finished: poll again, or complete the upgrade.
 * @param {LeanSession} s
 * @param {Client} c
 */
export function afterPoll (s, c) {
  if (c.wire !== WIRE.POLLING) return
  if (c.state === STATE.OPENING) return s.fail(c, 'parse error') // a handshake answer without open packet
  if (c.state !== STATE.OPEN && c.state !== STATE.CONNECTED) return
  if (!c.pausing) poll(s, c)
  else if (c.getReq === null && c.postReq === null) finishUpgrade(s, c)
}

/**
 * The probe answered `3probe`: pause polling.
 * @param {LeanSession} s
 * @param {Client} c
 */
export function onProbeAnswered (s, c) {
  c.pausing = true
  afterPoll(s, c)
}

/**
 * The probe failed: stay on polling.
 * @param {LeanSession} s
 * @param {Client} c
 */
export function onProbeFailed (s, c) {
  const ws = c.probe
  if (ws === null) return
  c.probe = null
  ws.shut(false)
  if (!c.pausing) return
  c.pausing = false
  if (c.getReq === null) afterPoll(s, c)
  flushPost(s, c)
}

/**
 * Polling is paused: the probe becomes the session's WebSocket.
 * @param {LeanSession} s
 * @param {Client} c
 */
function finishUpgrade (s, c) {
  const ws = c.probe
  if (ws === null) return
  c.probe = null
  c.ws = ws
  c.wire = WIRE.WEBSOCKET
  c.pausing = false
  // The built-in client's polling connections are idle from now on: closed, not left to the server's keep-alive timeout.
  if (s.config.builtinHttp) closeBuiltin(c)
  ws.send('5')
  const queued = c.outQueue
  c.outQueue = null
  if (queued !== null) for (const packet of queued) ws.send(packet)
  s.events.upgraded(c.i)
}
