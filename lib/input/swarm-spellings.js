/**
 * The spellings of a swarm's size and length where --clients and --duration changed meaning
 * (run and fleet up read --clients per simulator, run's --duration was the hold after the
 * ramp): which one was given, and the refusal that shows both readings of a bare one. Until
 * the next minor version, run and fleet up refuse a bare flag wherever the two readings differ.
 */
import { invalidOption } from '../errors.js'

/** @typedef {readonly (readonly [string, string, string])[]} Spellings [key, name, flag] */

/** A swarm's clients: the whole swarm (bare, or never refused), or each simulator's. */
export const CLIENT_SPELLINGS = /** @type {const} */ ([
  ['clients', 'clients', '--clients'],
  ['totalClients', 'total-clients', '--total-clients'],
  ['clientsPerSimulator', 'clients-per-simulator', '--clients-per-simulator']
])
/** A run's length without rounds: the whole run (bare, or never refused), or the hold after the ramp. */
export const LENGTH_SPELLINGS = /** @type {const} */ ([
  ['duration', 'duration', '--duration'], ['totalDuration', 'total-duration', '--total-duration'], ['hold', 'hold', '--hold']
])

/**
 * Which one of a group of spellings was given (two are refused).
 * @param {Record<string, any>} input raw values (camelCase keys, or flag names from a config file)
 * @param {Spellings} spellings
 * @param {string} what what each of them says
 * @returns {string | null} the flag given
 */
export function spellingOf (input, spellings, what) {
  const given = spellings.filter(([key, name]) => (input[key] ?? input[name]) !== undefined && (input[key] ?? input[name]) !== null).map(([, , flag]) => flag)
  if (given.length > 1) throw invalidOption(given[1], `cannot go with ${given[0]}: both say ${what}; give one`)
  return given[0] ?? null
}

/** @param {number} n */
const count = (n) => n.toLocaleString('en-US')

/**
 * A bare --clients where the simulators are several: both readings, with numbers, and the
 * spelling that asks for each.
 * @param {number} clients
 * @param {number} simulators
 * @param {string} [layout] how the simulators are given: '--simulators 4', '2 hosts × --simulators 2'
 */
export function twoClientReadings (clients, simulators, layout = `--simulators ${simulators}`) {
  const low = Math.floor(clients / simulators)
  const each = clients % simulators === 0 ? count(low) : `${count(low)}-${count(low + 1)}`
  return invalidOption('--clients', `${clients} with ${layout} has two readings: ` +
    `${simulators} simulators × ${count(clients)} = ${count(simulators * clients)} clients (the old reading: --clients-per-simulator ${clients}), ` +
    `or ${count(clients)} clients in all, ${each} per simulator (the new one: --total-clients ${clients}). ` +
    '--clients now means the whole swarm, as in simulate --workers and capacity; until the next minor version a bare --clients ' +
    'with more than one simulator is refused here: give one of the two spellings')
}
