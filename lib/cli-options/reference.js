/**
 * docs/options.md, written from the options tables (`npm run docs`): every command's options
 * in their groups, then every option once, with its anchor (`options.md#emit-rate`), aliases,
 * type, default, environment variable, the commands that take it, its one-line describe and
 * its details. A test regenerates it and fails when the file differs, so the reference cannot
 * drift from the table.
 */
import { COMMAND_LINES } from './commands.js'
import { GROUP_NAMES, OPTION_GROUPS } from './groups.js'
import { envNameOf } from './index.js'
import { detailsFor, forCommand, rowsOf } from './rows.js'

/** @typedef {import('./define.js').OptionDef} OptionDef */

/**
 * The commands that take options, in the order of `ioswarm --help` (fleet's own commands where fleet is).
 * @param {readonly OptionDef[]} rows
 */
export function commandsOf (rows) {
  const named = new Set(rows.flatMap((o) => o.commands))
  return Object.keys(COMMAND_LINES).flatMap((c) => [...named].filter((n) => n === c || n.startsWith(`${c} `)))
}

/**
 * Markdown text: `<` would open an HTML tag, `*` emphasis; code spans are left as written.
 * @param {string} text
 * @param {boolean} [cell] in a table, where `|` ends the cell
 */
function md (text, cell = false) {
  return text.split(/(`[^`]*`)/).map((part, i) => {
    if (i % 2 === 1) return cell ? part.replace(/\|/g, '\\|') : part
    const escaped = part.replace(/\\/g, '\\\\').replace(/</g, '&lt;').replace(/\*/g, '\\*')
    return cell ? escaped.replace(/\|/g, '\\|') : escaped
  }).join('')
}

/**
 * The flag and its alias as the reference writes them: `--clients`, `-c`.
 * @param {OptionDef} o
 */
function switches (o) {
  return [`\`--${o.name}\``, ...(o.alias ? [`\`-${o.alias}\``] : [])].join(', ')
}

/**
 * One section per command: its options in their groups, each with the line `--help` shows.
 * @param {readonly OptionDef[]} rows
 * @param {string} command
 */
function commandSection (rows, command) {
  const own = rowsOf(rows, command)
  const lines = [`## ioswarm ${command}`, '']
  for (const group of GROUP_NAMES) {
    const inGroup = own.filter((o) => forCommand(o.group, command) === group)
    if (inGroup.length === 0) continue
    lines.push(`**${group}**`, '', '| Option | |', '| --- | --- |')
    for (const o of inGroup) lines.push(`| [${switches(o)}](#${o.name}) | ${md(forCommand(o.describe, command), true)} |`)
    lines.push('')
  }
  return lines
}

/**
 * A text that may be one per command, as lines: the text, or each command's (commands with the same text together).
 * @param {(command: string) => string | undefined} textOf
 * @param {string[]} commands the commands that take the row
 * @param {(on: string, text: string) => string} [each] how one command's text is written, when they differ: a list item
 */
function perCommandText (textOf, commands, each = (on, text) => `- ${on}: ${text}`) {
  /** @type {Map<string, string[]>} */
  const byText = new Map()
  for (const command of commands) {
    const text = textOf(command)
    if (text !== undefined) byText.set(text, [...(byText.get(text) ?? []), command])
  }
  if (byText.size === 0) return []
  if (byText.size === 1 && [...byText.values()][0].length === commands.length) return [md([...byText.keys()][0]), '']
  return [...[...byText].map(([text, on]) => each(on.map((c) => `\`${c}\``).join(', '), md(text))), '']
}

/**
 * One row of an option in the reference: its facts, then its describe and details.
 * @param {readonly OptionDef[]} rows every row (to know which commands take this one)
 * @param {OptionDef} o
 * @param {readonly string[]} commands every command, in order
 */
