/**
 * The public entry of simulator/: run a swarm (in this process, or in simulator children),
 * normalise its options, split it into processes, inspect a server before a swarm.
 */
export { runSwarm, startSwarm } from './swarm.js'
export { runLinkedSwarm } from './linked.js'
export { forkSimulator } from './spawn.js'
export { runWorkers } from './workers.js'
export { normalizeSimOptions, parseWsClient } from './options.js'
export { probeHandshake } from './handshake.js'
export { ENGINE_NAMES } from '../lib/cli-options/simulate.js'
export { PARSER_NAMES, WS_CLIENT_NAMES, DEFAULT_MAX_PAYLOAD_BYTES, MIN_PAYLOAD_LIMIT_BYTES, MAX_PAYLOAD_LIMIT_BYTES } from '../lib/cli-options/values.js'
export { checkPreflight, FD_MARGIN, KIB_PER_CLIENT, pollingShareOf, upgradeShareOf } from './preflight.js'
export { partitionSwarm, partOfSwarm, pickEmitters, shareOf } from './partition.js'
export { inspectServer, firstIdentity } from './inspect.js'
export { labelPhases, mergePhases } from './phases.js'
