/**
 * The lean engine: Engine.IO v4 + Socket.IO v5 spoken directly over `ws` and one shared
 * keep-alive HTTP agent, for swarms larger than socket.io-client can hold in one process.
 * The server sees the same wire behaviour as from socket.io-client (the `sio` engine).
 */
import { resolveLeanConfig } from './lean/config.js'
import { LeanSession } from './lean/session.js'

/** @typedef {import('./lean/config.js').LeanOptions} LeanOptions */

/** @type {import('./types.js').Engine} */
export const leanEngine = Object.freeze({
  name: 'lean',
  /**
   * Opens a pool of lean clients.
   * @param {LeanOptions} options engine options, plus perMessageDeflate, maxPayloadBytes, connectTimeoutMs and
   *   socket.io-client's reconnection delays (reconnectionDelayMs, reconnectionDelayMaxMs, randomizationFactor)
   * @param {import('./types.js').SwarmEvents} events
   * @returns {import('./types.js').EnginePool}
   */
  createPool (options, events) {
    const session = new LeanSession(resolveLeanConfig(options), events)
    return {
      connect: (i, transport) => session.connect(i, transport),
      disconnect: (i) => session.disconnect(i),
      close: () => session.close(),
      agent: () => session.agentInfo()
    }
  }
})
