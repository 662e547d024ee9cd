/**
 * The reference app server under test: a socket.io 4 server that relays each broadcast to
 * every client with io.emit, a token-guarded POST /broadcast and admin namespace to trigger
 * broadcasts, and GET /stats with its own CPU, memory, event-loop delay and connections.
 */
import http from 'node:http'
import { randomBytes } from 'node:crypto'
import { Server } from 'socket.io'
import { IoswarmError, CODES } from '../lib/errors.js'
import { parseInteger } from '../lib/options.js'
import { createProcessSampler } from '../lib/process-sampler.js'
import { ADMIN_NAMESPACE, DEFAULT_EVENT, DEFAULT_PATH } from '../lib/protocol.js'
import { createBroadcastHandler } from './broadcast.js'
import { tokenMatches, bearerToken } from './token.js'

/**
 * @typedef {import('../lib/schema.js').ServerSample} ServerSample
 * @typedef {object} ServerOptions
 * @property {number} [port] 0 = a free port
 * @property {string} [host] address to bind; default all interfaces
 * @property {string} [token] broadcast token; a random one is generated when missing
 * @property {string} [path]
 * @property {string} [event] default broadcast event
 * @property {number} [pingIntervalMs]
 * @property {number} [pingTimeoutMs]
 * @property {number} [maxBodyBytes] largest POST /broadcast body
 */

/**
 * Starts the reference server; resolves once it listens.
 * @param {ServerOptions} [options]
 * @param {{ onSample?: (sample: ServerSample) => void, sampleIntervalMs?: number }} [hooks]
 */
export async function startServer (options = {}, hooks = {}) {
  const port = parseInteger(options.port ?? 3000, '--port', { min: 0, max: 65535 })
  const token = options.token || randomBytes(18).toString('base64url')
  const tokenGenerated = !options.token
  const httpServer = http.createServer()
  const io = new Server(httpServer, {
    path: options.path ?? DEFAULT_PATH,
    pingInterval: options.pingIntervalMs ?? 25000,
    pingTimeout: options.pingTimeoutMs ?? 20000,
    cors: { origin: '*' }
  })
  const connections = trackConnections(io)
  const broadcast = createBroadcastHandler({ io, defaultEvent: options.event ?? DEFAULT_EVENT })
  const sampler = createProcessSampler()
  const stats = () => ({ ...sampler.sample(), ...connections.counts() })
  const sampleTimer = hooks.onSample ? setInterval(() => hooks.onSample?.(stats()), hooks.sampleIntervalMs ?? 1000) : undefined

  io.of(ADMIN_NAMESPACE).use((socket, next) => {
    next(tokenMatches(token, socket.handshake.auth?.token) ? undefined : new Error('unauthorized: a valid token is required'))
  }).on('connection', (socket) => {
    socket.on('broadcast', async (body, ack) => {
      const reply = typeof ack === 'function' ? ack : () => {}
      try {
        reply({ ok: true, messages: await broadcast(body) })
      } catch (error) {
        reply({ ok: false, error: /** @type {Error} */ (error).message })
      }
    })
  })

  httpServer.on('request', (req, res) => {
    // socket.io answers its own path; everything else is ours.
    if (req.url?.startsWith(io.path())) return
    route(req, res, { token, broadcast, stats, maxBodyBytes: options.maxBodyBytes ?? 1 << 20 }).catch((error) => {
      sendJson(res, 500, { error: /** @type {Error} */ (error).message })
    })
  })

  await new Promise((resolve, reject) => {
    httpServer.once('error', (error) => reject(new IoswarmError(CODES.SERVER, `cannot listen on port ${port}: ${error.message}`, { cause: error })))
    httpServer.listen(port, options.host, () => resolve(undefined))
  })
  const address = /** @type {import('node:net').AddressInfo} */ (httpServer.address())
  const host = options.host && options.host !== '0.0.0.0' && options.host !== '::' ? options.host : 'localhost'

  return {
    io,
    httpServer,
    port: address.port,
    url: `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`,
    token,
    tokenGenerated,
    stats,
    broadcast,
    async close () {
      clearInterval(sampleTimer)
      sampler.stop()
      io.disconnectSockets(true)
      await new Promise((resolve) => io.close(() => resolve(undefined)))
    }
  }
}

