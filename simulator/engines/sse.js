/**
 * The `sse` engine (`--protocol sse`): Server-Sent Events subscribers, each a GET whose
 * answer streams events as a browser's EventSource reads them (sse/parse.js), on Node's own
 * HTTP/1.1 client (sse/pool.js). The measured event is the stream's event type (`event:`,
 * default "message"); its data is measured like a broadcast.
 */
import { resolveSseConfig } from './sse/config.js'
import { SsePool } from './sse/pool.js'
import { cookieValue, mergeCookies } from '../sessions/cookie-jar.js'

/** @type {import('./types.js').Engine} */
export const sseEngine = Object.freeze({
  name: 'sse',
  /**
   * Opens a pool of Server-Sent Events subscribers.
   * @param {import('./sse/config.js').SseOptions} options engine options (url: the stream's http:// or https:// URL)
   * @param {import('./types.js').SwarmEvents} events
   * @returns {import('./types.js').EnginePool}
   */
  createPool (options, events) {
    const pool = new SsePool(resolveSseConfig(options), events)
    return {
      connect: (i) => pool.connect(i),
      disconnect: (i) => pool.disconnect(i),
      // A stream only listens: nothing to send on it.
      emit: () => false,
      close: async () => pool.close(),
      // One connection per stream, no agent: reported as a polling agent without keep-alive would be.
      agent: () => ({ keepAlive: false, maxSockets: null }),
      addCookies: (i, cookies) => { if (pool.config.cookieJar) pool.jars[i] = mergeCookies(pool.jars[i] ?? null, cookies) },
      jarOf: (i) => pool.jars[i]?.slice() ?? null,
      cookieOf: (i, name) => cookieValue(pool.jars[i] ?? null, name)
    }
  }
})
