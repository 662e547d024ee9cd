/**
 * Engines by name. `sio` is the real socket.io-client (fidelity); `lean` speaks the
 * protocol directly for scale.
 */
import { leanEngine } from './lean.js'
import { sioEngine } from './sio.js'

/** @type {Record<string, import('./types.js').Engine>} */
export const engines = { sio: sioEngine, lean: leanEngine }

/** Names of the available engines, for --help and validation. */
export const ENGINE_NAMES = Object.keys(engines)