/**
 * Counts connected clients of the main namespace by the transport they use now.
 * @param {Server} io
 */
function trackConnections (io) {
  const counts = { websocket: 0, polling: 0 }
  io.on('connection', (socket) => {
    let transport = /** @type {'websocket' | 'polling'} */ (socket.conn.transport.name === 'websocket' ? 'websocket' : 'polling')
    counts[transport]++
    socket.conn.once('upgrade', () => {
      counts.polling--
      counts.websocket++
      transport = 'websocket'
    })
    socket.once('disconnect', () => { counts[transport]-- })
  })
  return {
    counts: () => ({ connected: counts.websocket + counts.polling, byTransport: { ...counts } })
  }
}

/**
 * @param {http.IncomingMessage} req
 * @param {http.ServerResponse} res
 * @param {{ token: string, broadcast: (body: unknown) => Promise<unknown>, stats: () => unknown, maxBodyBytes: number }} ctx
 */
async function route (req, res, ctx) {
  const { pathname } = new URL(req.url ?? '/', 'http://x')
  if (req.method === 'GET' && pathname === '/stats') return sendJson(res, 200, ctx.stats())
  if (req.method === 'GET' && pathname === '/') return sendJson(res, 200, { name: 'ioswarm reference server', broadcast: 'POST /broadcast', stats: 'GET /stats' })
  if (pathname !== '/broadcast') return sendJson(res, 404, { error: 'not found' })
  if (req.method !== 'POST') return sendJson(res, 405, { error: 'use POST' })
  if (!tokenMatches(ctx.token, bearerToken(req))) {
    res.setHeader('www-authenticate', 'Bearer')
    return sendJson(res, 401, { error: 'unauthorized: send the token as "Authorization: Bearer <token>"' })
  }
  const body = await readJson(req, ctx.maxBodyBytes)
  if (body.error) return sendJson(res, body.status, { error: body.error })
  try {
    sendJson(res, 200, { messages: await ctx.broadcast(body.value) })
  } catch (error) {
    sendJson(res, error instanceof IoswarmError ? 400 : 500, { error: /** @type {Error} */ (error).message })
  }
}

/**
 * @param {http.IncomingMessage} req
 * @param {number} maxBytes
 * @returns {Promise<{ value?: unknown, error?: string, status: number }>}
 */
async function readJson (req, maxBytes) {
  const tooLarge = { error: `body larger than ${maxBytes} bytes`, status: 413 }
  if (Number(req.headers['content-length']) > maxBytes) return discard(req, tooLarge)
  const chunks = []
  let size = 0
  for await (const chunk of req) {
    size += chunk.length
    if (size > maxBytes) return discard(req, tooLarge)
    chunks.push(chunk)
  }
  const text = Buffer.concat(chunks).toString('utf8')
  if (text.trim() === '') return { value: {}, status: 200 }
  try {
    return { value: JSON.parse(text), status: 200 }
  } catch (error) {
    return { error: `body is not JSON: ${/** @type {Error} */ (error).message}`, status: 400 }
  }
}

/**
 * Reads and drops the rest of a refused body, so the client gets our answer rather than a
 * reset connection.
 * @template T
 * @param {http.IncomingMessage} req
 * @param {T} answer
 * @returns {T}
 */
function discard (req, answer) {
  req.resume()
  return answer
}

/**
 * @param {http.ServerResponse} res
 * @param {number} status
 * @param {unknown} body
 */
function sendJson (res, status, body) {
  res.writeHead(status, { 'content-type': 'application/json' })
  res.end(JSON.stringify(body))
}
