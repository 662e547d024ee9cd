/**
 * The public entry of simulator/: run a swarm (in this process, or in simulator children),
 * normalise its options, split it into processes, inspect a server before a swarm.
 */
export { runSwarm, startSwarm } from './swarm/swarm.js'
export { runLinkedSwarm } from './processes/linked.js'
export { forkSimulator } from './processes/spawn.js'
export { runWorkers } from './processes/workers.js'
export { normalizeSimOptions, parseWsClient } from './sim-options.js'
export { probeHandshake } from './inspection/handshake.js'
export { ENGINE_NAMES } from '../lib/cli-options/tables/simulate.js'
export { PARSER_NAMES, WS_CLIENT_NAMES, DEFAULT_MAX_PAYLOAD_BYTES, MIN_PAYLOAD_LIMIT_BYTES, MAX_PAYLOAD_LIMIT_BYTES } from '../lib/values/option-values.js'
export { checkPreflight, FD_MARGIN, KIB_PER_CLIENT, pollingShareOf, upgradeShareOf } from './inspection/preflight.js'
export { partitionSwarm, partOfSwarm, pickEmitters, shareOf } from './processes/partition.js'
export { inspectServer } from './inspection/inspect.js'
export { labelPhases, mergePhases, rampCutWarning } from './phase-options.js'
export { holdLines } from './swarm/ramp-guard.js'
export { createSteering, formatActionLine, STEERING_ACTIONS } from '../lib/steering.js'
export { decodeEvent, fillPlaceholders, parseSioHeader, splitPayloadV3 } from './engines/lean/codec.js'
