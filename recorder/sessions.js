/**
 * Groups a HAR's exchanges into connections: Engine.IO sessions (by their sid, across the
 * polling requests and the WebSocket that upgraded them) and plain WebSocket connections, each
 * as the Engine.IO packets (or text frames) it carried, with their direction and time.
 * Engine.IO v3 polling bodies are `<length>:<packet>` runs, v4 bodies packets joined by \x1e.
 */
import { EIO_RECORD_SEPARATOR } from '../lib/protocol.js'
import { splitPayloadV3 } from '../simulator/index.js'

/**
 * @typedef {import('./har.js').HttpExchange} HttpExchange
 * @typedef {object} EioPacket
 * @property {'send' | 'receive'} dir
 * @property {number} atMs
 * @property {string | Buffer} data an Engine.IO packet (type character first), or a binary attachment
 * @property {'polling' | 'websocket'} transport
 * @typedef {object} EioSession
 * @property {string} sid
 * @property {3 | 4} eio
 * @property {URL} url the first request's URL
 * @property {HttpExchange} first the first request (handshake): its headers and cookies are the client's identity
 * @property {string[]} transports in the order the session used them
 * @property {EioPacket[]} packets in time order
 * @property {{ atMs: number, frame: string, why: string }[]} skipped what could not be read
 * @typedef {object} PlainSocket
 * @property {URL} url
 * @property {HttpExchange} exchange
 * @property {import('./har.js').WsFrame[]} frames
 */

/**
 * @param {import('./har.js').HarRecording} har
 * @returns {{ sessions: EioSession[], plain: PlainSocket[], framesMissing: HttpExchange[], unreadable: HttpExchange[], others: HttpExchange[] }}
 */
export function groupConnections (har) {
  /** @type {Map<string, EioSession>} */
  const bySid = new Map()
  /** @type {PlainSocket[]} */
  const plain = []
  const framesMissing = []
  /** Engine.IO URLs whose frames open no session (an unknown protocol). */
  const unreadable = []
  const others = []
  for (const exchange of har.exchanges) {
    const eio = Number(exchange.url.searchParams.get('EIO'))
    if (exchange.frames !== null && exchange.framesMissing) {
      framesMissing.push(exchange)
      continue
    }
    if (eio !== 3 && eio !== 4) {
      if (exchange.frames !== null) plain.push({ url: exchange.url, exchange, frames: exchange.frames })
      else others.push(exchange)
      continue
    }
    const transport = exchange.url.searchParams.get('transport') === 'websocket' ? 'websocket' : 'polling'
    const packets = transport === 'websocket' ? wsPackets(exchange) : pollingPackets(exchange, eio)
    const sid = exchange.url.searchParams.get('sid') ?? sidOf(packets.packets)
    if (sid === null) {
      if (exchange.status >= 400 || exchange.status === 0) continue // a refused or failed handshake carries no session
      if ((exchange.frames?.length ?? 0) > 0 || exchange.responseBody !== null) unreadable.push(exchange)
      else others.push(exchange)
      continue
    }
    let session = bySid.get(sid)
    if (!session) {
      session = { sid, eio: /** @type {3 | 4} */ (eio), url: exchange.url, first: exchange, transports: [], packets: [], skipped: [] }
      bySid.set(sid, session)
    }
    if (!session.transports.includes(transport)) session.transports.push(transport)
    session.packets.push(...packets.packets)
    session.skipped.push(...packets.skipped)
  }
  for (const session of bySid.values()) session.packets.sort((a, b) => a.atMs - b.atMs)
  return { sessions: [...bySid.values()].sort((a, b) => a.first.startMs - b.first.startMs), plain, framesMissing, unreadable, others }
}

/**
 * The sid of an open packet among the first packets received.
 * @param {EioPacket[]} packets
 */
function sidOf (packets) {
  const open = packets.find((p) => p.dir === 'receive' && typeof p.data === 'string' && p.data.startsWith('0{'))
  if (!open) return null
  try {
    const sid = JSON.parse(/** @type {string} */ (open.data).slice(1)).sid
    return typeof sid === 'string' ? sid : null
  } catch {
    return null
  }
}

/**
 * A WebSocket's frames as Engine.IO packets (v3 binary frames carry a leading message type byte).
 * @param {HttpExchange} exchange
 */
function wsPackets (exchange) {
  const eio = Number(exchange.url.searchParams.get('EIO'))
  /** @type {EioPacket[]} */
  const packets = (exchange.frames ?? []).map((f) => ({
    dir: f.dir,
    atMs: f.atMs,
    data: typeof f.data !== 'string' && eio === 3 ? f.data.subarray(1) : f.data,
    transport: /** @type {const} */ ('websocket')
  }))
  return { packets, skipped: [] }
}

/**
 * A polling request's packets: a GET's answer (received when it ended), a POST's body (sent when it started).
 * @param {HttpExchange} exchange
 * @param {number} eio
 */
function pollingPackets (exchange, eio) {
  const post = exchange.method === 'POST'
  const body = post ? exchange.requestBody : exchange.responseBody
  /** @type {EioPacket[]} */
  const packets = []
  /** @type {EioSession['skipped']} */
  const skipped = []
  if (body === null || exchange.status >= 400) return { packets, skipped }
  const atMs = post ? exchange.startMs : exchange.endMs
  const dir = post ? 'send' : 'receive'
  const text = typeof body === 'string' ? body : null
  const parts = text === null ? null : eio === 3 ? splitPayloadV3(text) : text.split(EIO_RECORD_SEPARATOR)
  if (parts === null) {
    const frame = String(typeof body === 'string' ? body : `<${body.length} bytes>`).slice(0, 200)
    skipped.push({ atMs, frame, why: `an Engine.IO v${eio} polling body that does not split into packets` })
    return { packets, skipped }
  }
  for (const part of parts) {
    if (part === 'ok' || part === '') continue
    // Binary attachments over polling: `b<base64>` (v4) or `b4<base64>` (v3).
    const data = part.startsWith('b') ? Buffer.from(part.slice(eio === 3 ? 2 : 1), 'base64') : part
    packets.push({ dir, atMs, data, transport: 'polling' })
  }
  return { packets, skipped }
}
