/**
 * Decodes an Engine.IO session's packets into Socket.IO packets with the simulator's own codec
 * (the lean engine's parser, exported by simulator/index.js): namespaces, CONNECT with its
 * auth, events with their arguments, acks with their ids, binary attachments put back where
 * their placeholders stood.
 */
import { decodeEvent, fillPlaceholders, parseSioHeader } from '../simulator/index.js'

/** Socket.IO packet types. */
const SIO = Object.freeze({ CONNECT: 0, DISCONNECT: 1, EVENT: 2, ACK: 3, CONNECT_ERROR: 4, BINARY_EVENT: 5, BINARY_ACK: 6 })

/**
 * @typedef {object} SioPacket
 * @property {'send' | 'receive'} dir
 * @property {number} atMs
 * @property {'connect' | 'connect_error' | 'disconnect' | 'event' | 'ack'} kind
 * @property {string} nsp
 * @property {string} [event]
 * @property {unknown[]} [args] an event's or an ack's arguments (Buffers where the client sent binary)
 * @property {number} ackId -1 when none
 * @property {unknown} [data] CONNECT's payload (the auth a client sends), CONNECT_ERROR's
 * @property {Record<string, string>} [query] the query of a Socket.IO v2 CONNECT (`40/nsp?k=v`)
 * @property {boolean} binary whether it carried binary attachments
 * @property {string} frame the packet as recorded (for messages)
 * @typedef {{ atMs: number, dir: string, frame: string, why: string }} Untranslated
 */

/**
 * @param {import('./sessions.js').EioSession} session
 * @returns {{ packets: SioPacket[], untranslated: Untranslated[] }}
 */
export function decodeSession (session) {
  /** @type {SioPacket[]} */
  const packets = []
  /** @type {Untranslated[]} */
  const untranslated = [...session.skipped.map((s) => ({ ...s, dir: 'receive' }))]
  /** A binary packet waiting for its attachments, per direction. @type {Record<string, { packet: SioPacket, header: any, text: string, buffers: Buffer[] } | null>} */
  const waiting = { send: null, receive: null }
  for (const p of session.packets) {
    const open = waiting[p.dir]
    if (typeof p.data !== 'string') {
      if (open === null) {
        untranslated.push({ atMs: p.atMs, dir: p.dir, frame: `<${p.data.length} bytes>`, why: 'binary data with no packet announcing it' })
        continue
      }
      open.buffers.push(p.data)
      if (open.buffers.length === open.header.attachments) {
        waiting[p.dir] = null
        finish(open, packets, untranslated)
      }
      continue
    }
    const type = p.data.charAt(0)
    if (type !== '4') {
      if (!'0123456'.includes(type) || p.data === '') {
        untranslated.push({ atMs: p.atMs, dir: p.dir, frame: p.data.slice(0, 200), why: 'not an Engine.IO packet' })
      }
      continue // open, close, ping, pong, upgrade, noop: the engine's own, replayed by any client
    }
    const header = parseSioHeader(p.data, 1)
    if (header === null) {
      untranslated.push({ atMs: p.atMs, dir: p.dir, frame: p.data.slice(0, 200), why: 'an Engine.IO message that is not a Socket.IO packet' })
      continue
    }
    // Socket.IO v2 (Engine.IO v3) clients send their query in a namespace's CONNECT: `40/feed?token=abc`.
    const [nsp, query] = header.nsp.split('?', 2)
    /** @type {SioPacket} */
    const packet = { dir: p.dir, atMs: p.atMs, kind: 'event', nsp, ackId: header.ackId, binary: header.attachments > 0, frame: p.data.slice(0, 200) }
    if (query !== undefined) packet.query = Object.fromEntries(new URLSearchParams(query))
    if (header.attachments > 0) {
      waiting[p.dir] = { packet, header, text: p.data, buffers: [] }
      continue
    }
    finish({ packet, header, text: p.data, buffers: [] }, packets, untranslated)
  }
  for (const open of Object.values(waiting)) {
    if (open) {
      const why = `a binary packet whose ${open.header.attachments} attachment(s) the recording does not hold`
      untranslated.push({ atMs: open.packet.atMs, dir: open.packet.dir, frame: open.packet.frame, why })
    }
  }
  return { packets, untranslated }
}

/**
 * Completes a packet from its header and payload.
 * @param {{ packet: SioPacket, header: any, text: string, buffers: Buffer[] }} open
 * @param {SioPacket[]} packets
 * @param {Untranslated[]} untranslated
 */
function finish ({ packet, header, text, buffers }, packets, untranslated) {
  const fail = (/** @type {string} */ why) => untranslated.push({ atMs: packet.atMs, dir: packet.dir, frame: packet.frame, why })
  const json = text.slice(header.dataStart)
  switch (header.type) {
    case SIO.CONNECT:
    case SIO.CONNECT_ERROR: {
      packet.kind = header.type === SIO.CONNECT ? 'connect' : 'connect_error'
      const data = parseJson(json)
      if (data === undefined && json !== '') return fail('a CONNECT whose payload is not JSON')
      packet.data = data
      break
    }
    case SIO.DISCONNECT:
      packet.kind = 'disconnect'
      break
    case SIO.EVENT:
    case SIO.BINARY_EVENT: {
      const decoded = decodeEvent(text, header.dataStart, null)
      if (decoded === null || decoded.args === null) return fail('an EVENT whose payload is not a JSON array with an event name first')
      packet.event = decoded.event
      packet.args = /** @type {unknown[]} */ (withBuffers(decoded.args, buffers))
      if (packet.args === null) return fail('a binary placeholder naming no attachment')
      break
    }
    case SIO.ACK:
    case SIO.BINARY_ACK: {
      const args = parseJson(json)
      if (!Array.isArray(args)) return fail('an ACK whose payload is not a JSON array')
      packet.kind = 'ack'
      packet.args = /** @type {unknown[]} */ (withBuffers(args, buffers))
      if (packet.args === null) return fail('a binary placeholder naming no attachment')
      break
    }
  }
  packets.push(packet)
}

/**
 * @param {unknown} value
 * @param {Buffer[]} buffers
 */
function withBuffers (value, buffers) {
  if (buffers.length === 0) return value
  try {
    return fillPlaceholders(value, buffers)
  } catch {
    return null
  }
}

/** @param {string} text */
function parseJson (text) {
  if (text === '') return undefined
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}
