/**
 * The client side of the WebSocket wire format (RFC 6455) that the built-in WebSocket needs:
 * the opening handshake and masked frames. Pure functions, no I/O.
 * https://www.rfc-editor.org/rfc/rfc6455
 */
import { createHash, randomFillSync } from 'node:crypto'

export const OPCODE = Object.freeze({ CONTINUATION: 0, TEXT: 1, BINARY: 2, CLOSE: 8, PING: 9, PONG: 10 })

/** RFC 6455 §1.3: the GUID the server appends to the key. */
const GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11'

/** Masks come from a pool of random bytes refilled 1,024 frames at a time (RFC 6455 §5.3). */
const maskPool = Buffer.alloc(4096)
let maskAt = maskPool.length

/** A fresh random 16-byte key, base64 (RFC 6455 §4.1). */
export function newKey () {
  return randomFillSync(Buffer.alloc(16)).toString('base64')
}

/**
 * The opening handshake request, headers as `ws` sends them.
 * @param {string} path path and query
 * @param {string} host Host header (host:port)
 * @param {string} key
 * @param {Record<string, string> | null} [headers] the client's own (--header), after the protocol's
 */
export function handshakeRequest (path, host, key, headers = null) {
  let extra = ''
  if (headers !== null) for (const name in headers) extra += `${name}: ${headers[name]}\r\n`
  return `GET ${path} HTTP/1.1\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: ${key}\r\n` +
    `Connection: Upgrade\r\nUpgrade: websocket\r\nHost: ${host}\r\n${extra}\r\n`
}

const HEAD_END = Buffer.from('\r\n\r\n')
/** A handshake response head longer than this is refused (ws has no lower limit; 16 KiB is Node's header limit). */
const MAX_HANDSHAKE_BYTES = 16 * 1024

/**
 * Gathers the server's handshake response over reads, keeping an incomplete head in
 * `holder.partial` until its blank line arrives.
 * @param {{ partial: Buffer | null }} holder
 * @param {Buffer} buf this read (a shared buffer: what is kept is copied)
 * @param {number} end bytes of `buf` read
 * @returns {{ head: string, data: Buffer, rest: number } | 'incomplete' | 'too long'}
 *   the head (up to the blank line) and where the frames after it start in `data`
 */
export function gatherHandshake (holder, buf, end) {
  const data = holder.partial === null ? buf.subarray(0, end) : Buffer.concat([holder.partial, buf.subarray(0, end)])
  const headEnd = data.indexOf(HEAD_END)
  if (headEnd === -1) {
    if (data.length > MAX_HANDSHAKE_BYTES) return 'too long'
    holder.partial = Buffer.from(data)
    return 'incomplete'
  }
  holder.partial = null
  return { head: data.toString('latin1', 0, headEnd), data, rest: headEnd + 4 }
}

/**
 * Checks the server's handshake response head (up to the blank line).
 * @param {string} head
 * @param {string} key the key the request sent
 * @param {string[] | null} [protocols] subprotocols the request offered; null = not checked
 *   (the lean engine offers none); [] = none offered, so the server must not pick one
 * @returns {string | null} null when accepted, else what is wrong (ws's wording)
 */
export function checkHandshakeResponse (head, key, protocols = null) {
  const lines = head.split('\r\n')
  const status = /^HTTP\/1\.1 (\d{3})/.exec(lines[0])
  if (status === null || status[1] !== '101') return `Unexpected server response: ${status?.[1] ?? lines[0].slice(0, 40)}`
  const expected = createHash('sha1').update(key + GUID).digest('base64')
  let upgrade = false
  let accepted = false
  /** @type {string | null} */
  let protocol = null
  for (let k = 1; k < lines.length; k++) {
    const colon = lines[k].indexOf(':')
    const name = lines[k].slice(0, colon).trim().toLowerCase()
    const value = lines[k].slice(colon + 1).trim()
    if (name === 'upgrade') upgrade = value.toLowerCase() === 'websocket'
    else if (name === 'sec-websocket-accept') accepted = value === expected
    else if (name === 'sec-websocket-extensions') return 'Server sent an extension that was not requested'
    else if (name === 'sec-websocket-protocol') protocol = value
  }
  if (!upgrade) return 'Invalid Upgrade header'
  if (!accepted) return 'Invalid Sec-WebSocket-Accept header'
  // RFC 6455 §4.1: the server picks one of the offered subprotocols, or none when none was offered.
  if (protocols === null) return null
  if (protocol !== null && protocols.length === 0) return 'Server sent a subprotocol but none was requested'
  if (protocol !== null && !protocols.includes(protocol)) return 'Server sent an invalid subprotocol'
  if (protocol === null && protocols.length > 0) return 'Server sent no subprotocol'
  return null
}

/**
 * A masked client frame carrying `payload` (FIN set: the client never fragments).
 * @param {number} opcode
 * @param {Buffer} payload
 */
export function encodeFrame (opcode, payload) {
  return maskedCopy(opcode, payload, payload.length)
}

/**
 * Where a text is encoded before it is masked into its frame: its UTF-8 length is then known
 * from one pass over the string (Buffer.byteLength and a write into the frame were two), and
 * the mask is applied while copying. Texts that might not fit are written into the frame.
 */
