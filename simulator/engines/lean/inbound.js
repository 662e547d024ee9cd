/**
 * What a lean client does with what it receives: Engine.IO packets, then the Socket.IO
 * packets inside messages. The hot path is a broadcast frame already in the frame cache:
 * one byte comparison, no string, no JSON.parse, the shared args handed to the swarm.
 * Anything malformed ends the client with 'parse error' instead of throwing.
 */
import { EIO_RECORD_SEPARATOR } from '../../../lib/protocol.js'
import { STATE } from './client.js'
import { wireName } from '../../../lib/transports.js'
import { parseSioHeader, decodeEvent, fillPlaceholders, connectErrorMessage, splitPayloadV3 } from './codec.js'
import { ackWantsArgs, onAck, onNamespaceRefused, onServerDisconnect } from './namespaces.js'

/** @typedef {import('./client.js').Client} Client */
/** @typedef {import('./session.js').LeanSession} LeanSession */
/** @typedef {import('./codec.js').DecodedEvent} DecodedEvent */
/** @typedef {import('./codec.js').SioHeader} SioHeader */

/**
 * A message from one of the client's WebSockets (the session's, or the upgrade probe):
 * data[start, end). Text is only read during the call; a binary Buffer is kept.
 * @param {{ session: LeanSession, client: Client, gen: number }} ws
 * @param {Buffer} data
 * @param {number} start
 * @param {number} end
 * @param {boolean} isBinary
 */
export function onSocketMessage (ws, data, start, end, isBinary) {
  const c = ws.client
  if (c.gen !== ws.gen) return
  if (c.ws === ws) {
    // Engine.IO v3 sends a binary message with its packet type (4) as the first byte.
    if (isBinary) onBinary(ws.session, c, ws.session.eio3 ? data.subarray(1) : data)
    else onWsText(ws.session, c, data, start, end)
  } else if (c.probe === ws) {
    if (!isBinary && end - start === 6 && data.toString('latin1', start, end) === '3probe') ws.session.onProbeAnswered(c)
    else ws.session.onProbeFailed(c)
  }
}

/**
 * A text frame from the session's WebSocket. The hot path: a cached broadcast is recognised
 * by its bytes where they lie, without a view, a string or a parse.
 * @param {LeanSession} s
 * @param {Client} c
 * @param {Buffer} data
 * @param {number} start
 * @param {number} end
 */
function onWsText (s, c, data, start, end) {
  // An ACK ('43…', the answer to this client's own emit) is never a cached broadcast.
  const isAck = data[start] === 52 && data[start + 1] === 51
  if (isAck && c.binary === null && onAckBytes(c, data, start, end)) return
  const hit = isAck ? null : s.cache.findBytes(data, start, end)
  if (hit !== null && c.binary === null) deliver(s, c, hit)
  else onPacket(s, c, data.toString('utf8', start, end), false)
}

/**
 * The arguments of an ACK as text, or null when its emit does not read them (then they are
 * not decoded; an array's brackets are still required).
 * @param {Client} c
 * @param {number} ackId
 * @param {string} text
 * @param {number} dataStart
 * @returns {string | null}
 */
function ackArgsText (c, ackId, text, dataStart) {
  const unread = ackWantsArgs(c, ackId) === false && text.charCodeAt(dataStart) === 91 && text.charCodeAt(text.length - 1) === 93
  return unread ? null : text.slice(dataStart)
}

/**
 * An ACK of the main namespace read where it lies (`43<id>[…]`): its id from the bytes, its
 * arguments decoded only when its emit reads them (an acked --emit does not: no string, no parse).
 * @param {Client} c
 * @param {Buffer} data
 * @param {number} start at '43'
 * @param {number} end
 * @returns {boolean} false: not of that form (a namespace's, no id, too long an id): read as text
 */
function onAckBytes (c, data, start, end) {
  let pos = start + 2
  let ackId = 0
  // At most 15 digits: within a safe integer, as parseSioHeader reads ids.
  for (; pos < end && pos - start - 2 < 16; pos++) {
    const code = data[pos]
    if (code < 48 || code > 57) break
    ackId = ackId * 10 + code - 48
  }
  const digits = pos - start - 2
  if (digits === 0 || digits > 15 || data[pos] !== 91 || data[end - 1] !== 93) return false // '[' … ']'
  const wants = ackWantsArgs(c, ackId)
  // Not awaited (timed out already, or not ours) or read: the text path parses and checks it as before.
  if (wants !== false) return false
  return onAck(c, ackId, null)
}

/**
 * A polling response: packets separated by \x1e, binary ones as `b<base64>`.
 * @param {LeanSession} s
 * @param {Client} c
 * @param {string} body
 */
