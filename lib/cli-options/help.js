/**
 * A command's options as yargs declares them and `--help` shows them: in their groups
 * (groups.js), the groups few runs need named in the help's last lines and shown in full by
 * `--help-all` (or `ioswarm help COMMAND --all`); docs/options.md has every option in full.
 */
import { GROUP_NAMES, OPTION_GROUPS } from './groups.js'
import { forCommand } from './rows.js'

/** @typedef {import('./define.js').OptionDef} OptionDef */

/** Where every option is described in full. */
export const OPTIONS_DOC = 'docs/options.md'

/** @type {WeakSet<object>} */
const everyOption = new WeakSet()

/**
 * Makes declareOptions show every option of this parser's command in full (`--help-all`).
 * @param {object} yargs the parser the command's builder will be given
 */
export function showEveryOption (yargs) {
  everyOption.add(yargs)
}

/**
 * Whether a command's --help names a group's options only, rather than showing them in full.
 * @param {string} group
 * @param {string} command
 */
export function namedOnly (group, command) {
  const { namedOn } = /** @type {{ namedOn?: '*' | readonly string[] }} */ (OPTION_GROUPS.find((g) => g.name === group) ?? {})
  return namedOn === '*' || (namedOn?.includes(command) ?? false)
}

/**
 * Declares a command's options on a yargs instance, in their groups.
 * @template {import('yargs').Argv<any>} Y
 * @param {Y} yargs
 * @param {string} command
 * @param {OptionDef[]} rows the command's rows, in table order
 * @param {(full: boolean) => string} [epilog] the command's own last words, brief or (--help-all) in full: before the lines that name the rest
 * @returns {Y}
 */
export function declareRows (yargs, command, rows, epilog) {
  const full = everyOption.has(yargs)
  /** @type {OptionDef[]} */
  const named = []
  for (const o of rows) {
    const brief = !full && namedOnly(forCommand(o.group, command), command)
    if (brief && !o.hidden) named.push(o)
    yargs.option(o.name, declaration(o, command, brief))
  }
  for (const group of GROUP_NAMES) {
    const keys = rows.filter((o) => forCommand(o.group, command) === group).map((o) => o.name)
    if (keys.length > 0) yargs.group(keys, `${group}:`)
  }
  const more = named.length === 0 ? '' : `More options, shown in full by --help-all:\n${namedGroups(named, command)}\n\n`
  const own = epilog ? `${epilog(full)}\n\n` : ''
  return /** @type {Y} */ (yargs.epilog(`${own}${more}Every option of every command, in full: ${OPTIONS_DOC}`))
}

/**
 * The options --help names only, a line per group: `  Advanced: --ws-client, --eio`.
 * @param {OptionDef[]} named
 * @param {string} command
 */
function namedGroups (named, command) {
  return GROUP_NAMES.map((group) => [group, named.filter((o) => forCommand(o.group, command) === group)])
    .filter(([, rows]) => rows.length > 0)
    .map(([group, rows]) => `  ${group}: ${/** @type {OptionDef[]} */ (rows).map((o) => `--${o.name}`).join(', ')}`)
    .join('\n')
}

/**
 * One row's yargs declaration.
 * @param {OptionDef} o
 * @param {string} command
 * @param {boolean} brief named only, in the epilog
 */
function declaration (o, command, brief) {
  const describe = forCommand(o.describe, command)
  // A switch that is off unless given needs no "[default: false]".
  const given = o.default === undefined || (o.type === 'boolean' && o.default === false) ? undefined : [o.default].flat().join(' ')
  const shown = (o.defaultText === undefined ? undefined : forCommand(o.defaultText, command)) ?? given
  return {
    type: o.type,
    ...(o.alias ? { alias: o.alias } : {}),
    ...(o.array ? { array: true } : {}),
    ...(o.hidden || brief ? { hidden: true } : {}),
    ...(o.required?.includes(command) ? { demandOption: true } : {}),
    ...(o.type !== 'boolean' && o.type !== 'number' && !o.array && !o.optionalValue ? { requiresArg: true } : {}),
    ...(shown === undefined ? {} : { defaultDescription: shown }),
    // Choices are checked by parseOptions, with the message every other bad value gets.
    describe: o.choices ? `${describe} [choices: ${o.choices.map((c) => JSON.stringify(c)).join(', ')}]` : describe
  }
}
