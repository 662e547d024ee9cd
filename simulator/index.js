/**
 * The public entry of simulator/: run a swarm, read a server's handshake.
 */
export { runSwarm } from './swarm.js'
export { probeHandshake } from './handshake.js'
export { ENGINE_NAMES } from './engines/index.js'
export { DEFAULT_MAX_PAYLOAD_BYTES, MIN_PAYLOAD_LIMIT_BYTES, MAX_PAYLOAD_LIMIT_BYTES } from './engines/limits.js'
export { WS_CLIENT_NAMES, parseWsClient } from './options.js'
