/**
 * Token checks (the broadcast token, `--auth-token`): constant-time, and never echoed anywhere.
 */
import { createHash, timingSafeEqual } from 'node:crypto'

/**
 * Compares a presented token to the expected one in constant time (hashing both first so
 * lengths do not leak either).
 * @param {string} expected
 * @param {unknown} presented
 */
export function tokenMatches (expected, presented) {
  if (typeof presented !== 'string' || presented.length === 0) return false
  const a = createHash('sha256').update(expected).digest()
  const b = createHash('sha256').update(presented).digest()
  return timingSafeEqual(a, b)
}

/**
 * The token of an `Authorization: Bearer <token>` header value; undefined for anything else.
 * @param {unknown} header
 */
function bearerOf (header) {
  return typeof header === 'string' && header.startsWith('Bearer ') ? header.slice(7).trim() : undefined
}

/**
 * The token of a request: `Authorization: Bearer <token>`, or the `x-ioswarm-token` header.
 * @param {import('node:http').IncomingMessage} req
 */
export function bearerToken (req) {
  const bearer = bearerOf(req.headers.authorization)
  if (bearer !== undefined) return bearer
  const header = req.headers['x-ioswarm-token']
  return typeof header === 'string' ? header : undefined
}

/**
 * Whether a Socket.IO handshake carries `token` in one of the places apps put it: the
 * CONNECT packet's `auth.token`, the query parameter `token`, or `Authorization: Bearer`.
 * @param {string} token
 * @param {{ auth?: any, query?: any, headers?: Record<string, unknown> }} handshake
 */
export function handshakeCarries (token, handshake) {
  return tokenMatches(token, handshake.auth?.token) ||
    tokenMatches(token, handshake.query?.token) ||
    tokenMatches(token, bearerOf(handshake.headers?.authorization))
}
