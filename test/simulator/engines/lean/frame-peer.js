/**
 * A raw RFC 6455 peer on a `net` server, for testing the built-in WebSocket client at the
 * byte level: it answers the handshake, the Engine.IO open and the namespace CONNECT, then
 * runs a script that writes hand-made frames in chosen pieces. It records the client's frames.
 */
import net from 'node:net'
import { once } from 'node:events'
import { createHash } from 'node:crypto'
import { OPEN_PACKET } from './fake-peer.js'

/**
 * A server frame (unmasked unless asked).
 * @param {number} opcode
 * @param {string | Buffer} payload
 * @param {{ fin?: boolean, mask?: boolean, rsv?: number }} [flags]
 */
export function frame (opcode, payload, { fin = true, mask = false, rsv = 0 } = {}) {
  const data = Buffer.from(payload)
  const length = data.length
  // RFC 6455 payload length: 7 bits, 16 bits after 126, or 64 bits after 127.
  const head = length < 126
    ? [length]
    : length < 65536 ? [126, length >> 8, length & 255] : [127, 0, 0, 0, 0, (length >>> 24) & 255, (length >> 16) & 255, (length >> 8) & 255, length & 255]
  head[0] |= mask ? 0x80 : 0
  const maskKey = mask ? Buffer.from([1, 2, 3, 4]) : Buffer.alloc(0)
  const body = mask ? data.map((byte, k) => byte ^ maskKey[k & 3]) : data
  return Buffer.concat([Buffer.from([(fin ? 0x80 : 0) | rsv | opcode, ...head]), maskKey, body])
}

/**
 * Client frames found in `buf` (masked, as a client must send them).
 * @param {Buffer} buf
 * @returns {{ frames: { opcode: number, payload: Buffer }[], rest: Buffer }}
 */
function readClientFrames (buf) {
  const frames = []
  let pos = 0
  while (buf.length - pos >= 6) {
    let length = buf[pos + 1] & 127
    let at = pos + 2
    if (length === 126) { length = buf.readUInt16BE(at); at += 2 }
    if (buf.length - at < 4 + length) break
    const mask = buf.subarray(at, at + 4)
    const payload = Buffer.from(buf.subarray(at + 4, at + 4 + length).map((byte, k) => byte ^ mask[k & 3]))
    frames.push({ opcode: buf[pos] & 15, payload })
    pos = at + 4 + length
  }
  return { frames, rest: buf.subarray(pos) }
}

/**
 * @typedef {object} PeerScript
 * @property {string} [response] a whole handshake response to send instead of the 101
 * @property {(socket: net.Socket) => Promise<void> | void} [afterConnect] runs after the CONNECT ack
 */

/**
 * @param {import('node:test').TestContext} t
 * @param {PeerScript} script
 */
export async function startFramePeer (t, script) {
  /** @type {{ opcode: number, payload: Buffer }[]} */
  const received = []
  /** @type {Set<net.Socket>} */
  const sockets = new Set()
  const server = net.createServer((socket) => {
    sockets.add(socket)
    socket.setNoDelay(true)
    socket.on('error', () => {})
    /** @type {Buffer} */
    let buffered = Buffer.alloc(0)
    let upgraded = false
    socket.on('data', (chunk) => {
      buffered = Buffer.concat([buffered, chunk])
      if (!upgraded) {
        const end = buffered.indexOf('\r\n\r\n')
        if (end === -1) return
        const key = /sec-websocket-key: *(\S+)/i.exec(buffered.toString('latin1', 0, end))?.[1] ?? ''
        buffered = buffered.subarray(end + 4)
        upgraded = true
        const accept = createHash('sha1').update(`${key}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest('base64')
        // The 101 and the open packet in one write: the client must split them itself.
        socket.write(script.response ?? Buffer.concat([
          Buffer.from(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`),
          frame(1, OPEN_PACKET)
        ]))
      }
      const { frames, rest } = readClientFrames(buffered)
      buffered = rest
      for (const f of frames) {
        received.push(f)
        if (f.opcode === 1 && f.payload.toString().startsWith('40')) {
          socket.write(frame(1, '40{"sid":"frame-peer"}'))
          script.afterConnect?.(socket)
        }
      }
    })
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  t.after(() => {
    for (const socket of sockets) socket.destroy()
    server.close()
  })
  const { port } = /** @type {import('node:net').AddressInfo} */ (server.address())
  return { url: `http://127.0.0.1:${port}`, received }
}

/**
 * Writes `data` in pieces cut at `cuts`, each in its own TCP segment (a pause between writes).
 * @param {net.Socket} socket
 * @param {Buffer} data
 * @param {number[]} cuts increasing offsets
 */
export async function writeInPieces (socket, data, cuts) {
  let from = 0
  for (const cut of [...cuts, data.length]) {
    socket.write(data.subarray(from, cut))
    from = cut
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
}
