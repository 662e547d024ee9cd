/**
 * The reference server's own HTTP endpoints, beside socket.io's path: POST /broadcast
 * (token-guarded), GET /stats, GET /.
 */
import { CODES, IoswarmError } from '../../lib/errors.js'
import { tokenMatches, bearerToken } from './token.js'
import { rateLimitedReply } from './broadcast-limit.js'

/**
 * @typedef {import('node:http').IncomingMessage} IncomingMessage
 * @typedef {import('node:http').ServerResponse} ServerResponse
 * @typedef {object} RouteContext
 * @property {string} token
 * @property {(body: unknown) => Promise<unknown>} broadcast
 * @property {() => unknown} stats may return a promise (a cluster asks its workers)
 * @property {number} maxBodyBytes
 * @property {ReturnType<typeof import('./broadcast-limit.js').createBroadcastLimiter>} [limiter] charged per authorized broadcast, before its body is read
 */

/**
 * Answers one request that is not socket.io's.
 * @param {IncomingMessage} req
 * @param {ServerResponse} res
 * @param {RouteContext} ctx
 */
export async function route (req, res, ctx) {
  const { pathname } = new URL(req.url ?? '/', 'http://x')
  if (req.method === 'GET' && pathname === '/stats') return sendJson(res, 200, await ctx.stats())
  if (req.method === 'GET' && pathname === '/') {
    return sendJson(res, 200, { name: 'ioswarm reference server', broadcast: 'POST /broadcast', stats: 'GET /stats' })
  }
  if (pathname !== '/broadcast') return sendJson(res, 404, { error: 'not found' })
  if (req.method !== 'POST') return sendJson(res, 405, { error: 'use POST' })
  if (!tokenMatches(ctx.token, bearerToken(req))) {
    res.setHeader('www-authenticate', 'Bearer')
    return sendJson(res, 401, { error: 'unauthorized: send the token as "Authorization: Bearer <token>"' })
  }
  const taken = ctx.limiter?.take() ?? { ok: true, retryAfterMs: 0 }
  if (!taken.ok) {
    discard(req, null) // the client gets our answer, not a reset
    res.setHeader('retry-after', String(Math.ceil(taken.retryAfterMs / 1000)))
    return sendJson(res, 429, rateLimitedReply(ctx.limiter?.ratePerSec ?? 0, taken.retryAfterMs))
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
 * @param {IncomingMessage} req
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
 * @param {IncomingMessage} req
 * @param {T} answer
 * @returns {T}
 */
function discard (req, answer) {
  req.resume()
  return answer
}

/**
 * Answers with a JSON body.
 * @param {ServerResponse} res
 * @param {number} status
 * @param {unknown} body
 */
export function sendJson (res, status, body) {
  res.writeHead(status, { 'content-type': 'application/json' })
  res.end(JSON.stringify(body))
}

/**
 * Listens; a port in use (or any listen error) becomes a SERVER error naming the port.
 * @param {import('node:http').Server} httpServer
 * @param {number} port
 * @param {string | undefined} host
 * @returns {Promise<import('node:net').AddressInfo>}
 */
export async function listen (httpServer, port, host) {
  await new Promise((resolve, reject) => {
    httpServer.once('error', (error) => reject(new IoswarmError(CODES.SERVER, `cannot listen on port ${port}: ${error.message}`, { cause: error })))
    httpServer.listen(port, host, () => resolve(undefined))
  })
  return /** @type {import('node:net').AddressInfo} */ (httpServer.address())
}
