/**
 * The broadcast token check: constant-time, and never echoed anywhere.
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
 * The token of a request: `Authorization: Bearer <token>`, or the `x-ioswarm-token` header.
 * @param {import('node:http').IncomingMessage} req
 */
export function bearerToken (req) {
  const auth = req.headers.authorization
  if (typeof auth === 'string' && auth.startsWith('Bearer ')) return auth.slice(7).trim()
  const header = req.headers['x-ioswarm-token']
  return typeof header === 'string' ? header : undefined
}
