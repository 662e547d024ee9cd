/**
 * The `websocket` engine (`--protocol websocket`): plain WebSocket clients (RFC 6455) for
 * servers without Socket.IO, on the `ws` library or, opt-in, the lean engine's built-in
 * client. Messages are the frames themselves, measured like broadcasts (decode.js).
 */
import { resolvePlainConfig } from './websocket/config.js'
import { PlainPool } from './websocket/pool.js'
import { cookieValue, mergeCookies } from '../sessions/cookie-jar.js'

/** How long close() waits for polite closes before it resets what is left. */
const CLOSE_WAIT_MS = 1000

/** @type {import('./types.js').Engine} */
export const websocketEngine = Object.freeze({
  name: 'websocket',
  /**
   * Opens a pool of plain WebSocket clients.
   * @param {import('./websocket/config.js').PlainOptions} options engine options (url: the ws:// or wss:// endpoint)
   * @param {import('./types.js').SwarmEvents} events
   * @returns {import('./types.js').EnginePool}
   */
  createPool (options, events) {
    const pool = new PlainPool(resolvePlainConfig(options), events)
    return {
      connect: (i) => pool.connect(i),
      disconnect: (i) => pool.disconnect(i),
      emit: (i, _nsp, _event, args, callback) => pool.send(i, args, callback),
      close: () => closePool(pool),
      // No polling, so no HTTP agent: reported as the lean engine's would be.
      agent: () => ({ keepAlive: options.keepAlive !== false, maxSockets: null }),
      // Each client's jar (--login's cookies go in before its first connect; each upgrade sends them).
      addCookies: (i, cookies) => { if (pool.config.cookieJar) pool.jars[i] = mergeCookies(pool.jars[i] ?? null, cookies) },
      jarOf: (i) => pool.jars[i]?.slice() ?? null,
      cookieOf: (i, name) => cookieValue(pool.jars[i] ?? null, name)
    }
  }
})

/**
 * Closes every client politely, waits (bounded) for the closes, resets what is left.
 * @param {PlainPool} pool
 */
async function closePool (pool) {
  const sockets = []
  for (const c of pool.clients) {
    if (c === undefined) continue
    if (c.ws !== null) sockets.push(c.ws)
    pool.disconnect(c.i)
  }
  pool.sweeper.stop()
  if (pool.handles > 0) {
    /** @type {NodeJS.Timeout | undefined} */
    let timer
    await new Promise((resolve) => {
      pool.onIdle = () => resolve(undefined)
      timer = setTimeout(resolve, CLOSE_WAIT_MS)
    })
    clearTimeout(timer)
    pool.onIdle = null
  }
  for (const ws of sockets) ws.shut(false)
}
