/**
 * Engines by name. `sio` is the real socket.io-client (fidelity); `lean` speaks the
 * protocol directly for scale; `websocket` is the plain WebSocket client of
 * `--protocol websocket` (chosen by the protocol, not by --engine). Each is loaded when a
 * swarm asks for it: a lean simulator never loads socket.io-client (issue 26: a light process).
 */

/** @type {Record<string, () => Promise<import('./types.js').Engine>>} */
const ENGINE_MODULES = {
  sio: async () => (await import('./sio.js')).sioEngine,
  lean: async () => (await import('./lean.js')).leanEngine,
  websocket: async () => (await import('./websocket.js')).websocketEngine
}

/**
 * The engine of this name, loaded on first use.
 * @param {string} name
 * @returns {Promise<import('./types.js').Engine>}
 */
export async function loadEngine (name) {
  const load = ENGINE_MODULES[name]
  if (!load) throw new Error(`no engine named ${JSON.stringify(name)} (engines: ${Object.keys(ENGINE_MODULES).join(', ')})`)
  return load()
}

/** Names of the Socket.IO engines (--engine), for --help and validation. */
export const ENGINE_NAMES = ['sio', 'lean']
