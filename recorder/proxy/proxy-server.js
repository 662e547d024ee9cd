/**
 * The recording reverse proxy: a browser (or an app) pointed at it talks to the target through
 * it, over HTTP, long-polling and WebSocket, to an http:// or https:// target. Nothing of the
 * traffic is changed: requests and answers keep their method, path, headers and bodies (only
 * Host names the target, and hop-by-hop headers are the proxy's own, as RFC 9110 has it), and a
 * WebSocket, once the target agreed to it, is a byte pipe in both directions. A copy of what
 * passes is kept as exchanges (exchanges.js) and frames (ws-tap.js).
 */
import http from 'node:http'
import https from 'node:https'
import { isIP } from 'node:net'
import { answered, finishedExchange, nowMs, pairsOf, startCapture } from './exchanges.js'
import { tapWebSocket } from './ws-tap.js'

/** Headers of one hop (RFC 9110, 7.6.1): each side's own, not forwarded. */
const HOP_BY_HOP = new Set([
  'connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'proxy-authorization', 'proxy-authenticate'
])

/**
 * @typedef {import('./exchanges.js').Capture} Capture
 * @typedef {object} RecordingProxy
 * @property {number} port where it listens
 * @property {string} url what to point the browser at
 * @property {() => { requests: number, webSockets: number, frames: number }} counts what passed so far
 * @property {() => Promise<import('../har.js').HarRecording>} close stops (open connections are cut) and gives what passed
 */

/**
 * @param {{ target: URL, port: number, host: string, trust?: import('../../lib/input/tls-trust.js').TlsTrust | null, creator: string }} options
 * @returns {Promise<RecordingProxy>}
 */
export async function startProxy ({ target, port, host, trust = null, creator }) {
  const secure = target.protocol === 'https:'
  const transport = secure ? https : http
  // SNI names a host, never an address (RFC 6066).
  const tls = secure ? { ...(isIP(target.hostname) ? {} : { servername: target.hostname }), ...(trust ?? {}) } : {}
  const agent = new transport.Agent({ keepAlive: true })
  /** @type {Capture[]} */
  const captures = []
  /** @type {Set<import('node:net').Socket | import('node:stream').Duplex>} */
  const sockets = new Set()
  const track = (/** @type {import('node:stream').Duplex} */ socket) => {
    sockets.add(socket)
    socket.once('close', () => sockets.delete(socket))
  }
  /**
   * A request to the target with the browser's method, path and headers.
   * @param {http.IncomingMessage} req
   * @param {boolean} upgrade
   */
  const forward = (req, upgrade) => {
    const rawHeaders = forwardedHeaders(req.rawHeaders, target.host, upgrade)
    const url = new URL(req.url ?? '/', upgrade ? target.href.replace(/^http/, 'ws') : target)
    const capture = startCapture(req.method ?? 'GET', url, rawHeaders, upgrade)
    captures.push(capture)
    const request = transport.request({
      host: target.hostname,
      port: target.port || (secure ? 443 : 80),
      method: req.method,
      path: req.url,
      headers: rawHeaders,
      agent: upgrade ? false : agent,
      ...tls
    })
    return { capture, request }
  }

  const server = http.createServer((req, res) => {
    const { capture, request } = forward(req, false)
    req.on('data', (/** @type {Buffer} */ chunk) => capture.requestChunks.push(chunk))
    req.pipe(request)
    request.on('response', (answer) => {
      answered(capture, answer.statusCode ?? 0, answer.rawHeaders)
      res.writeHead(answer.statusCode ?? 502, answer.statusMessage, withoutHopByHop(answer.rawHeaders))
      answer.on('data', (/** @type {Buffer} */ chunk) => capture.responseChunks.push(chunk))
      answer.on('end', () => { capture.exchange.endMs = nowMs() })
      answer.pipe(res)
    })
    request.on('error', (error) => {
      if (!res.headersSent) res.writeHead(502, { 'Content-Type': 'text/plain' }).end(`ioswarm record: ${target.origin} did not answer (${error.message})\n`)
      else res.destroy()
    })
    res.on('close', () => { if (!res.writableFinished) request.destroy() })
  })
  server.on('connection', track)
  server.on('upgrade', (req, socket, head) => {
    track(socket)
    socket.on('error', () => socket.destroy())
    const { capture, request } = forward(req, true)
    request.on('upgrade', (answer, upstream, upstreamHead) => {
      track(upstream)
      answered(capture, 101, answer.rawHeaders)
      socket.write(`HTTP/1.1 101 ${answer.statusMessage}\r\n${headerLines(answer.rawHeaders)}\r\n`)
      const tap = tapWebSocket(/** @type {import('../har.js').WsFrame[]} */ (capture.exchange.frames), answer.headers['sec-websocket-extensions'])
      capture.wsFailure = tap.failure
      pipe(upstream, socket, tap.fromServer, upstreamHead)
      pipe(socket, upstream, tap.fromClient, head)
      upstream.once('close', () => { capture.exchange.endMs = nowMs() })
    })
    request.on('response', (answer) => {
      // The target refused the upgrade: its answer goes back as it came, then the connection ends.
      answered(capture, answer.statusCode ?? 0, answer.rawHeaders)
      socket.write(`HTTP/1.1 ${answer.statusCode} ${answer.statusMessage}\r\n${headerLines(withoutHopByHop(answer.rawHeaders))}Connection: close\r\n\r\n`)
      answer.on('data', (/** @type {Buffer} */ chunk) => capture.responseChunks.push(chunk))
      answer.pipe(socket)
    })
    const refusal = 'HTTP/1.1 502 Bad Gateway\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n'
    request.on('error', (error) => socket.end(`${refusal}ioswarm record: ${target.origin} did not answer (${error.message})\n`))
    request.end()
  })
  await new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, host, () => resolve(undefined))
  })
  const address = /** @type {import('node:net').AddressInfo} */ (server.address())
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address
  return {
    port: address.port,
    url: `http://${shownHost === '0.0.0.0' || shownHost === '[::]' ? '127.0.0.1' : shownHost}:${address.port}/`,
    counts: () => countsOf(captures),
    async close () {
      const closed = new Promise((resolve) => server.close(() => resolve(undefined)))
      for (const socket of sockets) socket.destroy()
      agent.destroy()
      await closed
      return { creator, exchanges: captures.map(finishedExchange) }
    }
  }
}

