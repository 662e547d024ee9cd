/**
 * Every option of every command, defined once: name, alias, type, default, help, the
 * commands that have it, and how its value is parsed. The yargs declarations, `--config`
 * files and `IOSWARM_*` variables (through yargs), the normalisers' defaults, what `run` and
 * `fleet up` pass on to their simulators, the pm2 ecosystem's environment and the Kubernetes
 * ConfigMap (scripts/gen-infra.js) are all derived from these tables.
 *
 * A command name is the words after `ioswarm`: 'simulate', 'run', 'fleet up', ….
 * An option with `passOn: true` is a simulator option that `run` and `fleet up` also accept
 * and hand, unchanged, to every simulator they start: adding one is one table row.
 */
import { BROADCAST_OPTIONS } from './tables/broadcast.js'
import { CAPACITY_OPTIONS } from './tables/capacity.js'
import { FLEET_OPTIONS } from './tables/fleet.js'
import { LOGIN_OPTIONS } from './tables/login.js'
import { REPORT_OPTIONS } from './tables/report.js'
import { STARTS_SIMULATORS, forCommand, parseRows, rowsOf } from './rows.js'
import { OPTIONS_DOC, declareRows, showEveryOption } from './help.js'
import { GROUP_NAMES, OPTION_GROUPS } from './groups.js'
import { RECORD_OPTIONS } from './tables/record.js'
import { RUN_OPTIONS } from './tables/run.js'
import { SCENARIO_OPTIONS } from './tables/scenario.js'
import { SERVE_OPTIONS } from './tables/serve.js'
import { SIMULATE_OPTIONS } from './tables/simulate.js'
import { passOnOptions } from './simulator-rows.js'
import { keyOf } from '../values/option-values.js'
import { WEBSOCKET_OPTIONS } from './tables/websocket.js'

/** @typedef {import('./define.js').OptionDef} OptionDef */
/**
 * Every row, typed as written in its table.
 * @typedef {typeof SIMULATE_OPTIONS[number] | typeof SCENARIO_OPTIONS[number] | typeof WEBSOCKET_OPTIONS[number] | typeof LOGIN_OPTIONS[number] | typeof RUN_OPTIONS[number]
 *   | typeof CAPACITY_OPTIONS[number] | typeof SERVE_OPTIONS[number] | typeof BROADCAST_OPTIONS[number] | typeof REPORT_OPTIONS[number]
 *   | typeof FLEET_OPTIONS[number] | typeof RECORD_OPTIONS[number]} AnyRow
 */

/** @type {OptionDef[]} */
export const OPTIONS = [
  ...SIMULATE_OPTIONS, ...SCENARIO_OPTIONS, ...WEBSOCKET_OPTIONS, ...LOGIN_OPTIONS, ...RUN_OPTIONS, ...CAPACITY_OPTIONS,
  ...SERVE_OPTIONS, ...BROADCAST_OPTIONS, ...REPORT_OPTIONS, ...FLEET_OPTIONS, ...RECORD_OPTIONS
]

export { GROUP_NAMES, OPTION_GROUPS, OPTIONS_DOC, STARTS_SIMULATORS, forCommand, keyOf, passOnOptions, showEveryOption }

/**
 * The options of a command, in table order.
 * @param {string} command
 * @returns {OptionDef[]}
 */
export function optionsOf (command) {
  return rowsOf(OPTIONS, command)
}

/**
 * The environment variable of an option: IOSWARM_MAX_PAYLOAD.
 * @param {OptionDef | string} option
 */
export function envNameOf (option) {
  const name = typeof option === 'string' ? option : option.name
  return `IOSWARM_${name.toUpperCase().replace(/-/g, '_')}`
}

/**
 * Declares a command's options on a yargs instance, in their groups (help.js).
 * @template {import('yargs').Argv<any>} Y
 * @param {Y} yargs
 * @param {string} command
 * @param {(full: boolean) => string} [epilog] the command's own last words in its --help, brief or (--help-all) in full
 * @returns {Y}
 */
export function declareOptions (yargs, command, epilog) {
  return declareRows(yargs, command, optionsOf(command), epilog)
}

/**
 * A command's options from raw input (CLI argv, a config object, a library caller): each
 * option of the command that is given, or has a default, parsed by its table row. Keys are
 * the option's `to`, else its camelCase name; cross-option checks stay with the command's
 * normaliser.
 * @template {string} C
 * @param {C} command
 * @param {Record<string, unknown>} input
 * @returns {import('./define.js').CommandValues<AnyRow, C>}
 */
export function parseOptions (command, input) {
  return parseRows(/** @type {AnyRow[]} */ (OPTIONS), command, input)
}

/**
 * The given (not defaulted) values of the passOn options in raw input: what a runner or a
 * fleet hands to its simulators, before the simulator's own normaliser checks them.
 * @param {Record<string, unknown>} input
 * @returns {Record<string, unknown>}
 */
export function pickPassOn (input) {
  /** @type {Record<string, unknown>} */
  const out = {}
  for (const o of passOnOptions()) {
    const value = input[keyOf(o.name)] ?? input[o.name]
    if (value !== undefined) out[keyOf(o.name)] = value
  }
  return out
}

/**
 * The simulator options a `fleet up` hands to each host's simulators, by environment
 * variable (the pm2 ecosystem passes IOSWARM_<OPTION> variables of `simulate` through): every
 * option of `simulate` that `fleet up` also has.
 */
export function fleetSimulatorOptions () {
  const fleet = new Set(optionsOf('fleet up'))
  return optionsOf('simulate').filter((o) => fleet.has(o))
}

/**
 * The IOSWARM_* variables of an environment that are options of a command (what the pm2
 * entry keeps: the CLI reads each as its flag, and other IOSWARM_* settings are not flags).
 * @param {string} command
 * @param {NodeJS.ProcessEnv} env
 * @returns {string[]} the names to drop
 */
export function foreignEnvNames (command, env) {
  const own = new Set(optionsOf(command).map(envNameOf))
  return Object.keys(env).filter((name) => name.startsWith('IOSWARM_') && !own.has(name))
}
