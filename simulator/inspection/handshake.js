/**
 * Reads the server's heartbeat settings and protocol version (Engine.IO v3 or v4) from its handshake before the swarm
 * starts, so the ramp can spread connections over the real pingInterval. Tries polling
 * first (one GET), then WebSocket for servers that disabled polling, and closes the probe
 * session at once so it does not linger on the server.
 */
import { EIO_PACKET } from '../../lib/protocol.js'
import { reasonKey } from '../../lib/reasons.js'
import { certificateHint } from '../../lib/input/tls-trust.js'
import { inspectionSession } from '../sessions/inspection.js'

/**
 * @typedef {object} Handshake
 * @property {number} pingIntervalMs
 * @property {number} pingTimeoutMs
 * @property {number | null} maxPayload
 * @property {string[]} upgrades
 * @property {3 | 4} eio the Engine.IO protocol version the server speaks (3: socket.io 2.x)
 */

/**
 * @param {{ url: string, path: string, query?: Record<string, string>, headers?: Record<string, string>, timeoutMs?: number,
 *   http?: import('../sessions/inspection.js').InspectionSession }} options
 *   query and headers: the first client's, for servers that check them before the handshake; http: the first
 *   client's headers, cookies and TLS trust (sessions/inspection.js; default: `headers` alone)
 * @returns {Promise<Handshake>}
 */
export async function probeHandshake ({ url, path, query = {}, headers = {}, timeoutMs = 5000, http = inspectionSession({ url, path }, { headers }) }) {
  const base = new URL(path, url)
  base.search = new URLSearchParams({ ...query, EIO: '4', transport: 'polling' }).toString()
  let pollingError
  try {
    const response = await http.fetch(base, { signal: AbortSignal.timeout(timeoutMs) })
    const body = await response.text()
    // An Engine.IO v3 server (socket.io 2.x) ignores EIO=4 and frames packets as `<length>:<packet>`.
    const v3 = /^(\d+):0/.exec(body)
    if (response.ok && (body.startsWith(EIO_PACKET.OPEN) || v3)) {
      const open = parseOpen(v3 ? body.slice(v3[1].length + 1, v3[1].length + 1 + Number(v3[1])) : body.split('\x1e')[0], v3 ? 3 : 4)
      const closeUrl = new URL(base)
      closeUrl.searchParams.set('sid', open.sid)
      if (v3) closeUrl.searchParams.set('EIO', '3')
      await http.closeEngineSession(closeUrl, v3 ? 3 : 4, timeoutMs)
      return open.handshake
    }
    // The body is the server's text, shown in results and on the terminal: tags and line
    // breaks dropped, escaped, bounded.
    const hint = response.status === 404 ? ` (nothing at ${base.pathname}: is --path right? socket.io's default is /socket.io/)` : ''
    pollingError = new Error(`polling handshake answered HTTP ${response.status}${hint}: ${excerpt(body)}`)
  } catch (error) {
    pollingError = error
  }
  try {
    return await probeWebSocket(base, timeoutMs, http.webSocketOptions())
  } catch (error) {
    throw handshakeFailure(`${base.origin}${base.pathname}`, pollingError, error, timeoutMs)
  }
}

/**
 * Why neither transport opened a session, and which fault that is: every transport timed out
 * (a server that accepts connections and never answers), both answered HTTP 404 (something
 * answers at that address, with no Engine.IO at the path), or both refused the server's
 * certificate (no client with the same trust can connect).
 * @typedef {'timed-out' | 'no-engine-io' | 'certificate' | null} HandshakeFault
 */

/**
 * @param {string} at origin and path
 * @param {unknown} polling the polling probe's error
 * @param {unknown} websocket the WebSocket probe's error
 * @param {number} timeoutMs
 * @returns {Error & { fault: HandshakeFault }}
 */
function handshakeFailure (at, polling, websocket, timeoutMs) {
  const timedOut = isTimeout(polling) && isTimeout(websocket)
  const notFound = /^polling handshake answered HTTP 404\b/.test(reason(polling)) && /\b404$/.test(reason(websocket))
  const certificate = certificateHint(codeOf(polling)) !== '' && certificateHint(codeOf(websocket)) !== ''
  const why = timedOut
    ? `the handshakes timed out: the server took the connections and answered nothing in ${timeoutMs / 1000} s, on polling and on WebSocket`
    : certificate && codeOf(polling) === codeOf(websocket)
      ? `${codeOf(polling)} on polling and on WebSocket: ${certificateHint(codeOf(polling))}`
      : `polling: ${reason(polling)}; websocket: ${reason(websocket)}`
  /** @type {HandshakeFault} */
  const fault = timedOut ? 'timed-out' : notFound ? 'no-engine-io' : certificate ? 'certificate' : null
  return Object.assign(new Error(`no Engine.IO handshake at ${at} (${why})`), { fault })
}

