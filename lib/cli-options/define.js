/**
 * The shape of an options table row, and the types of normalised options derived from the
 * rows: a table declared with defineOptions keeps each row's literal name, key and `parse`,
 * so `OptionValues<row union>` is the type of what parseOptions gives for them, key by key
 * (`parse`'s return type; else the choices, or the yargs type; `[]` for an array; undefined
 * when there is no default). A leaf (it names groups.js' group names, a type only): the tables
 * import it; index.js re-exports OptionDef.
 */

/**
 * @typedef {object} OptionDef
 * @property {string} name the flag without dashes, kebab-case: 'max-payload'
 * @property {string} [alias] one-letter alias
 * @property {'string' | 'boolean' | 'number'} type as yargs reads it (parse does the rest)
 * @property {boolean} [array] may be given several times
 * @property {unknown} [default] used when the option is not given (by the normalisers, not yargs, so that callers can tell "not given")
 * @property {string | Readonly<Record<string, string>>} [defaultText] how --help shows the default when it is not a plain value, or one per command
 * @property {string | Readonly<Record<string, string>>} describe what --help shows: one line of at most 120 characters, or one per command
 * @property {string | Readonly<Record<string, string>>} [details] what docs/options.md adds to describe (npm run docs), or one per command
 * @property {GroupName | Readonly<Record<string, GroupName>>} group where --help and docs/options.md show it (groups.js), or one per command
 * @property {readonly string[]} commands the commands that have it
 * @property {readonly string[]} [required] commands on which it must be given
 * @property {readonly string[]} [choices]
 * @property {boolean} [hidden]
 * @property {boolean} [optionalValue] a string option that may also be given alone (`--dashboard` = a free port): its parse reads '' then
 * @property {boolean} [passOn] a simulator option that run, capacity and fleet up hand to their simulators
 * @property {readonly string[]} [notOn] commands that start simulators but do not take this passOn option (capacity sets the clients itself)
 * @property {boolean} [secret] never on a command line (passwords): children get it by environment
 * @property {(value: any, flag: string) => unknown} [parse] the value (default applied; undefined if none) → its normalised form
 * @property {string} [to] the key of the normalised value, when not the flag's camelCase (`ramp` → `rampMs`: units in names)
 */

/** @typedef {import('./groups.js').GroupName} GroupName */

/**
 * A table of option rows, typed as written (names, keys and parse functions kept literal).
 * @template {readonly OptionDef[]} const T
 * @param {T} rows
 * @returns {T}
 */
export function defineOptions (rows) {
  return rows
}

/**
 * A flag's camelCase key: 'max-open-messages' → 'maxOpenMessages' (keyOf, at the type level).
 * @template {string} S
 * @typedef {S extends `${infer H}-${infer T}` ? `${H}${Capitalize<Camel<T>>}` : S} Camel
 */

/**
 * The key of a row's normalised value: its `to`, else its camelCase name.
 * @template {OptionDef} R
 * @typedef {R extends { to: infer K extends string } ? K : Camel<R['name']>} KeyOf
 */

/**
 * A row's value before `parse`: a choice, or the yargs type; several for an array.
 * @template {OptionDef} R
 * @typedef {(R extends { choices: readonly (infer C)[] } ? C : R extends { type: 'boolean' } ? boolean : R extends { type: 'number' } ? number : string) extends infer V
 *   ? (R extends { array: true } ? V[] : V) | (R extends { default: any } ? never : undefined) : never} RawValueOf
 */

/**
 * A row's normalised value: what its `parse` returns, else its raw value.
 * @template {OptionDef} R
 * @typedef {R extends { parse: (...args: any[]) => infer P } ? P : RawValueOf<R>} ValueOf
 */

/**
 * The normalised values of a union of rows, by key: what parseOptions gives for them.
 * @template {OptionDef} Rows
 * @typedef {{ [R in Rows as KeyOf<R>]: ValueOf<R> }} OptionValues
 */

/**
 * A command's rows among Row: those that name it, and on a command that starts simulators
 * (run, capacity, fleet up) the passOn rows its `notOn` does not exclude (optionsOf, at the
 * type level).
 * @template {OptionDef} Row
 * @template {string} C
 * @typedef {Row extends any
 *   ? (C extends Row['commands'][number] ? Row
 *     : Row extends { passOn: true } ? (C extends 'run' | 'capacity' | 'fleet up' ? (Row extends { notOn: readonly (infer N)[] } ? (C extends N ? never : Row) : Row) : never)
 *     : never)
 *   : never} RowsOf
 */

/**
 * What parseOptions gives for command C: its rows' values by key (any record when C is not a literal).
 * @template {OptionDef} Row
 * @template {string} C
 * @typedef {string extends C ? Record<string, any> : OptionValues<RowsOf<Row, C>>} CommandValues
 */
