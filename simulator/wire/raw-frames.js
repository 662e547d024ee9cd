/**
 * The frame reader of the built-in WebSocket client (RFC 6455 §5): whole frames are handled
 * where they lie in the shared read buffer; a frame cut by the end of a read continues in the
 * socket's own state (a header copy, or a payload buffer of the announced length, filled as
 * bytes arrive: no quadratic re-concatenation of big frames). Messages go to the socket's
 * `deliver` (the lean engine's Engine.IO reader, or the plain WebSocket pool's), pongs to its
 * `onPong`; a close frame's status and reason are kept on the socket.
 */
import { OPCODE, encodeFrame, readFrameHeader } from './rfc6455.js'

/**
 * What the reader needs of a socket: its connection's state and writes, and the frame state below.
 * @typedef {{
 *   destroyed: boolean, write (data: Buffer): void, end (data: Buffer): void, destroy (): void,
 *   session: { maxPayloadBytes: number },
 *   partial: Buffer | null, payload: Buffer | null, payloadFill: number, frameOpcode: number, frameFin: boolean,
 *   fragments: Buffer[] | null, fragmentOpcode: number, fragmentBytes: number,
 *   closing: boolean, failed: boolean, tooLarge: boolean, closeCode: number, closeReason: string,
 *   deliver (data: Buffer, start: number, end: number, isBinary: boolean): void,
 *   onPong (): void
 * }} RawWebSocket
 */

const EMPTY = Buffer.alloc(0)
/** Close status 1009, Message Too Big (RFC 6455 §7.4.1). */
const CLOSE_MESSAGE_TOO_BIG = Buffer.from([0x03, 0xf1])

/**
 * Reads frames from buf[pos, end): whole ones in place, the rest kept for the next read.
 * @param {RawWebSocket} ws
 * @param {Buffer} buf
 * @param {number} pos
 * @param {number} end
 */
export function readFrames (ws, buf, pos, end) {
  if (ws.payload !== null) {
    pos = fillPayload(ws, buf, pos, end)
    if (ws.payload !== null) return
  }
  if (ws.partial !== null) {
    const merged = Buffer.concat([ws.partial, buf.subarray(pos, end)])
    ws.partial = null
    return readFrames(ws, merged, 0, merged.length)
  }
  const max = ws.session.maxPayloadBytes
  while (pos < end && !ws.destroyed) {
    const header = readFrameHeader(buf, pos, end)
    if (header === null) {
      ws.partial = Buffer.from(buf.subarray(pos, end))
      return
    }
    if (typeof header === 'string') return protocolError(ws)
    // Checked on the header, before any of the payload is kept: a continuation counts with
    // the fragments before it, so a message cut into many small frames is bounded too.
    const before = header.opcode === OPCODE.CONTINUATION && ws.fragments !== null ? ws.fragmentBytes : 0
    if (before + header.length > max) return payloadTooLarge(ws)
    const start = pos + header.headerBytes
    if (end - start < header.length) {
      ws.payload = Buffer.allocUnsafe(header.length)
      ws.payloadFill = buf.copy(ws.payload, 0, start, end)
      ws.frameOpcode = header.opcode
      ws.frameFin = header.fin
      return
    }
    pos = start + header.length
    onFrame(ws, header.opcode, header.fin, buf, start, pos, true)
  }
}

/**
 * @param {RawWebSocket} ws
 * @param {Buffer} buf
 * @param {number} pos
 * @param {number} end
 * @returns {number} the position after what was used
 */
function fillPayload (ws, buf, pos, end) {
  const payload = /** @type {Buffer} */ (ws.payload)
  const copied = buf.copy(payload, ws.payloadFill, pos, Math.min(end, pos + payload.length - ws.payloadFill))
  ws.payloadFill += copied
  if (ws.payloadFill === payload.length) {
    ws.payload = null
    onFrame(ws, ws.frameOpcode, ws.frameFin, payload, 0, payload.length, false)
  }
  return pos + copied
}

/**
 * One frame, its payload at data[start, end).
 * @param {RawWebSocket} ws
 * @param {number} opcode
 * @param {boolean} fin
 * @param {Buffer} data
 * @param {number} start
 * @param {number} end
 * @param {boolean} shared data is the shared read buffer: copy before keeping any of it
 */
function onFrame (ws, opcode, fin, data, start, end, shared) {
  if (opcode >= OPCODE.CLOSE) return onControl(ws, opcode, data.subarray(start, end))
  if (opcode === OPCODE.CONTINUATION || !fin) {
    if (opcode !== OPCODE.CONTINUATION) {
      if (ws.fragments !== null) return protocolError(ws)
      ws.fragments = []
      ws.fragmentOpcode = opcode
      ws.fragmentBytes = 0
    } else if (ws.fragments === null) {
      return protocolError(ws)
    }
    ws.fragmentBytes += end - start
    ws.fragments.push(shared ? Buffer.from(data.subarray(start, end)) : data.subarray(start, end))
    if (!fin) return
    data = Buffer.concat(ws.fragments, ws.fragmentBytes)
    start = 0
    end = data.length
    opcode = ws.fragmentOpcode
    ws.fragments = null
    shared = false
  } else if (ws.fragments !== null) {
    return protocolError(ws) // a new message inside a fragmented one
  }
  if (ws.closing) return
  if (opcode === OPCODE.TEXT) return ws.deliver(data, start, end, false)
  const binary = shared || start !== 0 || end !== data.length ? Buffer.from(data.subarray(start, end)) : data
  ws.deliver(binary, 0, binary.length, true)
}

/**
 * @param {RawWebSocket} ws
 * @param {number} opcode
 * @param {Buffer} payload
 */
function onControl (ws, opcode, payload) {
  if (opcode === OPCODE.PING) {
    if (!ws.closing) ws.write(encodeFrame(OPCODE.PONG, payload))
  } else if (opcode === OPCODE.PONG) {
    if (!ws.closing) ws.onPong()
  } else if (opcode === OPCODE.CLOSE) {
    // RFC 6455 §7.1.5: no status code in the frame is "1005".
    ws.closeCode = payload.length >= 2 ? payload.readUInt16BE(0) : 1005
    ws.closeReason = payload.length > 2 ? payload.toString('utf8', 2) : ''
    // Echo the status code and close; 'close' reports a clean 'transport close'.
    if (!ws.closing) {
      ws.closing = true
      ws.end(encodeFrame(OPCODE.CLOSE, payload.length >= 2 ? payload.subarray(0, 2) : EMPTY))
    }
  }
}

/**
 * A message over the payload limit: close with 1009 (Message Too Big, as ws does) and reset,
 * without reading the rest; reported as PAYLOAD_TOO_LARGE.
 * @param {RawWebSocket} ws
 */
function payloadTooLarge (ws) {
  ws.tooLarge = true
  ws.failed = true
  if (!ws.closing) ws.write(encodeFrame(OPCODE.CLOSE, CLOSE_MESSAGE_TOO_BIG))
  ws.destroy()
}

/**
 * The peer broke the protocol: reset the connection, reported as a WebSocket error.
 * @param {RawWebSocket} ws
 */
export function protocolError (ws) {
  ws.failed = true
  ws.destroy()
}
