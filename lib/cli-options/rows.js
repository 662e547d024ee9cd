/**
 * What a table of option rows gives a command: its rows, its values parsed from raw input.
 * index.js applies them to every row of every command; simulator.js to the simulator's rows
 * alone, so a simulator child loads no other command's table (a process loads only what it uses).
 */
import { invalidOption } from '../errors.js'
import { keyOf } from '../values/option-values.js'

/** @typedef {import('./define.js').OptionDef} OptionDef */

/** Commands that start simulators and take every passOn option for them. */
export const STARTS_SIMULATORS = Object.freeze(['run', 'capacity', 'fleet up'])

/**
 * The rows of a command, in table order.
 * @template {OptionDef} Row
 * @param {readonly Row[]} rows
 * @param {string} command
 * @returns {Row[]}
 */
export function rowsOf (rows, command) {
  return rows.filter((o) => o.commands.includes(command) || (o.passOn && STARTS_SIMULATORS.includes(command) && !o.notOn?.includes(command)))
}

/**
 * A row's field as one command shows it: the field itself, or, when it is one per command,
 * the command's (a passOn row on run, capacity or fleet up without its own: simulate's).
 * @template T
 * @param {T | Readonly<Record<string, T>>} value a row's describe, details or group
 * @param {string} command
 * @returns {T}
 */
export function forCommand (value, command) {
  if (typeof value !== 'object' || value === null) return value
  const each = /** @type {Readonly<Record<string, T>>} */ (value)
  return each[command] ?? each.simulate ?? Object.values(each)[0]
}

/**
 * A row's details as one command's reference shows them: those of the describe that command
 * shows (a describe per command has its details by the same keys; a command without a
 * describe of its own shows simulate's, or the first, and so their details).
 * @param {OptionDef} o
 * @param {string} command
 * @returns {string | undefined}
 */
export function detailsFor (o, command) {
  const { describe, details } = o
  if (details === undefined || typeof details === 'string') return details
  if (typeof describe === 'string') return details[command]
  const key = command in describe ? command : 'simulate' in describe ? 'simulate' : Object.keys(describe)[0]
  return details[key]
}

/**
 * A command's options from raw input (CLI argv, a config object, a library caller): each
 * option of the command that is given, or has a default, parsed by its table row. Keys are
 * the option's `to`, else its camelCase name; cross-option checks stay with the command's
 * normaliser.
 * @template {OptionDef} Row
 * @template {string} C
 * @param {readonly Row[]} rows
 * @param {C} command
 * @param {Record<string, unknown>} input
 * @returns {import('./define.js').CommandValues<Row, C>}
 */
export function parseRows (rows, command, input) {
  /** @type {Record<string, any>} */
  const out = {}
  for (const o of rowsOf(rows, command)) {
    const key = keyOf(o.name)
    let value = input[key] ?? input[o.name] ?? o.default
    if (value !== undefined && !o.array && Array.isArray(value)) value = value.at(-1)
    // Several values through one variable (IOSWARM_HEADER, the pm2 ecosystem, a ConfigMap): one per line.
    if (value !== undefined && o.array) {
      value = [value].flat().flatMap((v) => (typeof v === 'string' && v.includes('\n') ? v.split('\n').filter((line) => line !== '') : [v]))
    }
    if (value !== undefined && o.choices && !(o.array ? [value].flat() : [value]).every((v) => o.choices?.includes(String(v)))) {
      throw invalidOption(`--${o.name}`, `must be one of ${o.choices.join(', ')}, got ${JSON.stringify(value)}`)
    }
    out[o.to ?? key] = o.parse ? o.parse(value, `--${o.name}`) : value
  }
  return /** @type {import('./define.js').CommandValues<Row, C>} */ (out)
}
