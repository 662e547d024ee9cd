/**
 * The rows a simulator reads (`simulate`'s own, its scenario, WebSocket and login flags, and
 * the collector, live-metrics and output flags it shares with other commands), without the
 * tables of the commands a simulator child never runs (run, capacity, serve, broadcast,
 * report, fleet: a process loads only what it uses). The same row objects as index.js's OPTIONS, in
 * the same order: test/lib/cli-options/simulator.test.js holds the two to the same rows.
 */
import { LOGIN_OPTIONS } from './tables/login.js'
import { parseRows } from './rows.js'
import { SCENARIO_OPTIONS } from './tables/scenario.js'
import { COLLECTOR_OPTIONS, DASHBOARD_OPTIONS, METRICS_OPTIONS, OTLP_OPTIONS, OUTPUT_OPTIONS } from './tables/shared.js'
import { SIMULATE_OPTIONS } from './tables/simulate.js'
import { WEBSOCKET_OPTIONS } from './tables/websocket.js'

export { keyOf } from '../values/option-values.js'

/** Every row that names `simulate` or is passed on to simulators, in the full table's order. */
export const SIMULATOR_OPTIONS = [
  ...SIMULATE_OPTIONS, ...SCENARIO_OPTIONS, ...WEBSOCKET_OPTIONS, ...LOGIN_OPTIONS,
  ...COLLECTOR_OPTIONS, ...METRICS_OPTIONS, ...DASHBOARD_OPTIONS, ...OTLP_OPTIONS, ...OUTPUT_OPTIONS
]

/**
 * `simulate`'s options from raw input: parseOptions('simulate', input) of index.js.
 * @param {Record<string, unknown>} input
 */
export function parseSimulateOptions (input) {
  return parseRows(SIMULATOR_OPTIONS, 'simulate', input)
}

/** The simulator options that run and fleet up pass on (passOnOptions of index.js). */
export function passOnOptions () {
  return /** @type {readonly import('./define.js').OptionDef[]} */ (SIMULATOR_OPTIONS).filter((o) => o.passOn)
}
