/**
 * Reads the server's heartbeat settings from an Engine.IO v4 handshake before the swarm
 * starts, so the ramp can spread connections over the real pingInterval. Tries polling
 * first (one GET), then WebSocket for servers that disabled polling, and closes the probe
 * session at once so it does not linger on the server.
 */
import WebSocket from 'ws'
import { EIO_PACKET } from '../lib/protocol.js'
import { reasonKey } from '../lib/reasons.js'

/**
 * @typedef {object} Handshake
 * @property {number} pingIntervalMs
 * @property {number} pingTimeoutMs
 * @property {number | null} maxPayload
 * @property {string[]} upgrades
 */

/**
 * @param {{ url: string, path: string, timeoutMs?: number }} options
 * @returns {Promise<Handshake>}
 */
export async function probeHandshake ({ url, path, timeoutMs = 5000 }) {
  const base = new URL(path, url)
  base.search = '?EIO=4&transport=polling'
  let pollingError
  try {
    const response = await fetch(base, { signal: AbortSignal.timeout(timeoutMs) })
    const body = await response.text()
    if (response.ok && body.startsWith(EIO_PACKET.OPEN)) {
      const open = parseOpen(body.split('\x1e')[0])
      const closeUrl = new URL(base)
      closeUrl.searchParams.set('sid', open.sid)
      await fetch(closeUrl, { method: 'POST', body: EIO_PACKET.CLOSE, signal: AbortSignal.timeout(timeoutMs) }).then((r) => r.text(), () => {})
      return open.handshake
    }
    // The body is the server's text, shown in results and on the terminal: escaped, bounded.
    pollingError = new Error(`polling handshake answered HTTP ${response.status}: ${reasonKey(body.slice(0, 120))}`)
  } catch (error) {
    pollingError = error
  }
  try {
    return await probeWebSocket(base, timeoutMs)
  } catch (error) {
    throw new Error(`no Engine.IO v4 handshake at ${base.origin}${base.pathname} (polling: ${reason(pollingError)}; websocket: ${reason(error)})`)
  }
}

/**
 * @param {URL} base
 * @param {number} timeoutMs
 * @returns {Promise<Handshake>}
 */
function probeWebSocket (base, timeoutMs) {
  const wsUrl = new URL(base)
  wsUrl.protocol = base.protocol === 'https:' ? 'wss:' : 'ws:'
  wsUrl.searchParams.set('transport', 'websocket')
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(wsUrl, { handshakeTimeout: timeoutMs })
    const timer = setTimeout(() => { socket.terminate(); reject(new Error('timed out')) }, timeoutMs)
    socket.once('message', (data) => {
      clearTimeout(timer)
      socket.close()
      try {
        resolve(parseOpen(String(data)).handshake)
      } catch (error) {
        reject(error)
      }
    })
    socket.once('error', (error) => { clearTimeout(timer); reject(error) })
  })
}

/**
 * @param {string} packet
 * @returns {{ sid: string, handshake: Handshake }}
 */
function parseOpen (packet) {
  if (!packet.startsWith(EIO_PACKET.OPEN)) throw new Error(`expected an Engine.IO open packet, got ${JSON.stringify(packet.slice(0, 40))}`)
  const open = JSON.parse(packet.slice(1))
  if (typeof open.pingInterval !== 'number' || typeof open.sid !== 'string') throw new Error('open packet without sid/pingInterval')
  return {
    sid: open.sid,
    handshake: {
      pingIntervalMs: open.pingInterval,
      pingTimeoutMs: typeof open.pingTimeout === 'number' ? open.pingTimeout : 0,
      maxPayload: typeof open.maxPayload === 'number' ? open.maxPayload : null,
      upgrades: Array.isArray(open.upgrades) ? open.upgrades : []
    }
  }
}

/**
 * @param {unknown} error
 */
function reason (error) {
  const err = /** @type {{ cause?: { code?: string }, code?: string, message?: string }} */ (error)
  return err?.cause?.code ?? err?.code ?? err?.message ?? String(error)
}
