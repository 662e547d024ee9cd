/**
 * The lean engine's wire codec: Engine.IO v4 open packets and Socket.IO v5 packet headers,
 * events and binary placeholders. Pure functions, no I/O, no state.
 *
 * Engine.IO v4: https://github.com/socketio/engine.io-protocol
 * Socket.IO v5: https://github.com/socketio/socket.io-protocol
 */

/** socket.io-parser refuses more attachments than this by default (maxAttachments). */
export const MAX_ATTACHMENTS = 10

/** Event names socket.io-parser rejects in EVENT packets. */
const RESERVED_EVENTS = new Set(['connect', 'connect_error', 'disconnect', 'disconnecting', 'newListener', 'removeListener'])

/**
 * What a client needs from the Engine.IO handshake.
 * @typedef {object} OpenInfo
 * @property {string} sid
 * @property {string[]} upgrades
 * @property {number} pingIntervalMs
 * @property {number} pingTimeoutMs
 */

/**
 * A decoded event: `args` is null when the event is filtered out (not decoded); `ns` is the
 * index of its namespace in the session's list (absent: 0).
 * @typedef {import('../../wire/frame-cache.js').DecodedEvent} DecodedEvent
 */

/**
 * The header of a Socket.IO packet: `<type>[<attachments>-][<nsp>,][<ackId>]<json>`.
 * @typedef {object} SioHeader
 * @property {number} type 0 CONNECT … 6 BINARY_ACK
 * @property {number} attachments binary attachments that follow (BINARY_EVENT / BINARY_ACK)
 * @property {string} nsp namespace, '/' when absent
 * @property {number} ackId -1 when absent
 * @property {number} dataStart index of the JSON payload in the text
 */

/**
 * Parses an Engine.IO open packet (`0{"sid":…}`).
 * @param {string} text the whole packet, type character included
 * @returns {OpenInfo | null} null when malformed
 */
export function parseOpen (text) {
  let data
  try {
    data = JSON.parse(text.slice(1))
  } catch {
    return null
  }
  if (data === null || typeof data !== 'object' || typeof data.sid !== 'string' || data.sid === '') return null
  // Number() of an object whose toString/valueOf is not callable throws: only numbers and
  // numeric strings are read (found by bench/fuzz.js: `"pingTimeout":{"toString":null}`).
  const pingIntervalMs = numeric(data.pingInterval)
  const pingTimeoutMs = numeric(data.pingTimeout)
  if (!(pingIntervalMs > 0) || !(pingTimeoutMs > 0)) return null
  const upgrades = Array.isArray(data.upgrades) ? data.upgrades.filter((/** @type {unknown} */ u) => typeof u === 'string') : []
  return { sid: data.sid, upgrades, pingIntervalMs, pingTimeoutMs }
}

/**
 * @param {unknown} value
 * @returns {number} NaN unless a number or a string
 */
const numeric = (value) => typeof value === 'number' || typeof value === 'string' ? Number(value) : NaN

/** @param {number} code */
const isDigit = (code) => code >= 48 && code <= 57

/**
 * Parses the header of a Socket.IO packet carried in an Engine.IO message (`4…`).
 * @param {string} text the Engine.IO packet; the Socket.IO packet starts at `start`
 * @param {number} [start]
 * @returns {SioHeader | null} null when malformed
 */
export function parseSioHeader (text, start = 1) {
  const type = text.charCodeAt(start) - 48
  if (!(type >= 0 && type <= 6)) return null
  let pos = start + 1
  let attachments = 0
  if (type === 5 || type === 6) {
    const dash = text.indexOf('-', pos)
    if (dash <= pos || dash - pos > 3) return null
    for (; pos < dash; pos++) {
      const code = text.charCodeAt(pos)
      if (!isDigit(code)) return null
      attachments = attachments * 10 + code - 48
    }
    if (attachments < 1 || attachments > MAX_ATTACHMENTS) return null
    pos = dash + 1
  }
  let nsp = '/'
  if (text.charCodeAt(pos) === 47) { // '/': a namespace, ended by ',' or the end of the packet
    const comma = text.indexOf(',', pos)
    const end = comma === -1 ? text.length : comma
    nsp = text.slice(pos, end)
    pos = comma === -1 ? end : end + 1
  }
  let ackId = -1
  const idStart = pos
  while (pos < text.length && isDigit(text.charCodeAt(pos))) pos++
  if (pos > idStart) {
    if (pos - idStart > 15) return null // beyond a safe integer: not an id socket.io would send
    ackId = Number(text.slice(idStart, pos))
  }
  return { type, attachments, nsp, ackId, dataStart: pos }
}

/**
 * Reads the event name of an EVENT payload without parsing the JSON: `["name",…`.
 * @param {string} text
 * @param {number} dataStart
 * @returns {string | null} null when the name is not a plain string (escapes, numbers)
 */
export function peekEventName (text, dataStart) {
  if (text.charCodeAt(dataStart) !== 91 || text.charCodeAt(dataStart + 1) !== 34) return null // '["'
  const end = text.indexOf('"', dataStart + 2)
  if (end === -1) return null
  const name = text.slice(dataStart + 2, end)
  return name.includes('\\') ? null : name
}

/**
 * Decodes an EVENT / BINARY_EVENT payload, skipping the JSON parse when the event is filtered out.
 * @param {string} text
 * @param {number} dataStart
 * @param {Set<string> | null} wanted events to decode; null = all
 * @returns {DecodedEvent | null} null when malformed
 */
