/**
 * Control messages over Redis pub/sub (e.g. "stop" from the runner to remote simulators).
 * Pub/sub only carries control: it drops messages for subscribers that are not connected,
 * which is acceptable for a signal and never for data.
 */

/**
 * @typedef {import('ioredis').Redis} Redis
 * @typedef {(message: Record<string, unknown>) => void} ControlHandler
 */

/**
 * Publishes on the given client; subscribes on a second connection opened on first use
 * (a subscribed connection cannot send ordinary commands).
 * @param {Redis} redis
 */
export function createControl (redis) {
  /** @type {Redis | null} */
  let subscriber = null
  /** @type {Map<string, Set<ControlHandler>>} */
  const handlers = new Map()

  /** @param {string} channel @param {string} text */
  const dispatch = (channel, text) => {
    let message
    try {
      message = JSON.parse(text)
    } catch {
      return // not ours: control messages are JSON objects
    }
    if (!message || typeof message !== 'object') return
    for (const handler of handlers.get(channel) ?? []) handler(message)
  }

  return {
    /**
     * @param {string} channel
     * @param {Record<string, unknown>} message
     */
    async publish (channel, message) {
      await redis.publish(channel, JSON.stringify(message))
    },
    /**
     * @param {string} channel
     * @param {ControlHandler} handler
     * @returns {Promise<() => Promise<void>>} unsubscribe
     */
    async subscribe (channel, handler) {
      if (!subscriber) {
        subscriber = redis.duplicate()
        subscriber.on('error', () => {}) // reconnects on its own; errors surface on the main client
        subscriber.on('message', dispatch)
      }
      const sub = subscriber
      let set = handlers.get(channel)
      if (!set) handlers.set(channel, (set = new Set()))
      set.add(handler)
      await sub.subscribe(channel)
      return async () => {
        set.delete(handler)
        if (set.size === 0 && handlers.get(channel) === set) {
          handlers.delete(channel)
          await sub.unsubscribe(channel)
        }
      }
    },
    async close () {
      handlers.clear()
      if (subscriber) await subscriber.quit().catch(() => subscriber?.disconnect())
    }
  }
}