const SCRATCH = Buffer.allocUnsafe(16 * 1024)

/**
 * A masked text frame of `text`: one allocation, one pass to encode and one to mask and copy.
 * @param {string} text
 * @returns {Buffer}
 */
export function encodeTextFrame (text) {
  // A UTF-16 code unit is at most 3 bytes of UTF-8 (a surrogate pair, 2 units, is 4).
  if (text.length * 3 <= SCRATCH.length) return maskedCopy(OPCODE.TEXT, SCRATCH, SCRATCH.write(text, 0))
  // Too long for it: written into the frame and masked where it lies.
  const length = Buffer.byteLength(text)
  const frame = maskedFrame(OPCODE.TEXT, length)
  const dataStart = frame.length - length
  frame.write(text, dataStart, length, 'utf8')
  mask(frame, dataStart, frame, dataStart, length)
  return frame
}

/**
 * A frame of the first `length` bytes of `source`, masked as they are copied in.
 * @param {number} opcode
 * @param {Buffer} source
 * @param {number} length
 * @returns {Buffer}
 */
function maskedCopy (opcode, source, length) {
  const frame = maskedFrame(opcode, length)
  mask(frame, frame.length - length, source, 0, length)
  return frame
}

/**
 * Writes `length` bytes of `source` from `from`, masked with the key in the 4 bytes before
 * `at`, into `frame` at `at` (source may be the frame itself, at the same place).
 * @param {Buffer} frame
 * @param {number} at
 * @param {Buffer} source
 * @param {number} from
 * @param {number} length
 */
function mask (frame, at, source, from, length) {
  const m0 = frame[at - 4]
  const m1 = frame[at - 3]
  const m2 = frame[at - 2]
  const m3 = frame[at - 1]
  let j = 0
  for (; j + 3 < length; j += 4) {
    frame[at + j] = source[from + j] ^ m0
    frame[at + j + 1] = source[from + j + 1] ^ m1
    frame[at + j + 2] = source[from + j + 2] ^ m2
    frame[at + j + 3] = source[from + j + 3] ^ m3
  }
  for (let q = 0; j < length; j++, q++) frame[at + j] = source[from + j] ^ (q === 0 ? m0 : q === 1 ? m1 : m2)
}

/**
 * A client frame of `length` payload bytes with its header and masking key written: the
 * payload goes in its last `length` bytes, the key in the 4 before them (RFC 6455 5.2).
 * @param {number} opcode
 * @param {number} length
 * @returns {Buffer}
 */
function maskedFrame (opcode, length) {
  const headerBytes = length < 126 ? 2 : length < 65536 ? 4 : 10
  const frame = Buffer.allocUnsafe(headerBytes + 4 + length)
  frame[0] = 0x80 | opcode
  if (length < 126) {
    frame[1] = 0x80 | length
  } else if (length < 65536) {
    frame[1] = 0x80 | 126
    frame.writeUInt16BE(length, 2)
  } else {
    frame[1] = 0x80 | 127
    frame.writeUInt32BE(Math.floor(length / 2 ** 32), 2)
    frame.writeUInt32BE(length >>> 0, 6)
  }
  if (maskAt === maskPool.length) {
    randomFillSync(maskPool)
    maskAt = 0
  }
  // Four bytes by hand: Buffer#copy costs a call into the runtime for them.
  frame[headerBytes] = maskPool[maskAt]
  frame[headerBytes + 1] = maskPool[maskAt + 1]
  frame[headerBytes + 2] = maskPool[maskAt + 2]
  frame[headerBytes + 3] = maskPool[maskAt + 3]
  maskAt += 4
  return frame
}

/**
 * The header of a server frame at `pos`, or why it is invalid, or null when incomplete.
 * @typedef {{ fin: boolean, opcode: number, length: number, headerBytes: number }} FrameHeader
 * @param {Buffer} buf
 * @param {number} pos
 * @param {number} end
 * @returns {FrameHeader | string | null}
 */
export function readFrameHeader (buf, pos, end) {
  if (end - pos < 2) return null
  const b0 = buf[pos]
  const b1 = buf[pos + 1]
  if ((b0 & 0x70) !== 0) return 'RSV bits must be clear' // no extension was negotiated
  if ((b1 & 0x80) !== 0) return 'a server must not mask its frames'
  const opcode = b0 & 0x0f
  const fin = (b0 & 0x80) !== 0
  let length = b1 & 0x7f
  let headerBytes = 2
  if (length === 126) {
    if (end - pos < 4) return null
    length = buf.readUInt16BE(pos + 2)
    headerBytes = 4
  } else if (length === 127) {
    if (end - pos < 10) return null
    const high = buf.readUInt32BE(pos + 2)
    if (high > 0x1fffff) return 'payload length beyond 2^53'
    length = high * 2 ** 32 + buf.readUInt32BE(pos + 6)
    headerBytes = 10
  }
  if (opcode >= 8 && (!fin || length > 125)) return 'invalid control frame'
  if ((opcode > 2 && opcode < 8) || opcode > 10) return `invalid opcode ${opcode}`
  return { fin, opcode, length, headerBytes }
}