export function decodeEvent (text, dataStart, wanted) {
  if (wanted !== null) {
    const name = peekEventName(text, dataStart)
    // Not measured: kept by name only (counted, never parsed; cached once per frame).
    if (name !== null && !wanted.has(name)) return RESERVED_EVENTS.has(name) ? null : { event: name, args: null }
  }
  let payload
  try {
    payload = JSON.parse(text.slice(dataStart))
  } catch {
    return null
  }
  if (!Array.isArray(payload) || payload.length === 0) return null
  const first = payload[0]
  if (typeof first === 'number') {
    // socket.io allows numeric event names; the swarm keys events by string.
  } else if (typeof first !== 'string' || RESERVED_EVENTS.has(first)) {
    return null
  }
  const event = String(first)
  if (wanted !== null && !wanted.has(event)) return { event, args: null }
  payload.shift()
  return { event, args: payload }
}

/**
 * Replaces binary placeholders `{ _placeholder: true, num }` with the attachments, in place.
 * @param {unknown} value
 * @param {Buffer[]} buffers
 * @returns {unknown} the value with placeholders replaced
 * @throws {RangeError} on a placeholder that names no attachment
 */
export function fillPlaceholders (value, buffers) {
  if (value === null || typeof value !== 'object') return value
  if (Array.isArray(value)) {
    for (let k = 0; k < value.length; k++) value[k] = fillPlaceholders(value[k], buffers)
    return value
  }
  const record = /** @type {Record<string, unknown>} */ (value)
  if (record._placeholder === true) {
    const num = record.num
    if (typeof num !== 'number' || !Number.isInteger(num) || num < 0 || num >= buffers.length) {
      throw new RangeError('binary placeholder names no attachment')
    }
    return buffers[num]
  }
  for (const key of Object.keys(record)) record[key] = fillPlaceholders(record[key], buffers)
  return record
}

/**
 * A namespace prefix as Socket.IO writes it: nothing for '/', else `/nsp,`.
 * @param {string} nsp
 */
function nspPrefix (nsp) {
  return nsp === '/' ? '' : `${nsp},`
}

/**
 * The CONNECT packet (Engine.IO message included): `40[/nsp,][json]`.
 * @param {string} nsp
 * @param {Record<string, unknown> | undefined} data auth payload, with pid/offset for recovery
 */
export function encodeConnect (nsp, data) {
  return `40${nspPrefix(nsp)}${data === undefined ? '' : JSON.stringify(data)}`
}

/** The event name encodeEvent wrote last, and its JSON. */
let lastEvent = ''
let lastEventJson = '""'

/**
 * An EVENT packet (Engine.IO message included): `42[/nsp,][ackId]["event",…args]`. JSON only:
 * binary arguments would need a BINARY_EVENT with attachments.
 * @param {string} nsp
 * @param {string} event
 * @param {unknown[]} args
 * @param {number} ackId -1 = no acknowledgement asked for
 */
export function encodeEvent (nsp, event, args, ackId) {
  // Each argument stringified as JSON.stringify([event, ...args]) would (undefined, a function
  // or a symbol as null), without the array copy: this runs on every emit.
  let out = eventHead(nsp, event, ackId)
  for (let a = 0; a < args.length; a++) {
    const json = JSON.stringify(args[a])
    out += json === undefined ? ',null' : ',' + json
  }
  return out + ']'
}

/**
 * An EVENT packet whose arguments are JSON already (`{"a":1},2`: what JSON.stringify writes
 * between the brackets; '' for none).
 * @param {string} nsp
 * @param {string} event
 * @param {string} argsJson
 * @param {number} ackId -1 = no acknowledgement asked for
 */
export function encodeEventText (nsp, event, argsJson, ackId) {
  const head = eventHead(nsp, event, ackId)
  return argsJson === '' ? head + ']' : head + ',' + argsJson + ']'
}

/**
 * `42[/nsp,][ackId]["event"`. A swarm emits one or a few events: the last one's JSON is kept
 * rather than made again each time.
 * @param {string} nsp
 * @param {string} event
 * @param {number} ackId
 */
function eventHead (nsp, event, ackId) {
  if (event !== lastEvent) {
    lastEvent = event
    lastEventJson = JSON.stringify(event)
  }
  return '42' + nspPrefix(nsp) + (ackId === -1 ? '[' : `${ackId}[`) + lastEventJson
}

/**
 * The DISCONNECT packet a client sends when it leaves on purpose: `41[/nsp,]`.
 * @param {string} nsp
 */
export function encodeDisconnect (nsp) {
  return `41${nspPrefix(nsp)}`
}

/**
 * The message of a CONNECT_ERROR payload: `{"message":…}` (v5) or a bare string (v4 servers).
 * @param {string} json
 * @returns {string | null} null when malformed
 */
export function connectErrorMessage (json) {
  let data
  try {
    data = JSON.parse(json)
  } catch {
    return null
  }
  if (typeof data === 'string') return data
  if (data !== null && typeof data === 'object' && typeof data.message === 'string') return data.message
  return null
}

/**
 * An Engine.IO v3 polling payload: each packet as `<length>:<packet>`, the length in
 * characters (socket.io 2.x servers; v4 separates packets with \x1e instead).
 * @param {string[]} packets
 */
export function encodePayloadV3 (packets) {
  let out = ''
  for (const p of packets) out += `${p.length}:${p}`
  return out
}

/**
 * Splits an Engine.IO v3 polling payload into its packets.
 * @param {string} body
 * @returns {string[] | null} null when malformed
 */
export function splitPayloadV3 (body) {
  /** @type {string[]} */
  const packets = []
  for (let at = 0; at < body.length;) {
    const colon = body.indexOf(':', at)
    if (colon <= at || colon - at > 10) return null
    const length = Number(body.slice(at, colon))
    if (!Number.isSafeInteger(length) || colon + 1 + length > body.length) return null
    packets.push(body.slice(colon + 1, colon + 1 + length))
    at = colon + 1 + length
  }
  return packets
}