/**
 * A probe that got no answer in time (fetch's AbortSignal.timeout, the WebSocket timer or ws's handshakeTimeout).
 * @param {unknown} error
 */
function isTimeout (error) {
  const err = /** @type {{ name?: string, message?: string } | null} */ (error)
  return err?.name === 'TimeoutError' || err?.message === 'timed out' || err?.message === 'Opening handshake has timed out'
}

/**
 * @param {URL} base
 * @param {number} timeoutMs
 * @param {import('ws').ClientOptions} options headers, TLS
 * @returns {Promise<Handshake>}
 */
async function probeWebSocket (base, timeoutMs, options) {
  // Only for servers that refuse polling: the ws library is loaded then, not by every process.
  const { default: WebSocket } = await import('ws')
  const wsUrl = new URL(base)
  wsUrl.protocol = base.protocol === 'https:' ? 'wss:' : 'ws:'
  wsUrl.searchParams.set('transport', 'websocket')
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(wsUrl, { ...options, handshakeTimeout: timeoutMs })
    const timer = setTimeout(() => { socket.terminate(); reject(new Error('timed out')) }, timeoutMs)
    /** @type {string | null} */
    let open = null
    // Over WebSocket both versions open alike; a socket.io 2.x server then connects '/' by
    // itself (`40`) at once, where a v4 server waits for the client's CONNECT.
    const settle = (/** @type {3 | 4} */ eio) => {
      clearTimeout(timer)
      socket.close()
      try {
        resolve(parseOpen(/** @type {string} */ (open), eio).handshake)
      } catch (error) {
        reject(error)
      }
    }
    socket.on('message', (data) => {
      if (open === null) {
        open = String(data)
        setTimeout(() => { if (socket.readyState === WebSocket.OPEN) settle(4) }, V2_CONNECT_WAIT_MS)
      } else if (String(data) === '40') settle(3)
    })
    socket.once('error', (error) => { clearTimeout(timer); reject(error) })
  })
}

/** How long the WebSocket probe waits for a socket.io 2.x server's own `40`. */
const V2_CONNECT_WAIT_MS = 300

/**
 * @param {string} packet
 * @param {3 | 4} eio
 * @returns {{ sid: string, handshake: Handshake }}
 */
function parseOpen (packet, eio) {
  if (!packet.startsWith(EIO_PACKET.OPEN)) throw new Error(`expected an Engine.IO open packet, got ${JSON.stringify(packet.slice(0, 40))}`)
  const open = JSON.parse(packet.slice(1))
  if (typeof open.pingInterval !== 'number' || typeof open.sid !== 'string') throw new Error('open packet without sid/pingInterval')
  return {
    sid: open.sid,
    handshake: {
      pingIntervalMs: open.pingInterval,
      pingTimeoutMs: typeof open.pingTimeout === 'number' ? open.pingTimeout : 0,
      maxPayload: typeof open.maxPayload === 'number' ? open.maxPayload : null,
      upgrades: Array.isArray(open.upgrades) ? open.upgrades : [],
      eio
    }
  }
}

/**
 * A probe's error code: fetch puts the socket's in its cause.
 * @param {unknown} error
 * @returns {string | undefined}
 */
function codeOf (error) {
  const err = /** @type {{ cause?: { code?: string }, code?: string } | null} */ (error)
  return err?.cause?.code ?? err?.code
}

/**
 * @param {unknown} error
 */
function reason (error) {
  // fetch's AbortSignal.timeout rejects with a DOMException whose numeric code (23) says nothing.
  if (isTimeout(error)) return 'timed out'
  const err = /** @type {{ message?: string }} */ (error)
  const code = codeOf(error)
  const hint = certificateHint(code)
  return hint ? `${code}: ${hint}` : code ?? err?.message ?? String(error)
}

/**
 * A short, readable excerpt of a response body that is not Engine.IO (an HTML error page, say).
 * @param {string} body
 */
export function excerpt (body) {
  const text = body.replace(/<(script|style)[\s\S]*?<\/\1>/gi, ' ').replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ').trim()
  return `"${reasonKey(text.length > 100 ? `${text.slice(0, 100)}…` : text)}"`
}
