/**
 * ioswarm as a library: every command's engine, callable from code. The functions never
 * print or exit; they return JSON-serialisable results and throw IoswarmError (with a stable
 * `code`, and `exitCode` for a CLI) on bad options. See docs/library.md.
 *
 *   import { startServer, runSwarm, runBroadcast } from 'ioswarm'
 */

/** Open a swarm of clients in this process and measure every broadcast they receive. */
export {
  runSwarm, startSwarm, runWorkers, normalizeSimOptions, probeHandshake, inspectServer, ENGINE_NAMES, PARSER_NAMES, WS_CLIENT_NAMES
} from './simulator/index.js'
/** A whole test: reference server (or a target), simulator processes, rounds, results. */
export { runTest } from './runner/index.js'
/** Steer a running run, capacity search or swarm (hooks.steering): stop, clients, emit rate, stop after a step. */
export { createSteering } from './lib/steering.js'
/** The capacity search: how many clients the server holds at a service level (`ioswarm capacity`). */
export { runCapacity } from './runner/capacity/index.js'
/** Fire rounds of broadcasts through an app server. */
export { runBroadcast, DEFAULT_ROUNDS } from './broadcaster/index.js'
/** The reference server under test. */
export { startServer } from './server/index.js'
/** Sample your own socket.io server into a run's collector (also `ioswarm/probe`). */
export { attachProbe } from './server/probe/index.js'
/** Results: the collector, merging across simulators, reports, thresholds. */
export {
  createCollector, buildDistribution, mergeMessageReports, mergeSimResults, mergeDeliveries,
  buildReport, buildCompareReport, buildCapacityReport, messagesCsv, samplesCsv, reasonsCsv, capacityStepsCsv,
  parseThreshold, evaluateThresholds, formatRunSummary
} from './results/index.js'
/**
 * The arguments a --scenario module's hooks get (docs/real-apps.md, "Scenarios").
 * @typedef {import('./simulator/traffic/scenario-hooks.js').ScenarioHooks} ScenarioHooks
 * @typedef {import('./simulator/traffic/scenario-hooks.js').HookSocket} HookSocket
 * @typedef {import('./simulator/traffic/scenario-hooks.js').HookContext} HookContext
 */
/** Errors with stable codes, and the exit codes the CLI maps them to. */
export { IoswarmError, CODES, EXIT } from './lib/errors.js'
/** The version of this package. */
export { VERSION } from './lib/version.js'
