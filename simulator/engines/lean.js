/**
 * The lean engine: Engine.IO v4 + Socket.IO v5 spoken directly (a built-in WebSocket client,
 * or `ws`, and Node http over one shared keep-alive agent), for swarms larger than
 * socket.io-client can hold in one process. The server sees the same wire behaviour as from
 * socket.io-client (the `sio` engine).
 */
import { createLeanPool } from './lean/pool.js'

/** @typedef {import('./lean/config.js').LeanOptions} LeanOptions */

/** @type {import('./types.js').Engine} */
export const leanEngine = Object.freeze({
  name: 'lean',
  /**
   * Opens a pool of lean clients.
   * @param {LeanOptions} options engine options, plus: wsClient ('builtin' | 'ws'), perMessageDeflate,
   *   connectTimeoutMs, heartbeatTickMs, and socket.io-client's reconnection delays
   *   (reconnectionDelayMs, reconnectionDelayMaxMs, randomizationFactor)
   * @param {import('./types.js').SwarmEvents} events
   * @returns {import('./types.js').EnginePool}
   */
  createPool (options, events) {
    return createLeanPool(options, events)
  }
})