export function onPollBody (s, c, body) {
  if (s.eio3) return onPollBodyV3(s, c, body)
  const gen = c.gen
  for (let start = 0; ;) {
    const sep = body.indexOf(EIO_RECORD_SEPARATOR, start)
    const packet = sep === -1 ? (start === 0 ? body : body.slice(start)) : body.slice(start, sep)
    if (packet.charCodeAt(0) === 98) onBinary(s, c, Buffer.from(packet.slice(1), 'base64')) // 'b'
    else onPacket(s, c, packet, true)
    if (sep === -1 || c.gen !== gen) return
    start = sep + 1
  }
}

/**
 * An Engine.IO v3 polling response: `<length>:<packet>` after one another; binary packets as
 * `b4<base64>` (the packet type after the b).
 * @param {LeanSession} s
 * @param {Client} c
 * @param {string} body
 */
function onPollBodyV3 (s, c, body) {
  const packets = splitPayloadV3(body)
  if (packets === null) return s.fail(c, 'parse error')
  const gen = c.gen
  for (let k = 0; k < packets.length && c.gen === gen; k++) {
    const packet = packets[k]
    if (packet.charCodeAt(0) === 98) onBinary(s, c, Buffer.from(packet.slice(2), 'base64'))
    else onPacket(s, c, packet, true)
  }
}

/**
 * One Engine.IO packet as text.
 * @param {LeanSession} s
 * @param {Client} c
 * @param {string} text
 * @param {boolean} lookup try the frame cache (polling; WebSocket frames were tried as bytes)
 */
function onPacket (s, c, text, lookup) {
  switch (text.charCodeAt(0)) {
    case 52: onMessage(s, c, text, lookup); break // '4' message
    case 50: s.onPing(c); break // '2' ping
    case 54: break // '6' noop: the server cycling a poll during an upgrade
    case 51: s.onPong(c); break // '3' pong: to a v3 client's ping (probe pongs arrive on the probe)
    case 48: s.onOpen(c, text); break // '0' open
    case 49: s.onTransportLost(c, 'transport close'); break // '1' close
    default: s.fail(c, 'parse error')
  }
}

/**
 * A Socket.IO packet inside an Engine.IO message.
 * @param {LeanSession} s
 * @param {Client} c
 * @param {string} text
 * @param {boolean} lookup
 */
function onMessage (s, c, text, lookup) {
  // socket.io-parser refuses text while a binary packet still waits for attachments.
  if (c.binary !== null) return s.fail(c, 'parse error')
  if (lookup) {
    const hit = s.cache.findText(text)
    if (hit !== null) return deliver(s, c, hit)
  }
  const header = parseSioHeader(text)
  if (header === null) return s.fail(c, 'parse error')
  const ns = s.nspIndex.get(header.nsp)
  if (ns === undefined) {
    // A namespace this client did not join: socket.io 2 connects '/' by itself. If '/' refuses
    // (middleware on '/'), the server connects no other namespace of the client: a refusal of
    // each, as socket.io-client 2 reports it on every socket.
    if (s.eio3 && header.type === 4 && header.nsp === '/') onRootRefused(s, c, text, header)
    return
  }
  switch (header.type) {
    case 2: return onEvent(s, c, text, header, ns)
    case 5: case 6: return onBinaryHeader(s, c, text, header, ns)
    case 0: return onNamespaceConnect(s, c, text, header, ns)
    case 4: return onConnectError(s, c, text, header, ns)
    case 1: return onServerDisconnect(s, c, ns)
    case 3: if (!onAck(c, header.ackId, ackArgsText(c, header.ackId, text, header.dataStart))) s.fail(c, 'parse error')
  }
}

/**
 * @param {LeanSession} s
 * @param {Client} c
 * @param {string} text
 * @param {SioHeader} header
 * @param {number} ns
 */
function onEvent (s, c, text, header, ns) {
  const decoded = decodeEvent(text, header.dataStart, s.wanted)
  if (decoded === null) return s.fail(c, 'parse error')
  decoded.ns = ns
  // Frames with an ack id are addressed to one client: not worth a cache slot.
  if (header.ackId === -1) s.cache.add(text, decoded)
  deliver(s, c, decoded)
}

/**
 * BINARY_EVENT / BINARY_ACK: the JSON now, its attachments in the next frames.
 * @param {LeanSession} s
 * @param {Client} c
 * @param {string} text
 * @param {SioHeader} header
 * @param {number} ns
 */
function onBinaryHeader (s, c, text, header, ns) {
  let decoded = null
  if (header.type === 5) {
    decoded = decodeEvent(text, header.dataStart, s.wanted)
    if (decoded === null) return s.fail(c, 'parse error')
  } else if (!onAck(c, header.ackId, text.slice(header.dataStart))) {
    // BINARY_ACK: answered now; its attachments are read and dropped (placeholders stay in the args).
    return s.fail(c, 'parse error')
  }
  c.binary = { expected: header.attachments, buffers: [], event: decoded?.event ?? '', args: decoded?.args ?? null, ns }
}

