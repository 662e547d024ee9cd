/**
 * `--publish-sign pusher:KEY:SECRET`: Pusher's HTTP API (and the servers compatible with it:
 * soketi, Laravel Reverb, …) authenticates each request by query parameters: the key, a
 * timestamp, the body's MD5 and an HMAC-SHA256 with the secret over the method, the path and
 * those parameters sorted by name (pusher.com/docs/channels/library_auth_reference/rest-api).
 */
import { createHash, createHmac } from 'node:crypto'
import { invalidOption } from '../lib/errors.js'

/**
 * @param {string} text `pusher:KEY:SECRET`
 * @returns {(method: string, url: URL, body: string) => URL} the signed URL of one request
 */
export function pusherSigner (text) {
  const match = /^pusher:([^:]+):(.+)$/.exec(String(text))
  const masked = String(text).replace(/:[^:]*$/, ':…')
  if (!match) throw invalidOption('--publish-sign', `must be pusher:KEY:SECRET (Pusher's HTTP API signature), got ${JSON.stringify(masked)}`)
  const [, key, secret] = match
  return (method, url, body) => {
    const signed = new URL(url)
    signed.searchParams.set('auth_key', key)
    signed.searchParams.set('auth_timestamp', String(Math.floor(Date.now() / 1000)))
    signed.searchParams.set('auth_version', '1.0')
    signed.searchParams.set('body_md5', createHash('md5').update(body).digest('hex'))
    signed.searchParams.delete('auth_signature')
    const query = [...signed.searchParams].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, v]) => `${k}=${v}`).join('&')
    signed.searchParams.set('auth_signature', createHmac('sha256', secret).update(`${method}\n${signed.pathname}\n${query}`).digest('hex'))
    return signed
  }
}
