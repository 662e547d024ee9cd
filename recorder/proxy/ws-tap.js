/**
 * Reads the frames of a WebSocket that the recording proxy passes through untouched: a copy of
 * each chunk goes to a frame parser per direction (ws's own Receiver, masked frames from the
 * client, plain ones from the server), and each text or binary message becomes a frame of the
 * recording, as a HAR's `_webSocketMessages` would hold it. Messages compressed with
 * permessage-deflate (when the handshake agreed on it) are inflated here, with the window the
 * handshake named and its context kept across messages unless the handshake said not to.
 */
import zlib from 'node:zlib'
import * as ws from 'ws'

/** ws's frame parser, a Writable that emits 'message' (data, isBinary): exported by ws, not typed by @types/ws. */
const Receiver = /** @type {new (options: object) => import('node:stream').Writable} */ (/** @type {any} */ (ws).Receiver)

/**
 * ws's parser, knowing when the chunk it reads passed the proxy. A message is stamped with the
 * time its last chunk passed, not the time the parser emits it: an inflated message is emitted
 * after zlib's turn, and the two directions' turns may end in either order, which would put an
 * ack before the emit it answers. The parser takes each chunk in order and the next only once a
 * message's inflating is done, so the chunk it reads is the one that ended the message.
 */
class StampedReceiver extends Receiver {
  /** When each chunk written and not yet read passed the proxy (epoch ms), oldest first. @type {number[]} */
  arrivals = []
  /** When the chunk being read passed the proxy. */
  atMs = 0

  /**
   * @param {Buffer} chunk
   * @param {BufferEncoding} encoding
   * @param {(error?: Error | null) => void} callback
   */
  _write (chunk, encoding, callback) {
    this.atMs = this.arrivals.shift() ?? nowMs()
    super._write(chunk, encoding, callback)
  }

  /** @param {Buffer} chunk a chunk as it passes */
  take (chunk) {
    this.arrivals.push(nowMs())
    this.write(chunk)
  }
}

const nowMs = () => performance.timeOrigin + performance.now()

/** The bytes permessage-deflate strips from the end of each message (RFC 7692, 7.2.2). */
const TRAILER = Buffer.from([0x00, 0x00, 0xff, 0xff])

/**
 * @typedef {import('../har.js').WsFrame} WsFrame
 * @typedef {object} WsTap
 * @property {(chunk: Buffer) => void} fromClient a chunk the browser sent
 * @property {(chunk: Buffer) => void} fromServer a chunk the server sent
 * @property {() => string | null} failure why the frames could not be read, or null
 */

/**
 * @param {WsFrame[]} frames where the messages go, in the order they pass
 * @param {string | undefined} extensions the server's Sec-WebSocket-Extensions answer
 * @returns {WsTap}
 */
export function tapWebSocket (frames, extensions) {
  const deflate = deflateParams(extensions)
  /** @type {string | null} */
  let failure = null
  /**
   * @param {'send' | 'receive'} dir
   * @param {boolean} fromClient
   */
  const reader = (dir, fromClient) => {
    const receiver = new StampedReceiver({
      isServer: fromClient,
      skipUTF8Validation: true,
      extensions: deflate ? { 'permessage-deflate': inflater(deflate, fromClient ? 'client' : 'server') } : {}
    })
    receiver.on('message', (/** @type {Buffer} */ data, /** @type {boolean} */ isBinary) => {
      frames.push({ dir, atMs: receiver.atMs, data: isBinary ? Buffer.from(data) : data.toString('utf8') })
    })
    receiver.on('error', (/** @type {Error} */ error) => { failure ??= `${dir === 'send' ? 'the client' : 'the server'}'s frames: ${error.message}` })
    return receiver
  }
  const client = reader('send', true)
  const server = reader('receive', false)
  return {
    fromClient: (chunk) => { if (failure === null) client.take(chunk) },
    fromServer: (chunk) => { if (failure === null) server.take(chunk) },
    failure: () => failure
  }
}

/**
 * The permessage-deflate parameters the server accepted, or null when it accepted none.
 * @param {string | undefined} header
 * @returns {Record<string, string | true> | null}
 */
export function deflateParams (header) {
  if (!header) return null
  for (const offer of header.split(',')) {
    const [name, ...params] = offer.split(';').map((s) => s.trim())
    if (name !== 'permessage-deflate') continue
    return Object.fromEntries(params.map((p) => {
      const [key, value] = p.split('=').map((s) => s.trim())
      return [key, value === undefined ? true : value.replace(/^"|"$/g, '')]
    }))
  }
  return null
}

/**
 * The decompress half of permessage-deflate, as ws's Receiver calls it: one raw inflate stream
 * per direction, its window from the handshake, reset after each message when that side
 * keeps no context.
 * @param {Record<string, string | true>} params
 * @param {'client' | 'server'} sender
 */
function inflater (params, sender) {
  const bits = Number(params[`${sender}_max_window_bits`])
  const windowBits = Number.isInteger(bits) && bits >= 8 && bits <= 15 ? bits : zlib.constants.Z_DEFAULT_WINDOWBITS
  const noContext = params[`${sender}_no_context_takeover`] === true
  /** @type {zlib.InflateRaw | null} */
  let inflate = null
  /** @type {Buffer[]} */
  let chunks = []
  /** The message being inflated: its callback, until its flush or an error answers it. @type {((error: Error | null, data?: Buffer) => void) | null} */
  let pending = null
  const reset = () => {
    inflate?.close()
    inflate = null
    chunks = []
  }
  return {
    /**
     * @param {Buffer} data
     * @param {boolean} fin
     * @param {(error: Error | null, data?: Buffer) => void} callback
     */
    decompress (data, fin, callback) {
      if (inflate === null) {
        inflate = zlib.createInflateRaw({ windowBits })
        inflate.on('data', (/** @type {Buffer} */ chunk) => chunks.push(chunk))
        inflate.on('error', (/** @type {Error} */ error) => {
          const answer = pending
          pending = null
          reset()
          answer?.(error)
        })
      }
      pending = callback
      inflate.write(data)
      if (fin) inflate.write(TRAILER)
      inflate.flush(() => {
        if (pending !== callback) return // answered by an error
        pending = null
        const out = Buffer.concat(chunks)
        chunks = []
        if (fin && noContext) reset()
        callback(null, out)
      })
    }
  }
}
