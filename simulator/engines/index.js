/**
 * Engines by name. `sio` is the real socket.io-client (fidelity); `lean` speaks the
 * protocol directly for scale; `websocket` is the plain WebSocket client of
 * `--protocol websocket` and `sse` the Server-Sent Events subscriber of `--protocol sse` (chosen by
 * the protocol, not by --engine). All of them, loaded: a
 * swarm loads only its own through load.js (loadEngine), whose list names the same modules.
 */
import { leanEngine } from './lean.js'
import { sioEngine } from './sio.js'
import { websocketEngine } from './websocket.js'
import { sseEngine } from './sse.js'

/** @type {Record<string, import('./types.js').Engine>} */
export const engines = { sio: sioEngine, lean: leanEngine, websocket: websocketEngine, sse: sseEngine }

export { loadEngine } from './load.js'

/** Names of the Socket.IO engines (--engine), for --help and validation. */
export const ENGINE_NAMES = ['sio', 'lean']