/**
 * The browser's headers as the target gets them: Host names the target; hop-by-hop headers
 * are dropped, except on an upgrade, whose Connection and Upgrade are the request.
 * @param {string[]} raw
 * @param {string} host
 * @param {boolean} upgrade
 */
function forwardedHeaders (raw, host, upgrade) {
  const out = []
  for (let k = 0; k + 1 < raw.length; k += 2) {
    const name = raw[k].toLowerCase()
    if (name === 'host') out.push(raw[k], host)
    else if (!HOP_BY_HOP.has(name) || (upgrade && (name === 'connection' || name === 'upgrade'))) out.push(raw[k], raw[k + 1])
  }
  return out
}

/** @param {string[]} raw */
function withoutHopByHop (raw) {
  const out = []
  for (let k = 0; k + 1 < raw.length; k += 2) if (!HOP_BY_HOP.has(raw[k].toLowerCase())) out.push(raw[k], raw[k + 1])
  return out
}

/** @param {string[]} raw */
function headerLines (raw) {
  return pairsOf(raw).map((h) => `${h.name}: ${h.value}\r\n`).join('')
}

/**
 * Bytes from one socket to the other as they come (with backpressure), and a copy to the tap
 * after they are handed on. Either end closing ends the other.
 * @param {import('node:stream').Duplex} from
 * @param {import('node:stream').Duplex} to
 * @param {(chunk: Buffer) => void} tap
 * @param {Buffer} head bytes that came with the handshake
 */
function pipe (from, to, tap, head) {
  if (head.length > 0) {
    to.write(head)
    tap(head)
  }
  from.on('data', (/** @type {Buffer} */ chunk) => {
    if (!to.write(chunk)) {
      from.pause()
      to.once('drain', () => from.resume())
    }
    tap(chunk)
  })
  from.on('end', () => to.end())
  from.on('error', () => to.destroy())
  from.on('close', () => to.destroy())
}

/** @param {Capture[]} captures */
function countsOf (captures) {
  let webSockets = 0
  let frames = 0
  for (const c of captures) {
    if (c.exchange.frames === null) continue
    webSockets++
    frames += c.exchange.frames.length
  }
  return { requests: captures.length - webSockets, webSockets, frames }
}