function rowEntry (rows, o, commands) {
  const on = commands.filter((c) => rowsOf(rows, c).includes(o))
  const defaults = o.defaultText === undefined ? undefined : [...new Set(on.map((c) => forCommand(o.defaultText ?? '', c)))]
  const given = o.default === undefined ? undefined : [o.default].flat().join(' ')
  const shown = defaults?.length === 1 ? defaults[0] : defaults ? on.map((c) => `${forCommand(o.defaultText ?? '', c)} on \`${c}\``).join('; ') : given
  const facts = [
    `commands: ${on.map((c) => `\`${c}\``).join(', ')}${o.passOn ? ' (run, capacity and fleet up pass it on to their simulators)' : ''}`,
    `type: ${o.type}${o.array ? ', repeatable' : ''}${o.choices ? `, one of ${o.choices.map((c) => `\`${c}\``).join(', ')}` : ''}`,
    ...(shown === undefined ? [] : [`default: ${shown === '' ? '(empty)' : md(shown)}`]),
    ...(o.required ? [`required on: ${o.required.map((c) => `\`${c}\``).join(', ')}`] : []),
    `environment: \`${envNameOf(o.name)}\``
  ]
  return [
    ...facts.map((f) => `- ${f}`), '',
    ...perCommandText((c) => forCommand(o.describe, c), on),
    ...perCommandText((c) => detailsFor(o, c), on, (on, text) => `On ${on}: ${text}\n`)
  ]
}

/**
 * docs/options.md from these rows.
 * @param {readonly OptionDef[]} rows every option row, in table order
 * @param {{ id: string, title: string, text: string }[]} [appendix] sections after the options, each under its anchor, its text as printed by the CLI
 * @returns {string}
 */
export function optionsReference (rows, appendix = []) {
  const commands = commandsOf(rows)
  const lines = [
    '# Options',
    '',
    '<!-- Written by `npm run docs` from lib/cli-options/tables/*.js: edit the tables, then run it. -->',
    '',
    'Every option of every command. `ioswarm COMMAND --help` shows the same lines, grouped; `--help-all` shows the groups it only names. ' +
      'Each option can also be set in a `--config` file (JSON or YAML, the flag\'s name as the key) or by its environment variable, `IOSWARM_` and the name ' +
      'in capitals (`IOSWARM_EMIT_RATE` for `--emit-rate`); a flag on the command line wins.',
    '',
    ...commands.map((c) => `- [ioswarm ${c}](#ioswarm-${c.replace(/ /g, '-')})`),
    '- [Every option, by group](#every-option-by-group)',
    ...appendix.map((a) => `- [${a.title}](#${a.id})`),
    '',
    ...commands.flatMap((c) => commandSection(rows, c)),
    '## Every option, by group',
    ''
  ]
  /** @type {Map<string, OptionDef[]>} */
  const byName = new Map()
  for (const o of rows) byName.set(o.name, [...(byName.get(o.name) ?? []), o])
  for (const { name: group, about } of OPTION_GROUPS) {
    const first = [...byName.values()].filter((same) => firstGroup(same[0]) === group)
    if (first.length === 0) continue
    lines.push(`### ${group} options`, '', `${about[0].toUpperCase()}${about.slice(1)}.`, '')
    for (const same of first) {
      lines.push(`<a id="${same[0].name}"></a>`, '', `#### ${switches(same[0])}`, '')
      if (same.length === 1) lines.push(...rowEntry(rows, same[0], commands))
      else {
        for (const o of same) {
          const on = commands.filter((c) => rowsOf(rows, c).includes(o)).map((c) => `\`${c}\``).join(', ')
          lines.push(`On ${on}:`, '', ...rowEntry(rows, o, commands))
        }
      }
    }
  }
  for (const a of appendix) lines.push(`<a id="${a.id}"></a>`, '', `## ${a.title}`, '', '```text', a.text, '```', '')
  return `${lines.join('\n').replace(/\n{3,}/g, '\n\n').trimEnd()}\n`
}

/**
 * The group an option is listed under in the reference: its own, or simulate's when it has one per command.
 * @param {OptionDef} o
 */
function firstGroup (o) {
  return forCommand(o.group, o.commands[0])
}
