/**
 * `--via redis-emitter`: broadcasts straight into Redis with @socket.io/redis-emitter, for
 * any server on @socket.io/redis-adapter (the user's own included): no endpoint, no token.
 * The emitter does not wait for Redis; a thin client in front of ioredis does, so a failed
 * publish is an error here and PUBLISH's answer (how many server processes are subscribed)
 * catches a wrong Redis or adapter key at the first message.
 */
import { Emitter } from '@socket.io/redis-emitter'
import { wallMs } from '../lib/clock.js'
import { CODES, IoswarmError } from '../lib/errors.js'
import { makePayload } from '../lib/protocol.js'
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
  /** @type {Promise<number> | undefined} */
  let published
  const emitter = new Emitter({ publish: (/** @type {string} */ channel, /** @type {Buffer} */ message) => { published = redis.publish(channel, message) } }, { key: ADAPTER_KEY })
  return {
    async send (body) {
      const id = `${body.round}.${body.seq}`
      const sentAt = wallMs()
      const message = template ? renderMessage(template, body, sentAt) : { id, ...(body.batch ? { batch: body.batch } : {}), round: body.round, seq: body.seq, sentAt, payload: makePayload(body.size) }
      emitter.emit(body.event, message)
      let subscribers
      try {
        subscribers = await published
      } catch (error) {
        throw new IoswarmError(CODES.BROADCAST, `PUBLISH to Redis at ${redactUrl(redisUrl)} failed: ${/** @type {Error} */ (error).message}`)
      }
      if (subscribers === 0) {
        throw new IoswarmError(CODES.BROADCAST, `no server is subscribed to the Redis adapter channel ${ADAPTER_KEY}#/# at ${redactUrl(redisUrl)}: is the server on @socket.io/redis-adapter, with this Redis and the default key?`)
      }
      // How many clients got it is the servers' business: the emitter cannot know.
      return [{ id, sentAt, recipients: null }]
    },
    async close () {
      await redis.quit().catch(() => redis.disconnect())
    }
  }
}
