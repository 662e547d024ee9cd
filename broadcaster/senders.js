/**
 * How a broadcast request reaches the app server: POST /broadcast over keep-alive HTTP, or
 * an emit on the reference server's admin namespace (both carry the token; neither logs
 * it), or a publish through @socket.io/redis-emitter for any server on the Redis adapter.
 */
import { io } from 'socket.io-client'
import { wallMs } from '../lib/measure/clock.js'
import { CODES, IoswarmError } from '../lib/errors.js'
import { ADMIN_NAMESPACE, broadcastRoom } from '../lib/protocol.js'
import { emitterSender } from './emitter.js'
import { publishSender } from './publisher.js'
import { renderMessage } from './template.js'

/**
 * @typedef {{ id: string, sentAt: number, recipients: number | null, room?: string, status?: number, error?: string }} SentAnswer
 *   status: the HTTP status of a --publish request; error: why the message failed, when the sender counts it rather than throws
 * @typedef {object} SendRequest the POST /broadcast body of one message
 * @property {string} event
 * @property {number} size
 * @property {number} round
 * @property {number} seq
 * @property {1} count
 * @property {string} [batch]
 * @property {string} [room] to this room
 * @property {number} [rooms] to room-{(seq-1) mod rooms}
 * @property {string[]} [namespace] into each of these namespaces (the server's default: all of its own)
 * @typedef {{ send(body: SendRequest): Promise<SentAnswer[]>, close(): Promise<void> }} Sender
 * @typedef {import('./template.js').MessageTemplate} MessageTemplate
 */

/**
 * @param {{ url: string, token: string, via: 'http' | 'socket' | 'redis-emitter', redisUrl?: string | null, template?: MessageTemplate | null,
 *   publish?: import('./publisher.js').PublishSpec | null }} options
 * @returns {Promise<Sender>}
 */
export async function createSender ({ url, token, via, redisUrl, template, publish }) {
  if (publish) return publishSender(publish, template ?? null)
  if (via === 'redis-emitter') return emitterSender(/** @type {string} */ (redisUrl), template ?? null)
  const sender = via === 'socket' ? await socketSender(url, token) : httpSender(url, token)
  return template ? withTemplate(sender, template) : sender
}

/**
 * Sends the rendered template as the message the server emits as is; {{sentAt}} is the
 * time the request leaves (the server's emit follows by the request's one-way time).
 * @param {Sender} sender
 * @param {MessageTemplate} template
 * @returns {Sender}
 */
function withTemplate (sender, template) {
  return {
    send: (body) => sender.send(/** @type {SendRequest} */ ({ ...body, message: renderMessage(template, { ...body, room: broadcastRoom(body) }, wallMs()) })),
    close: () => sender.close()
  }
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
        const why = cause?.code ?? /** @type {Error} */ (cause)?.message ?? /** @type {Error} */ (error).message
        throw new IoswarmError(CODES.BROADCAST, `POST ${endpoint.href} failed: ${why}`)
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