/**
 * A binary frame: the next attachment of the pending binary packet.
 * @param {LeanSession} s
 * @param {Client} c
 * @param {Buffer} bytes
 */
function onBinary (s, c, bytes) {
  const pending = c.binary
  if (pending === null) return s.fail(c, 'parse error')
  pending.buffers.push(bytes)
  if (pending.buffers.length < pending.expected) return
  c.binary = null
  if (pending.args === null) return
  try {
    fillPlaceholders(pending.args, pending.buffers)
  } catch {
    return s.fail(c, 'parse error')
  }
  deliver(s, c, pending)
}

/** Most events kept for a client between its Engine.IO open and its CONNECT ack. */
const MAX_EARLY_EVENTS = 10000

/**
 * Hands an event to the swarm (args are shared between clients: read-only). Events before
 * the CONNECT ack (a recovered session's missed packets come first) wait for it, as in
 * socket.io-client's receive buffer.
 * @param {LeanSession} s
 * @param {Client} c
 * @param {DecodedEvent} decoded
 */
function deliver (s, c, decoded) {
  const args = decoded.args
  const ns = decoded.ns ?? 0
  const isUp = (c.up & (1 << ns)) !== 0
  if (args === null) {
    // An event not measured (--event): counted by name, so a run that measured nothing says what did arrive.
    if (decoded.event !== '' && isUp) s.events.unmeasured(c.i, decoded.event)
    return
  }
  if (!isUp) {
    if (c.state !== STATE.OPEN && c.state !== STATE.CONNECTED) return
    if (c.early === null) c.early = [decoded]
    else if (c.early.length < MAX_EARLY_EVENTS) c.early.push(decoded)
    return
  }
  // With connection state recovery the server appends the packet's offset to the args.
  if (ns === 0 && c.pid !== '' && typeof args[args.length - 1] === 'string') c.offset = /** @type {string} */ (args[args.length - 1])
  s.events.message(c.i, decoded.event, args, s.nsps[ns])
}

/**
 * @param {LeanSession} s
 * @param {Client} c
 * @param {string} text
 * @param {SioHeader} header
 * @param {number} ns
 */
function onNamespaceConnect (s, c, text, header, ns) {
  if ((c.state !== STATE.OPEN && c.state !== STATE.CONNECTED) || (c.up & (1 << ns)) !== 0) return
  let data = null
  try {
    data = JSON.parse(text.slice(header.dataStart))
  } catch {}
  // Socket.IO v2 (Engine.IO v3) acknowledges a namespace with no payload: `40` or `40/nsp`.
  if (s.eio3 && header.dataStart >= text.length) data = { sid: '' }
  if (data === null || typeof data !== 'object' || typeof data.sid !== 'string') return s.fail(c, 'parse error')
  // Recovered, as socket.io-client decides: the CONNECT carried a pid and the server answered with the same one.
  let recovered = false
  if (ns === 0) {
    const pid = typeof data.pid === 'string' ? data.pid : ''
    recovered = pid !== '' && pid === c.pid
    if (pid !== c.pid) c.offset = '' // a new recovery session: the old offset means nothing to it
    c.pid = pid
  }
  c.up |= 1 << ns
  c.state = STATE.CONNECTED
  s.events.connected(c.i, wireName(c.wire), s.nsps[ns], recovered)
  const early = c.early
  if (early === null) return
  // The events that came for this namespace before its ack; the others wait for theirs.
  const mine = early.filter((e) => (e.ns ?? 0) === ns)
  const rest = early.filter((e) => (e.ns ?? 0) !== ns)
  c.early = rest.length > 0 ? rest : null
  const gen = c.gen
  for (let k = 0; k < mine.length && c.gen === gen; k++) deliver(s, c, mine[k])
}

/**
 * Socket.IO v2: the implicit '/' refused a client that did not ask for it (see onMessage).
 * @param {LeanSession} s
 * @param {Client} c
 * @param {string} text
 * @param {SioHeader} header
 */
function onRootRefused (s, c, text, header) {
  const message = connectErrorMessage(text.slice(header.dataStart))
  if (message === null) return s.fail(c, 'parse error')
  const gen = c.gen
  for (let k = 0; k < s.nsps.length && c.gen === gen; k++) if ((c.up & (1 << k)) === 0) onNamespaceRefused(s, c, k, message)
}

/**
 * CONNECT_ERROR: the namespace refused the client (middleware `next(err)`); socket.io-client
 * gives up on that socket, so no reconnection.
 * @param {LeanSession} s
 * @param {Client} c
 * @param {string} text
 * @param {SioHeader} header
 * @param {number} ns
 */
function onConnectError (s, c, text, header, ns) {
  const message = connectErrorMessage(text.slice(header.dataStart))
  if (message === null) return s.fail(c, 'parse error')
  onNamespaceRefused(s, c, ns, message)
}
