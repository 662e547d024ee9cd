/**
 * `ioswarm --help`: the top-level help (its texts are lib/cli-options/commands.js's, which bin/cli.js hands yargs)
 * rendered without yargs, as yargs lays it out (its usage.js, through bin/help-columns.js), for
 * bin/ioswarm.js to print when that is all it is asked: yargs' load alone (cliui, wrap-ansi,
 * string-width building Intl.Segmenters) takes longer than Node's start-up (a process
 * loads only what it uses). test/bin/top-help.test.js holds the two to the same bytes.
 */
import { COMMAND_LINES, CONFIG_DESCRIBE, EPILOG, SCRIPT, USAGE, helpWidth } from '../lib/cli-options/commands.js'
import { Columns } from './help-columns.js'

export { helpWidth }

/** The narrowest help the fast path prints; a narrower terminal gets yargs' own (the test covers every width from here to the widest). */
export const FAST_MIN_WIDTH = 40

/**
 * Whether yargs would print its help in its own English strings: it picks its locale from
 * LC_ALL, LC_MESSAGES, LANG, LANGUAGE (the first set; en_US when none), and has no file for C
 * or POSIX; English locales read locales/en.json, which repeats its built-in strings.
 * @param {NodeJS.ProcessEnv} env
 */
export function englishHelp (env) {
  const locale = (env.LC_ALL || env.LC_MESSAGES || env.LANG || env.LANGUAGE || 'en_US').replace(/[.:].*/, '')
  return locale === 'en' || locale.startsWith('en_') || locale === 'C' || locale === 'POSIX'
}

/**
 * The options yargs lists under the top-level help: --config (bin/cli.js), and its own --version and --help.
 * @type {{ switches: string[], describe: string, type?: string }[]}
 */
const OPTIONS = [
  { switches: ['--config'], describe: CONFIG_DESCRIBE },
  { switches: ['--version'], describe: 'Show version number', type: '[boolean]' },
  { switches: ['-h', '--help'], describe: 'Show help', type: '[boolean]' }
]

/**
 * `ioswarm --help` as yargs prints it at this width, without its final newline.
 * @param {number} width
 */
export function topHelp (width) {
  const ui = new Columns(width)
  const half = Math.floor(width * 0.5)
  ui.div({ text: USAGE.replace(/\$0/g, SCRIPT) })
  ui.div()
  ui.div('Commands:')
  const commands = Object.values(COMMAND_LINES).map(({ command, describe }) => ({ text: `${SCRIPT} ${command}`, describe }))
  const commandWidth = Math.min(Math.max(...commands.map((c) => c.text.length)), half) + 4
  for (const { text, describe } of commands) {
    ui.span({ text, padding: [0, 2, 0, 2], width: commandWidth }, { text: describe })
    ui.div()
  }
  ui.div()
  ui.div('Options:')
  // Long-only switches line up after a short one's "-x, ".
  const indent = OPTIONS.some((o) => o.switches.length > 1) ? 4 : 0
  const rows = OPTIONS.map((o) => ({ ...o, text: o.switches.join(', '), indentation: o.switches.length > 1 ? 0 : indent }))
  const switchWidth = Math.min(Math.max(...rows.map((r) => r.text.length + r.indentation)), half) + 4
  for (const { text, indentation, describe, type } of rows) {
    ui.span({ text, padding: [0, 2, 0, 2 + indentation], width: switchWidth }, describe)
    if (type) ui.div({ text: type, padding: [0, 0, 0, 2], align: 'right' })
    else ui.div()
  }
  ui.div()
  ui.div(`${EPILOG.replace(/\$0/g, SCRIPT)}\n`)
  return ui.toString().replace(/\s*$/, '')
}
