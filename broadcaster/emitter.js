/**
 * `--via redis-emitter`: broadcasts straight into Redis with @socket.io/redis-emitter, for
 * any server on @socket.io/redis-adapter (the user's own included): no endpoint, no token.
 * The emitter does not wait for Redis; a thin client in front of ioredis does, so a failed
 * publish is an error here and PUBLISH's answer (how many server processes are subscribed)
 * catches a wrong Redis, adapter key or namespace at the first message. Each message goes
 * into each namespace asked for (default /), to its room when it has one
 * (`emitter.of(nsp).to(room)`).
 */
import { Emitter } from '@socket.io/redis-emitter'
import { wallMs } from '../lib/measure/clock.js'
import { CODES, IoswarmError } from '../lib/errors.js'
import { broadcastMessage, broadcastRoom, makePayload } from '../lib/protocol.js'
// The collector's connect: fail fast on a wrong URL, passwords redacted in every error.
import { connectRedis, redactUrl } from '../lib/redis.js'
import { renderMessage } from './template.js'

/** The Redis adapter's default channel prefix (its `key` option). */
const ADAPTER_KEY = 'socket.io'

/**
 * @param {string} redisUrl
 * @param {import('./template.js').MessageTemplate | null} template
 * @returns {Promise<import('./senders.js').Sender>}
 */
export async function emitterSender (redisUrl, template) {
  const redis = await connectRedis(redisUrl)
  /** @type {Promise<number>[]} */
  let published = []
  /** @param {string} channel @param {Buffer} message */
  const publish = (channel, message) => { published.push(redis.publish(channel, message)) }
  const emitter = new Emitter({ publish }, { key: ADAPTER_KEY })
  return {
    async send (body) {
      const id = `${body.round}.${body.seq}`
      const room = broadcastRoom(body)
      const sentAt = wallMs()
      const message = template
        ? renderMessage(template, { ...body, room }, sentAt)
        : broadcastMessage({ id, batch: body.batch, round: body.round, seq: body.seq, sentAt, room, payload: makePayload(body.size) })
      const namespaces = body.namespace ?? ['/']
      published = []
      for (const name of namespaces) {
        const nsp = emitter.of(name)
        ;(room === null ? nsp : nsp.to(room)).emit(body.event, message)
      }
      let subscribers
      try {
        subscribers = await Promise.all(published)
      } catch (error) {
        throw new IoswarmError(CODES.BROADCAST, `PUBLISH to Redis at ${redactUrl(redisUrl)} failed: ${/** @type {Error} */ (error).message}`)
      }
      const unheard = namespaces.filter((_, i) => subscribers[i] === 0)
      if (unheard.length > 0) {
        const channels = unheard.map((name) => `${ADAPTER_KEY}#${name}#`).join(', ')
        const namespaceQuestion = unheard.some((name) => name !== '/') ? ', and does it serve that namespace' : ''
        throw new IoswarmError(CODES.BROADCAST, `no server is subscribed to the Redis adapter channel ${channels} at ${redactUrl(redisUrl)}: ` +
          `is the server on @socket.io/redis-adapter, with this Redis and the default key${namespaceQuestion}?`)
      }
      // How many clients got it is the servers' business: the emitter cannot know.
      return [{ id, sentAt, recipients: null, ...(room === null ? {} : { room }) }]
    },
    async close () {
      await redis.quit().catch(() => redis.disconnect())
    }
  }
}
