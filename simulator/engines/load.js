/**
 * Engines by name, each loaded when a swarm asks for it: a lean simulator never loads
 * socket.io-client, nor a sio one the lean engine (a process loads only what it uses). index.js holds
 * the same engines loaded, for code that wants them all at hand.
 */

/** @type {Record<string, () => Promise<import('./types.js').Engine>>} */
const ENGINE_MODULES = {
  sio: async () => (await import('./sio.js')).sioEngine,
  lean: async () => (await import('./lean.js')).leanEngine,
  websocket: async () => (await import('./websocket.js')).websocketEngine,
  sse: async () => (await import('./sse.js')).sseEngine
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
