/**
 * How a broadcast request reaches the app server: POST /broadcast over keep-alive HTTP, or
 * an emit on the reference server's admin namespace. Both carry the token; neither logs it.
 */
import { io } from 'socket.io-client'
import { CODES, IoswarmError } from '../lib/errors.js'
import { ADMIN_NAMESPACE } from '../lib/protocol.js'

/**
 * @typedef {{ id: string, sentAt: number, recipients: number }} SentAnswer
 * @typedef {{ send(body: Record<string, unknown>): Promise<SentAnswer[]>, close(): Promise<void> }} Sender
 */

/**
 * @param {{ url: string, token: string, via: 'http' | 'socket' }} options
 * @returns {Promise<Sender>}
 */
export async function createSender ({ url, token, via }) {
  return via === 'socket' ? socketSender(url, token) : httpSender(url, token)
}

/**
 * @param {string} url
 * @param {string} token
 * @returns {Sender}
 */
function httpSender (url, token) {
  const endpoint = new URL('/broadcast', url)
  return {
    async send (body) {
      let response
      try {
        response = await fetch(endpoint, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
          body: JSON.stringify(body),
          signal: AbortSignal.timeout(30000)
        })
      } catch (error) {
        const cause = /** @type {{ cause?: { code?: string } }} */ (error).cause
        throw new IoswarmError(CODES.BROADCAST, `POST ${endpoint.href} failed: ${cause?.code ?? /** @type {Error} */ (cause)?.message ?? /** @type {Error} */ (error).message}`)
      }
      const text = await response.text()
      if (response.status === 401) throw new IoswarmError(CODES.BROADCAST, `the server refused the token (HTTP 401 from ${endpoint.href})`)
      if (!response.ok) throw new IoswarmError(CODES.BROADCAST, `POST ${endpoint.href} answered HTTP ${response.status}: ${text.slice(0, 200)}`)
      return JSON.parse(text).messages
    },
    async close () {}
  }
}

/**
 * @param {string} url
 * @param {string} token
 * @returns {Promise<Sender>}
 */
async function socketSender (url, token) {
  const socket = io(new URL(ADMIN_NAMESPACE, url).href, { auth: { token }, transports: ['websocket'], forceNew: true, reconnectionAttempts: 5 })
  await new Promise((resolve, reject) => {
    socket.once('connect', () => resolve(undefined))
    socket.once('connect_error', (error) => {
      socket.close()
      reject(new IoswarmError(CODES.BROADCAST, /unauthorized/.test(error.message)
        ? `the server refused the token (admin namespace ${ADMIN_NAMESPACE})`
        : `cannot connect to ${url}${ADMIN_NAMESPACE}: ${error.message}`))
    })
  })
  return {
    async send (body) {
      const reply = await socket.timeout(30000).emitWithAck('broadcast', body)
      if (!reply?.ok) throw new IoswarmError(CODES.BROADCAST, `broadcast refused: ${reply?.error ?? 'no answer'}`)
      return reply.messages
    },
    async close () {
      socket.close()
    }
  }
}
